import { CaseFold, type FoldState } from '../contribution.js';
import { compareEvents } from '../event.js';
import type { CaseTable } from './case-table.js';
import type { Counters } from './codec.js';
import type { Db } from './database.js';
import type { EventLog } from './event-log.js';
import { unpackRow } from './trace-codec.js';

/**
 * Retention: a project keeps its raw events for a window while its counters
 * keep everything. The window runs on the log's own clock, so a pass is a
 * function of the stored log and never of when it runs: the horizon is the
 * newest event time (meta `period_end`) minus the window, and a case whose
 * every event is older than the horizon is *closed beyond the window*.
 * Pruning such a case deletes its rows from `event` (and their keys from the
 * de-duplication index), keeps its contribution in the counters and its
 * case_state row (with no rows listed), and stores its fold by names in
 * `case_fold`, so that a later event can continue it:
 *
 * - an event after every pruned event of its case continues the fold
 *   exactly, as any append does;
 * - an event at or before the latest pruned one (a late event, a re-sent or
 *   replaced old one: their keys are gone, so they are new events now) is
 *   stepped after the pruned ones anyway, without re-sequencing them, and
 *   counted in meta `late_unsequenced`. The case's kept events are still
 *   ordered among themselves: its counted trace is its pruned events as they
 *   were counted, then its kept ones in case order.
 *
 * Nothing counted changes, so a pass leaves the data version alone; meta
 * `pruned_events` (the events pruned so far) tells the store's other
 * connections that rows went (ProjectStore.syncCopies).
 */

/** A pruned case as case_fold keeps it. */
export interface PrunedCase {
  state: FoldState;
  /** The earliest and latest time of the case's pruned events, and the key of the latest (case order: time, then key). */
  first: number;
  last: number;
  lastKey: string;
  /** Events of the case pruned so far. */
  events: number;
}

/** The `case_fold` table (migration 5). Every method runs inside the caller's transaction. */
export class FoldTable {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      get: db.prepare<[string], { first_time: number; last_time: number; last_key: string; events: number; fold: string }>(
        'SELECT first_time, last_time, last_key, events, fold FROM case_fold WHERE case_id = ?',
      ),
      put: db.prepare(
        `INSERT INTO case_fold (case_id, first_time, last_time, last_key, events, fold) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (case_id) DO UPDATE SET first_time = excluded.first_time, last_time = excluded.last_time, last_key = excluded.last_key,
         events = excluded.events, fold = excluded.fold`,
      ),
      ids: db.prepare<[], string>('SELECT case_id FROM case_fold').pluck(),
      any: db.prepare<[], number>('SELECT 1 FROM case_fold LIMIT 1').pluck(),
    };
  }

  get(caseId: string): PrunedCase | undefined {
    const r = this.q.get.get(caseId);
    return r && { state: JSON.parse(r.fold) as FoldState, first: r.first_time, last: r.last_time, lastKey: r.last_key, events: r.events };
  }

  put(caseId: string, c: PrunedCase): void {
    this.q.put.run(caseId, c.first, c.last, c.lastKey, c.events, JSON.stringify(c.state));
  }

  ids(): string[] {
    return this.q.ids.all();
  }

  get isEmpty(): boolean {
    return this.q.any.get() === undefined;
  }
}

/** What pruning needs of a store, inside its write transaction. */
export interface PruneContext {
  db: Db;
  log: EventLog;
  cases: CaseTable;
  folds: FoldTable;
  /** A throwaway sum over the store's book (folds step into it; it is reset). */
  scratch: Counters;
  meta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
}

export interface PruneStep {
  /** Cases pruned in this step. */
  cases: number;
  /** Their rows deleted. */
  events: number;
  /** The last row id looked at, to start the next step after; undefined when the pass is done. */
  next: number | undefined;
}

/**
 * One step of a pass, inside the store's immediate transaction: scans up to `scan` kept rows after
 * row `after` in arrival order and looks at each case at its first row (its earlier rows were met by
 * an earlier step), until it has read `events` rows of the cases looked at; prunes those closed beyond
 * the window `keepMs`. In arrival order, because the rows a step deletes then lie together: deleting
 * in case id order dirtied a page per row, and committing those pages was most of a step's time.
 */
