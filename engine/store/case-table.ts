import { BatchLog, MERGE_AFTER } from './batch-log.js';
import type { Db } from './database.js';

/** A case's change in one batch: ids of its new rows, appended to its list or (whole) replacing it; an empty whole list removes the case. */
type CaseDelta = [caseId: string, ids: string, whole: 0 | 1];

export interface Pending {
  ids: string;
  whole: boolean;
}

/**
 * Pending case changes at which they are merged, by default: four times the counters' threshold. A merge
 * rewrites the row of every open case it meets (its list of row ids grows), so its cost is the open cases'
 * pages rather than the changes; merging a quarter as often took a 10M-event stream's fourth million from
 * 20.3 s to 17.7 s (test/bench/ingest.ts, a growing project). Only case-level reads lay the pending changes over the table (a whole
 * log's traces, the case ids), while counters are read on every snapshot, so theirs stay at MERGE_AFTER.
 */
export const CASE_MERGE_AFTER = 4 * MERGE_AFTER;

/**
 * Where each case's rows are in the event log: `case_state` (case -> row ids)
 * plus the changes of the last few batches in `case_delta` (a BatchLog), one
 * row each.
 *
 * A stream touches most open cases every few batches, and rewriting their
 * case_state rows each time dirtied nearly every page of the table per batch:
 * at 1M events it was a quarter of the ingest time. Batches now append one
 * row; once ~400k case changes wait (CASE_MERGE_AFTER), they are merged per
 * case and applied at once. A case is read through the log's mirror (the
 * pending changes merged per case) while it is trusted; otherwise the pending
 * changes are merged first. Every method runs inside the caller's
 * transaction.
 */
export class CaseTable {
  private readonly q;
  private readonly log: BatchLog<Map<string, Pending>>;
  private batch: CaseDelta[] = [];
  /** Whether the mirror was checked against the stored changes in this batch (once is enough: the batch's transaction holds the file). */
  private checked = false;

  constructor(
    db: Db,
    mergeAfter?: number,
    /** Whether a due merge waits for the owner's `merge` (ProjectStore.settle); see BatchLog. */
    deferMerges = false,
  ) {
    this.log = new BatchLog(db, 'case_delta', mergeAfter ?? CASE_MERGE_AFTER, deferMerges);
    this.q = {
      ids: db.prepare<[string], { event_ids: string }>('SELECT event_ids FROM case_state WHERE case_id = ?'),
      append: db.prepare(
        `INSERT INTO case_state (case_id, event_ids) VALUES (?, ?)
         ON CONFLICT (case_id) DO UPDATE SET event_ids = iif(event_ids = '', excluded.event_ids, event_ids || ',' || excluded.event_ids)`,
      ),
      set: db.prepare('INSERT INTO case_state (case_id, event_ids) VALUES (?, ?) ON CONFLICT (case_id) DO UPDATE SET event_ids = excluded.event_ids'),
      remove: db.prepare('DELETE FROM case_state WHERE case_id = ?'),
      caseIds: db.prepare<[], string>('SELECT case_id FROM case_state').pluck(),
      empty: db.prepare<[string]>("UPDATE case_state SET event_ids = '' WHERE case_id = ?"),
    };
  }

  /** The case's row ids (comma-separated, '' for none), as of the last finished batch. */
  rowIds(caseId: string): string {
    if (!this.checked) {
      if (!this.log.trusted()) this.merge();
      this.checked = true;
    }
    const stored = this.q.ids.get(caseId)?.event_ids ?? '';
    const p = this.log.current()?.get(caseId);
    return p === undefined ? stored : p.whole ? p.ids : joinIds(stored, p.ids);
  }

  /** Notes, for the batch being applied, rows appended to a case. */
  append(caseId: string, ids: readonly number[]): void {
    this.batch.push([caseId, ids.join(','), 0]);
  }

  /** Notes, for the batch being applied, a case's whole new list of rows (none: the case is gone). */
  set(caseId: string, ids: readonly number[]): void {
    this.batch.push([caseId, ids.join(','), 1]);
  }

  /** Writes the batch's case changes as one row; every few batches applies the pending ones to case_state. */
  endBatch(): void {
    const batch = this.batch;
    this.batch = [];
    this.checked = false;
    if (batch.length === 0) return;
    const mergeNow = this.log.append(batch.length, JSON.stringify(batch), (mirror) => {
      const changes = mirror ?? new Map<string, Pending>();
      for (const d of batch) mergeInto(changes, d);
      return changes;
    });
    if (mergeNow) this.merge();
  }

  /** Whether pending changes wait for a deferred merge. */
  get mergeDue(): boolean {
    return this.log.mergeDue;
  }

  /** Applies the pending changes to case_state. */
  merge(): void {
    let changes = this.log.trusted() ? this.log.current() : undefined;
    if (!changes) {
      changes = new Map();
      for (const stored of this.log.stored()) for (const d of JSON.parse(stored) as CaseDelta[]) mergeInto(changes, d);
    }
    // In key order, so that the upserts walk case_state's B-tree once, leaf after leaf, instead of jumping
    // between the pages of every open case (the table outgrows SQLite's page cache as a project grows).
    // JavaScript's order is UTF-16's, SQLite's UTF-8's: they differ only past the BMP, where only locality suffers.
    for (const caseId of [...changes.keys()].sort()) {
      const p = changes.get(caseId)!;
      if (!p.whole) this.q.append.run(caseId, p.ids);
      else if (p.ids === '') this.q.remove.run(caseId);
      else this.q.set.run(caseId, p.ids);
    }
    this.log.clear();
  }

  /** The pending changes merged per case, read without writing (the mirror while trusted, else the stored rows). */
  pending(): ReadonlyMap<string, Pending> {
    const mirror = this.log.trusted() ? this.log.current() : undefined;
    if (mirror) return mirror;
    const changes = new Map<string, Pending>();
    for (const stored of this.log.stored()) for (const d of JSON.parse(stored) as CaseDelta[]) mergeInto(changes, d);
    return changes;
  }

  pendingBatches(): number {
    return this.log.pendingBatches();
  }

  /** Every case id, stored or pending (a read, like pending()). */
  ids(): Set<string> {
    const ids = new Set<string>(this.q.caseIds.all());
    if (this.log.pendingBatches() > 0) {
      // An empty whole list is a case whose events were all retracted (ProjectStore.retractSource).
      for (const [caseId, p] of this.pending()) {
        if (p.ids !== '') ids.add(caseId);
        else if (p.whole) ids.delete(caseId);
      }
    }
    return ids;
  }

  /**
   * Empties a stored case's row list, keeping its row (a pruned case: its events are gone, its id and
   * contribution stay). Merge first, so that no pending change lists the rows again.
   */
  empty(caseId: string): void {
    this.q.empty.run(caseId);
  }

  /** Stops trusting the mirror (the transaction failed, or another connection wrote); drops the unfinished batch. */
  forget(): void {
    this.log.forget();
    this.batch = [];
    this.checked = false;
  }
}

/** Folds one more (later) change of a case into the pending changes. */
function mergeInto(changes: Map<string, Pending>, [caseId, ids, whole]: CaseDelta): void {
  const p = changes.get(caseId);
  if (whole || p === undefined) changes.set(caseId, { ids, whole: whole === 1 });
  else p.ids = joinIds(p.ids, ids);
}

function joinIds(a: string, b: string): string {
  return a === '' ? b : b === '' ? a : `${a},${b}`;
}
