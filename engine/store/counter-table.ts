import { BatchLog } from './batch-log.js';
import { Counters, type CounterRow } from './codec.js';
import type { Db } from './database.js';

type DeltaRow = [kind: string, k1: string, k2: string, bucket: number, n: number];

/**
 * The counted state in SQLite: summed rows in `counter`, plus the deltas of
 * the last few batches in `counter_delta` (a BatchLog), one row each. The state is their
 * sum, so a batch writes one row (an append) instead of upserting each of its
 * counters; once ~100k changes wait, they are summed in memory and applied at
 * once. Deltas of nearby batches touch mostly the same counters
 * (wait buckets, hours, choice cells) and often cancel (the variant of an open
 * case's path so far), so the merge writes far fewer rows than the batches
 * did. Every method runs inside the caller's transaction.
 *
 * The merge sums from the log's mirror (the deltas summed by counter id, no
 * parsing) while it is trusted; after a restart, a failed transaction or a
 * fresh KeyBook it parses the stored deltas instead.
 */
export class CounterTable {
  private readonly q;
  private readonly log: BatchLog<Counters>;

  constructor(
    db: Db,
    mergeAfter?: number,
    /** Whether a due merge waits for the owner's `merge` (ProjectStore.settle); see BatchLog. */
    deferMerges = false,
  ) {
    this.log = new BatchLog(db, 'counter_delta', mergeAfter, deferMerges);
    this.q = {
      counters: db.prepare<[], CounterRow>('SELECT kind, k1, k2, bucket, n FROM counter'),
      bump: db.prepare('INSERT INTO counter (kind, k1, k2, bucket, n) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n'),
      // Rows that fell to zero, found through a partial index that holds only them.
      deleteZero: db.prepare('DELETE FROM counter WHERE n = 0'),
      clearCounters: db.prepare('DELETE FROM counter'),
      totals: db.prepare<[], { kind: 'cases' | 'events'; n: number }>("SELECT kind, sum(n) AS n FROM counter WHERE kind IN ('cases', 'events') GROUP BY kind"),
    };
  }

  /** Records a batch's counter changes; returns them as stored (the rows of a JSON array, `changeRows` reads them), '' for none. */
  add(delta: Counters): string {
    const { json, entries } = delta.jsonRows();
    if (entries === 0) return '';
    const mergeNow = this.log.append(entries, `[${json}]`, (mirror) => {
      // Ids mean something only within one book.
      if (mirror && mirror.book !== delta.book) return undefined;
      const sum = mirror ?? new Counters(delta.book);
      sum.addFrom(delta);
      return sum;
    });
    if (mergeNow) this.merge();
    return json;
  }

  /** Whether pending changes wait for a deferred merge. */
  get mergeDue(): boolean {
    return this.log.mergeDue;
  }

  /** Stops trusting the mirror (the transaction failed, or another connection wrote). */
  forget(): void {
    this.log.forget();
  }

  /** Sums the pending deltas into counter. */
  merge(): void {
    if (this.log.trusted()) {
      for (const r of this.log.current()?.rows() ?? []) this.q.bump.run(r.kind, r.k1, r.k2, r.bucket, r.n);
    } else {
      for (const [kind, k1, k2, bucket, n] of this.parsedSums()) if (n !== 0) this.q.bump.run(kind, k1, k2, bucket, n);
    }
    this.q.deleteZero.run();
    this.log.clear();
  }

  private parsedSums(): Iterable<DeltaRow> {
    const sums = new Map<string, DeltaRow>();
    for (const changes of this.log.stored()) {
      for (const r of JSON.parse(changes) as DeltaRow[]) {
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
    for (const changes of this.log.stored()) {
      for (const [kind, k1, k2, bucket, n] of JSON.parse(changes) as DeltaRow[]) yield { kind, k1, k2, bucket, n };
    }
  }

  /**
   * Cases and events counted, without reading every counter: two ranges of the key, plus the pending deltas.
   * (An import's summary after 219k events applied on a work thread: the whole tally, read again on the
   * request loop, held it about 600 ms.)
   */
  totals(): { cases: number; events: number } {
    const t = { cases: 0, events: 0 };
    for (const r of this.q.totals.iterate()) t[r.kind] += r.n;
    for (const changes of this.log.stored()) {
      for (const [kind, , , , n] of JSON.parse(changes) as DeltaRow[]) if (kind === 'cases' || kind === 'events') t[kind] += n;
    }
    return t;
  }

  /** Replaces the whole counted state (a rebuild). */
  replace(rows: Iterable<CounterRow>): void {
    this.log.clear();
    this.q.clearCounters.run();
    for (const r of rows) this.q.bump.run(r.kind, r.k1, r.k2, r.bucket, r.n);
  }
}

/** The counter rows of one batch's changes as `add` returned them. */
export function* changeRows(json: string): Generator<CounterRow> {
  if (!json) return;
  for (const [kind, k1, k2, bucket, n] of JSON.parse(`[${json}]`) as DeltaRow[]) yield { kind, k1, k2, bucket, n };
}
