import type { Db } from './database.js';

/**
 * Pending changes (entries of all waiting batches) at which they are merged,
 * by default: about 16 batches of 10k events. Counted in changes, not
 * batches, so small batches do not merge more often for the same events.
 */
export const MERGE_AFTER = 100_000;
/** Waiting batches at which they are merged whatever their size, so counting them stays cheap. */
const MERGE_BATCHES = 256;
/**
 * How far past its threshold a log may grow while its merge is deferred: far enough that a writer who settles
 * between batches never merges inside one, near enough that one who never does still merges.
 */
const OVERDUE_FACTOR = 4;

/**
 * The changes of recent batches to one state table, waiting in a log table
 * (`id, entries, changes`) to be merged into it in bulk: the bookkeeping that
 * CounterTable and CaseTable share. A batch appends one row instead of
 * rewriting the state rows it touches; the owner merges when `append` says
 * so. Readers of the state add the pending changes to it.
 *
 * The log keeps an in-memory mirror `M` of the pending changes, built by its
 * owner batch by batch, which the owner may use instead of parsing the stored
 * rows while it is `trusted`: while it holds every pending batch. A restart,
 * a failed transaction (`forget`) or another connection's merge breaks that,
 * until the next merge `clear`s the log. Every method runs inside the
 * caller's transaction.
 */
export class BatchLog<M> {
  private readonly q;
  private mirror: M | undefined;
  /** How many pending batches the mirror holds; -1 until the next clear once it cannot be vouched for. */
  private mirrored = 0;
  /** Whether the last append found the log past its threshold (until the next clear). */
  private due = false;

  constructor(
    db: Db,
    table: 'counter_delta' | 'case_delta',
    private readonly mergeAfter = MERGE_AFTER,
    /**
     * Whether a due merge waits for the owner's store to settle (ProjectStore.settle, after the batch is
     * answered) rather than running inside the batch, until the log is OVERDUE_FACTOR times past its threshold.
     */
    private readonly deferMerges = false,
  ) {
    this.q = {
      pending: db.prepare<[], { batches: number; entries: number }>(`SELECT count(*) AS batches, total(entries) AS entries FROM ${table}`),
      append: db.prepare(`INSERT INTO ${table} (entries, changes) VALUES (?, ?)`),
      changes: db.prepare<[], { changes: string }>(`SELECT changes FROM ${table} ORDER BY id`),
      clear: db.prepare(`DELETE FROM ${table}`),
    };
  }

  /**
   * Appends a batch's changes (`entries` of them, stored as `changes`);
   * `extend` adds them to the mirror (undefined: none yet) and returns it, or
   * undefined when it cannot. Returns whether the owner should merge now (see deferMerges).
   */
  append(entries: number, changes: string, extend: (mirror: M | undefined) => M | undefined): boolean {
    const pending = this.q.pending.get()!;
    this.q.append.run(entries, changes);
    if (pending.batches === 0) {
      this.mirror = undefined;
      this.mirrored = 0;
    }
    const next = this.mirrored === pending.batches ? extend(this.mirror) : undefined;
    if (next === undefined) this.forget();
    else {
      this.mirror = next;
      this.mirrored += 1;
    }
    const over = Math.max((pending.entries + entries) / this.mergeAfter, (pending.batches + 1) / MERGE_BATCHES);
    this.due = over >= 1;
    return this.deferMerges ? over >= OVERDUE_FACTOR : this.due;
  }

  /** Whether the mirror holds every pending batch (no mirror and none pending counts). */
  trusted(): boolean {
    return this.mirrored === this.q.pending.get()!.batches;
  }

  /** The mirror as it is; only worth reading while trusted. */
  current(): M | undefined {
    return this.mirror;
  }

  /** The stored changes, oldest first. */
  *stored(): Generator<string> {
    for (const row of this.q.changes.all()) yield row.changes;
  }

  pendingBatches(): number {
    return this.q.pending.get()!.batches;
  }

  /** Whether a merge is due and has not happened yet (a deferred one waits for the owner's settle). */
  get mergeDue(): boolean {
    return this.due;
  }

  /** Empties the log (its changes were merged, or replaced). */
  clear(): void {
    this.q.clear.run();
    this.due = false;
    this.mirror = undefined;
    this.mirrored = 0;
  }

  forget(): void {
    this.mirror = undefined;
    this.mirrored = -1;
  }
}