export function pruneCases(s: PruneContext, keepMs: number, after: number, scan: number, events: number): PruneStep {
  const step: PruneStep = { cases: 0, events: 0, next: undefined };
  const end = s.meta('period_end');
  if (!end) return step;
  const horizon = Number(end) - keepMs;
  // Emptied in place below: no pending change may list their rows again.
  if (s.cases.pendingBatches() > 0) s.cases.merge();
  const chunk = s.log.scan(after, scan);
  if (chunk.length === scan) step.next = chunk[chunk.length - 1]![0];
  const gone: { id: number; key: string }[] = [];
  const seen = new Set<string>();
  let read = 0;
  for (const [id, caseId] of chunk) {
    if (seen.has(caseId)) continue;
    if (read >= events) {
      // Enough rows read for one step: the next starts at this row, of a case not looked at yet.
      step.next = id - 1;
      break;
    }
    seen.add(caseId);
    const ids = s.cases.rowIds(caseId);
    if (firstId(ids) < id) continue;
    const rows = s.log.rows(ids);
    read += rows.length;
    const base = s.folds.get(caseId);
    let first = base?.first ?? Infinity;
    let last = base ? { time: base.last, key: base.lastKey } : undefined;
    for (const r of rows) {
      if (r.time < first) first = r.time;
      if (!last || compareEvents(r, last) > 0) last = r;
    }
    if (!last || !(last.time < horizon)) continue;
    // The fold the counters hold: the pruned events first, then the kept ones in case order.
    const fold = base ? CaseFold.restore(base.state, s.scratch.book) : new CaseFold(s.scratch.book);
    for (const e of rows.map(unpackRow).sort(compareEvents)) fold.step(e, s.scratch, 1);
    s.scratch.reset();
    s.folds.put(caseId, { state: fold.toJSON(), first, last: last.time, lastKey: last.key, events: (base?.events ?? 0) + rows.length });
    s.cases.empty(caseId);
    for (const r of rows) gone.push(r);
    step.cases += 1;
    step.events += rows.length;
  }
  if (gone.length === 0) return step;
  const newest = s.db.prepare<[], number | null>('SELECT max(id) FROM event').pluck().get() ?? 0;
  if (newest > Number(s.meta('event_id_floor') ?? '0')) s.setMeta('event_id_floor', String(newest));
  s.log.prune(gone);
  s.setMeta('pruned_events', String(Number(s.meta('pruned_events') ?? '0') + step.events));
  return step;
}

/** The smallest of comma-separated row ids. */
function firstId(ids: string): number {
  let min = Infinity;
  for (let i = 0; i < ids.length; ) {
    let j = ids.indexOf(',', i);
    if (j < 0) j = ids.length;
    const id = Number(ids.slice(i, j));
    if (id < min) min = id;
    i = j + 1;
  }
  return min;
}

/** Which dead letters to delete: those received before a time (oldest first, at most `limit`), or these ids. */
export type DeadLetterSelection = { receivedBefore: number; limit: number } | { ids: readonly number[] };

/**
 * Deletes dead letters, inside the store's transaction, and keeps what counts them true to what is
 * kept: meta `rejected` and each positioned source's `rejected` in source_stat. Returns how many went.
 */
export function deleteDeadLetters(db: Db, which: DeadLetterSelection, meta: (key: string) => string | undefined, setMeta: (key: string, value: string) => void): number {
  const sources =
    'ids' in which
      ? db.prepare<[string], { source: string }>("DELETE FROM dead_letter WHERE id IN (SELECT value FROM json_each(?)) RETURNING source").all(JSON.stringify(which.ids))
      : db
          .prepare<[number, number], { source: string }>('DELETE FROM dead_letter WHERE id IN (SELECT id FROM dead_letter WHERE received_at < ? ORDER BY received_at, id LIMIT ?) RETURNING source')
          .all(which.receivedBefore, which.limit);
  if (sources.length === 0) return 0;
  const bySource = new Map<string, number>();
  for (const { source } of sources) bySource.set(source, (bySource.get(source) ?? 0) + 1);
  const stat = db.prepare('UPDATE source_stat SET rejected = max(0, rejected - ?) WHERE source = ?');
  for (const [source, n] of bySource) stat.run(n, source);
  const left = Math.max(0, Number(meta('rejected') ?? '0') - sources.length);
  if (left > 0) setMeta('rejected', String(left));
  else db.prepare("DELETE FROM meta WHERE key = 'rejected'").run();
  return sources.length;
}

/** The oldest dead letters (by time received, then id): what pruning by count across a project's stores compares. */
export function oldestDeadLetters(db: Db, limit: number): { id: number; receivedAt: number }[] {
  return db.prepare<[number], { id: number; receivedAt: number }>('SELECT id, received_at AS receivedAt FROM dead_letter ORDER BY received_at, id LIMIT ?').all(limit);
}
