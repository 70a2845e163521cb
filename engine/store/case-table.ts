import { MERGE_AFTER, MERGE_BATCHES } from './counter-table.js';
import type { Db } from './database.js';

/** A case's change in one batch: ids of its new rows, appended to its list or (whole) replacing it; an empty whole list removes the case. */
type CaseDelta = [caseId: string, ids: string, whole: 0 | 1];

interface Pending {
  ids: string;
  whole: boolean;
}

/**
 * Where each case's rows are in the event log: `case_state` (case -> row ids)
 * plus the changes of the last few batches in `case_delta`, one row each.
 *
 * A stream touches most open cases every few batches, and rewriting their
 * case_state rows each time dirtied nearly every page of the table per batch:
 * at 1M events it was a quarter of the ingest time. Batches now append one
 * row; once ~100k case changes wait (as for counters), they are merged per
 * case and applied at once. Like CounterTable, it keeps an in-memory mirror of the pending
 * changes while it can vouch for it, and otherwise merges (parsing the stored
 * changes) before it answers. Every method runs inside the caller's
 * transaction.
 */
export class CaseTable {
  private readonly q;
  private mirror: Map<string, Pending> | undefined;
  /** How many pending batches the mirror holds; it is used only while that is all of them. */
  private mirrored = 0;
  private batch: CaseDelta[] = [];
  /** Whether the mirror was checked against the stored changes in this batch (once is enough: the batch's transaction holds the file). */
  private checked = false;

  constructor(
    db: Db,
    private readonly mergeAfter = MERGE_AFTER,
  ) {
    this.q = {
      ids: db.prepare<[string], { event_ids: string }>('SELECT event_ids FROM case_state WHERE case_id = ?'),
      append: db.prepare(
        `INSERT INTO case_state (case_id, event_ids) VALUES (?, ?)
         ON CONFLICT (case_id) DO UPDATE SET event_ids = event_ids || ',' || excluded.event_ids`,
      ),
      set: db.prepare('INSERT INTO case_state (case_id, event_ids) VALUES (?, ?) ON CONFLICT (case_id) DO UPDATE SET event_ids = excluded.event_ids'),
      remove: db.prepare('DELETE FROM case_state WHERE case_id = ?'),
      deltas: db.prepare<[], { cases: string }>('SELECT cases FROM case_delta ORDER BY id'),
      pending: db.prepare<[], { n: number; entries: number }>('SELECT count(*) AS n, total(entries) AS entries FROM case_delta'),
      addDelta: db.prepare('INSERT INTO case_delta (entries, cases) VALUES (?, ?)'),
      clearDeltas: db.prepare('DELETE FROM case_delta'),
    };
  }

  /** The case's row ids (comma-separated, '' for none), as of the last finished batch. */
  rowIds(caseId: string): string {
    if (!this.checked || !this.mirror) {
      if (!this.mirror || this.mirrored !== this.pendingCount()) this.merge();
      this.checked = true;
    }
    const stored = this.q.ids.get(caseId)?.event_ids ?? '';
    const p = this.mirror!.get(caseId);
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
    const { n: pending, entries: waiting } = this.q.pending.get()!;
    this.q.addDelta.run(batch.length, JSON.stringify(batch));
    if (pending === 0) {
      this.mirror = new Map();
      this.mirrored = 0;
    }
    if (this.mirror && this.mirrored === pending) {
      for (const d of batch) mergeInto(this.mirror, d);
      this.mirrored += 1;
    } else {
      this.forget();
    }
    if (waiting + batch.length >= this.mergeAfter || pending + 1 >= MERGE_BATCHES) this.merge();
  }

  /** Applies the pending changes to case_state. */
  merge(): void {
    let changes = this.mirror;
    if (!changes || this.mirrored !== this.pendingCount()) {
      changes = new Map();
      for (const { cases } of this.q.deltas.iterate()) for (const d of JSON.parse(cases) as CaseDelta[]) mergeInto(changes, d);
    }
    for (const [caseId, p] of changes) {
      if (!p.whole) this.q.append.run(caseId, p.ids);
      else if (p.ids === '') this.q.remove.run(caseId);
      else this.q.set.run(caseId, p.ids);
    }
    this.q.clearDeltas.run();
    this.mirror = new Map();
    this.mirrored = 0;
  }

  pendingCount(): number {
    return this.q.pending.get()!.n;
  }

  /** Stops trusting the mirror (the transaction failed, or another connection wrote); drops the unfinished batch. */
  forget(): void {
    this.mirror = undefined;
    this.mirrored = -1;
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
