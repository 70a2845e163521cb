import { Counters, type CounterRow } from './codec.js';
import type { Db } from './database.js';

/**
 * Pending changes (rows of all waiting deltas) at which they are summed into
 * counter, by default: about 16 batches of 10k events. Counted in changes,
 * not batches, so small batches do not merge more often for the same events.
 */
export const MERGE_AFTER = 100_000;
/** Waiting deltas at which they are merged whatever their size, so counting them stays cheap. */
export const MERGE_BATCHES = 256;

type DeltaRow = [kind: string, k1: string, k2: string, bucket: number, n: number];

/**
 * The counted state in SQLite: summed rows in `counter`, plus the deltas of
 * the last few batches in `counter_delta`, one row each. The state is their
 * sum, so a batch writes one row (an append) instead of upserting each of its
 * counters; once ~100k changes wait, they are summed in memory and applied at
 * once. Deltas of nearby batches touch mostly the same counters
 * (wait buckets, hours, choice cells) and often cancel (the variant of an open
 * case's path so far), so the merge writes far fewer rows than the batches
 * did. Every method runs inside the caller's transaction.
 *
 * The merge sums from an in-memory mirror of the pending deltas when it has
 * one (counters by id, no parsing); after a restart, a failed transaction or
 * a fresh KeyBook it parses the stored deltas instead.
 */
export class CounterTable {
  private readonly q;
  private mirror: Counters | undefined;
  /** How many pending deltas the mirror holds; it is used only while that is all of them. */
  private mirrored = 0;

  constructor(
    db: Db,
    private readonly mergeAfter = MERGE_AFTER,
  ) {
    this.q = {
      counters: db.prepare<[], CounterRow>('SELECT kind, k1, k2, bucket, n FROM counter'),
      deltas: db.prepare<[], { rows: string }>('SELECT rows FROM counter_delta ORDER BY id'),
      pending: db.prepare<[], { n: number; entries: number }>('SELECT count(*) AS n, total(entries) AS entries FROM counter_delta'),
      addDelta: db.prepare('INSERT INTO counter_delta (entries, rows) VALUES (?, ?)'),
      bump: db.prepare('INSERT INTO counter (kind, k1, k2, bucket, n) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n'),
      // Rows that fell to zero, found through a partial index that holds only them.
      deleteZero: db.prepare('DELETE FROM counter WHERE n = 0'),
      clearDeltas: db.prepare('DELETE FROM counter_delta'),
      clearCounters: db.prepare('DELETE FROM counter'),
    };
  }

  /** Records a batch's counter changes. */
  add(delta: Counters): void {
    const { json, entries } = delta.jsonRows();
    if (entries === 0) return;
    const { n: pending, entries: waiting } = this.q.pending.get()!;
    this.q.addDelta.run(entries, `[${json}]`);
    if (pending === 0) {
      this.mirror = new Counters(delta.book);
      this.mirrored = 0;
    }
    // The mirror stays usable while it holds every pending delta, all numbered by one book.
    if (this.mirror && this.mirrored === pending && this.mirror.book === delta.book) {
      this.mirror.addFrom(delta);
      this.mirrored += 1;
    } else {
      this.forget();
    }
    if (waiting + entries >= this.mergeAfter || pending + 1 >= MERGE_BATCHES) this.merge();
  }

  /** Stops trusting the mirror (the transaction failed, or another connection wrote). */
  forget(): void {
    this.mirror = undefined;
    this.mirrored = -1;
  }

  /** Sums the pending deltas into counter. */
  merge(): void {
    if (this.mirror && this.mirrored === this.q.pending.get()!.n) {
      for (const r of this.mirror.rows()) this.q.bump.run(r.kind, r.k1, r.k2, r.bucket, r.n);
    } else {
      for (const [kind, k1, k2, bucket, n] of this.parsedSums()) if (n !== 0) this.q.bump.run(kind, k1, k2, bucket, n);
    }
    this.q.deleteZero.run();
    this.q.clearDeltas.run();
    this.mirror = undefined;
    this.mirrored = 0;
  }

  private parsedSums(): Iterable<DeltaRow> {
    const sums = new Map<string, DeltaRow>();
    for (const { rows } of this.q.deltas.iterate()) {
      for (const r of JSON.parse(rows) as DeltaRow[]) {
        const key = `${r[0]}\u0000${r[1]}\u0000${r[2]}\u0000${r[3]}`;
        const sum = sums.get(key);
        if (sum) sum[4] += r[4];
        else sums.set(key, r);
      }
    }
    return sums.values();
  }

  /** Every counter, as the summed rows followed by the pending deltas (tallyFromRows adds them up). */
  *rows(): Generator<CounterRow> {
    yield* this.q.counters.iterate();
    for (const { rows } of this.q.deltas.all()) {
      for (const [kind, k1, k2, bucket, n] of JSON.parse(rows) as DeltaRow[]) yield { kind, k1, k2, bucket, n };
    }
  }

  /** Replaces the whole counted state (a rebuild). */
  replace(rows: Iterable<CounterRow>): void {
    this.q.clearDeltas.run();
    this.mirror = undefined;
    this.mirrored = 0;
    this.q.clearCounters.run();
    for (const r of rows) this.q.bump.run(r.kind, r.k1, r.k2, r.bucket, r.n);
  }
}
