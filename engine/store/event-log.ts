import { compareEvents, type Event } from '../event.js';
import type { Db } from './database.js';
import { DigestSum } from './digest.js';
import { KeyIndex } from './key-index.js';
import { unpackRow, type EventRow } from './trace-codec.js';

export interface KeptRow extends EventRow {
  id: number;
}

/** What a batch did to one case's kept events. */
interface CaseChange {
  /** New and winning events. */
  added: Event[];
  /** Their row ids. */
  ids: number[];
  /** Old bodies this batch replaced (their rows now hold the winners, maybe of another case). */
  replaced: Event[] | undefined;
}

/** What retracting a source takes away: the rows no other source holds. */
export interface Released {
  /** The source's ranges of appended rows (their rows other sources hold stay). */
  readonly ranges: readonly [number, number][];
  /** Rows outside its ranges that it alone held. */
  readonly alone: readonly number[];
  /** Every row to delete, ascending. */
  readonly ids: Float64Array;
  /** The cases of those rows. */
  readonly cases: ReadonlySet<string>;
  has(id: number): boolean;
}

/** What a batch did to the kept events, for the case updates that follow. */
export interface BatchChanges {
  /** The log digest with the batch's changes. */
  digest: DigestSum;
  /** By case, in the order the batch first touched them. */
  cases: Map<string, CaseChange>;
  /** Keys of rows this batch wrote over. */
  replacedKeys: Set<string>;
  addedMin: number;
  addedMax: number;
  accepted: number;
  duplicates: number;
}

/**
 * The kept events of a project: an append-only table (migration 2) plus the
 * in-memory key index that finds an event already kept under a key. A case
 * finds its rows through its list of row ids (see CaseTable).
 *
 * The index is a copy of the table: built on the first lookup, and dropped
 * (`forget`) whenever the store cannot vouch that it still matches, after a
 * failed transaction or a write by another connection.
 */
export class EventLog {
  private index: KeyIndex | undefined;
  private readonly q;
  /** The parameters of one many-row insert, reused. */
  private readonly appendParams: (string | number)[] = new Array<string | number>(APPEND_ROWS * 6);
  /** The key being looked up and the row found for it: fields rather than a closure per lookup. */
  private wanted = '';
  private found: KeptRow | undefined;
  private readonly isWanted = (id: number): boolean => {
    // A row pruned by another connection may still have an entry here (see ProjectStore.syncCopies): it matches nothing.
    const row = this.q.byId.get(id);
    if (row === undefined || row.key !== this.wanted) return false;
    this.found = row;
    return true;
  };

  constructor(db: Db) {
    this.q = {
      insert: db.prepare('INSERT INTO event (id, key, case_id, time, digest, body) VALUES (?, ?, ?, ?, ?, ?)'),
      insertMany: db.prepare(`INSERT INTO event (id, key, case_id, time, digest, body) VALUES ${Array(APPEND_ROWS).fill('(?, ?, ?, ?, ?, ?)').join(', ')}`),
      // Ids are never used twice: pruning may delete the newest rows, so it leaves their ids' floor in meta.
      nextId: db
        .prepare<[], number>("SELECT max(coalesce((SELECT max(id) FROM event), 0), coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'event_id_floor'), 0)) + 1")
        .pluck(),
      byId: db.prepare<[number], KeptRow>('SELECT id, key, case_id, time, digest, body FROM event WHERE id = ?'),
      replace: db.prepare('UPDATE event SET case_id = ?, time = ?, digest = ?, body = ? WHERE id = ?'),
      keys: db.prepare<[], [number, string]>('SELECT id, key FROM event').raw(),
      count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM event'),
      rows: db.prepare<[string], KeptRow>(
        `SELECT e.id, e.key, e.case_id, e.time, e.digest, e.body FROM json_each('[' || ? || ']') j JOIN event e ON e.id = j.value`,
      ),
      allRows: db.prepare<[], EventRow>(
        `SELECT e.key, e.case_id, e.time, e.digest, e.body
         FROM case_state c, json_each('[' || c.event_ids || ']') j JOIN event e ON e.id = j.value
         ORDER BY c.case_id`,
      ),
      any: db.prepare('SELECT 1 FROM event LIMIT 1'),
      lastRange: db.prepare<[], { first_id: number; last_id: number; source: string }>('SELECT first_id, last_id, source FROM source_rows ORDER BY first_id DESC LIMIT 1'),
      extendRange: db.prepare('UPDATE source_rows SET last_id = ? WHERE first_id = ?'),
      addRange: db.prepare('INSERT INTO source_rows (first_id, last_id, source) VALUES (?, ?, ?)'),
      rangeOf: db.prepare<[number], { source: string; last_id: number }>('SELECT source, last_id FROM source_rows WHERE first_id <= ? ORDER BY first_id DESC LIMIT 1'),
      hold: db.prepare('INSERT OR IGNORE INTO event_holder (source, id) VALUES (?, ?)'),
      rangesOf: db.prepare<[string], [number, number]>('SELECT first_id, last_id FROM source_rows WHERE source = ? ORDER BY first_id').raw(),
      heldBy: db.prepare<[string], number>('SELECT id FROM event_holder WHERE source = ? ORDER BY id').pluck(),
      dropRanges: db.prepare('DELETE FROM source_rows WHERE source = ?'),
      dropHeld: db.prepare('DELETE FROM event_holder WHERE source = ?'),
      anyHolder: db.prepare<[number], number>('SELECT 1 FROM event_holder WHERE id = ? LIMIT 1').pluck(),
      casesBetween: db.prepare<[number, number], { id: number; case_id: string; held: number | null }>(
        'SELECT id, case_id, (SELECT 1 FROM event_holder h WHERE h.id = event.id LIMIT 1) AS held FROM event WHERE id BETWEEN ? AND ?',
      ),
      caseOf: db.prepare<[number], string>('SELECT case_id FROM event WHERE id = ?').pluck(),
      deleteBetween: db.prepare('DELETE FROM event WHERE id BETWEEN ? AND ? AND NOT EXISTS (SELECT 1 FROM event_holder h WHERE h.id = event.id)'),
      deleteRow: db.prepare('DELETE FROM event WHERE id = ?'),
      scan: db.prepare<[number, number], [number, string]>('SELECT id, case_id FROM event WHERE id > ? ORDER BY id LIMIT ?').raw(),
      dropRows: db.prepare<[string]>("DELETE FROM event WHERE id IN (SELECT value FROM json_each('[' || ? || ']'))"),
      dropHolders: db.prepare<[string]>("DELETE FROM event_holder WHERE id IN (SELECT value FROM json_each('[' || ? || ']'))"),
    };
  }

  get isEmpty(): boolean {
    return this.q.any.get() === undefined;
  }

  /**
   * Writes a batch's new and winning events (one per key); a key already kept is a duplicate unless the new body has
   * the smaller digest. `source` (the batch's position source; '' without one) holds what it appended and what it sent
   * again: see `release`.
   */
  write(incoming: readonly Event[], bodies: readonly string[], logDigest: string, source = ''): BatchChanges {
    const changes: BatchChanges = {
      digest: new DigestSum(logDigest),
      cases: new Map(),
      replacedKeys: new Set(),
      addedMin: Infinity,
      addedMax: -Infinity,
      accepted: 0,
      duplicates: 0,
    };
    const change = (caseId: string): CaseChange => {
      let c = changes.cases.get(caseId);
      if (!c) changes.cases.set(caseId, (c = { added: [], ids: [], replaced: undefined }));
      return c;
    };
    // New events get the ids after the last row, in order (one range: nothing else writes during the batch), and are
    // inserted APPEND_ROWS at a time. Their keys are unique in the batch, so none of them is looked up before it is written.
    const first = this.q.nextId.get()!;
    let next = first;
    const pending: number[] = [];
    for (let k = 0; k < incoming.length; k++) {
      const e = incoming[k]!;
      const kept = this.find(e.key);
      let id: number;
      if (!kept) {
        id = next++;
        pending.push(k);
        if (pending.length === APPEND_ROWS) this.append(incoming, bodies, pending, id - APPEND_ROWS + 1);
      } else {
        this.hold(source, kept.id);
        if (kept.digest <= e.digest) {
          changes.duplicates += 1;
          continue;
        }
        // A different body under a known id, and it wins: the old one leaves its case.
        changes.digest.add(kept.digest, -1);
        (change(kept.case_id).replaced ??= []).push(unpackRow(kept));
        changes.replacedKeys.add(e.key);
        this.q.replace.run(e.caseId, e.time, e.digest, bodies[k]!, kept.id);
        id = kept.id;
      }
      changes.digest.add(e.digest, 1);
      const c = change(e.caseId);
      c.added.push(e);
      c.ids.push(id);
      if (e.time < changes.addedMin) changes.addedMin = e.time;
      if (e.time > changes.addedMax) changes.addedMax = e.time;
      changes.accepted += 1;
    }
    if (pending.length) this.append(incoming, bodies, pending, next - pending.length);
    if (next > first) this.noteRange(source, first, next - 1);
    return changes;
  }

  /** Records that `source` appended rows first..last: the newest range grows when it is the same source's and ends just before. */
  private noteRange(source: string, first: number, last: number): void {
    const newest = this.q.lastRange.get();
    if (newest && newest.source === source && newest.last_id === first - 1) this.q.extendRange.run(last, newest.first_id);
    else this.q.addRange.run(first, last, source);
  }

  /** The source of the range holding row `id`, if any range does. */
  private appenderOf(id: number): string | undefined {
    const r = this.q.rangeOf.get(id);
    return r && r.last_id >= id ? r.source : undefined;
  }

  /** Notes that `source` sent the event kept in row `id` too (nothing to note when it appended the row itself). */
  private hold(source: string, id: number): void {
    if (this.appenderOf(id) !== source) this.q.hold.run(source, id);
  }

  /**
   * Takes a source's hold off the events it sent: its ranges and holder rows are deleted, and the
   * rows no other source holds are returned (ids ascending, and their cases), for the caller to
   * retract from their cases before `remove` deletes them. An event another source also sent
   * stays, with the body it has (the smallest digest any source sent).
   */
  release(source: string): Released {
    const ranges = this.q.rangesOf.all(source);
    const held = this.q.heldBy.all(source);
    this.q.dropRanges.run(source);
    this.q.dropHeld.run(source);
    const ids: number[] = [];
    const cases = new Set<string>();
    for (const [a, b] of ranges) {
      for (const r of this.q.casesBetween.iterate(a, b)) {
        if (r.held) continue;
        ids.push(r.id);
        cases.add(r.case_id);
      }
    }
    const alone: number[] = [];
    for (const id of held) {
      if (this.appenderOf(id) !== undefined || this.q.anyHolder.get(id)) continue;
      const caseId = this.q.caseOf.get(id);
      if (caseId === undefined) continue;
      alone.push(id);
      cases.add(caseId);
    }
    const sorted = Float64Array.from(ids.concat(alone)).sort();
    return {
      ranges,
      alone,
      ids: sorted,
      cases,
      has(id: number): boolean {
        let lo = 0;
        let hi = sorted.length - 1;
        while (lo <= hi) {
          const mid = (lo + hi) >>> 1;
          const v = sorted[mid]!;
          if (v === id) return true;
          if (v < id) lo = mid + 1;
          else hi = mid - 1;
        }
        return false;
      },
    };
  }

  /** Deletes the rows `release` returned; the key index no longer matches the table and is rebuilt on the next lookup. */
  remove(released: Released): void {
    for (const [a, b] of released.ranges) this.q.deleteBetween.run(a, b);
    for (const id of released.alone) this.q.deleteRow.run(id);
    this.index = undefined;
  }

  /**
   * Deletes kept rows for good (pruning: their cases' contributions stay counted), with their holders,
   * and drops their keys from the index when it is built. Their ids are never given out again (see
   * nextId): the ranges of source_rows still cover them.
   */
  prune(rows: readonly { id: number; key: string }[]): void {
    if (rows.length === 0) return;
    const ids = rows.map((r) => r.id).join(',');
    this.q.dropRows.run(ids);
    this.q.dropHolders.run(ids);
    if (this.index) for (const r of rows) this.index.remove(r.key, r.id);
  }

  /** Up to `limit` kept rows after row `after`, in arrival order: [id, case id]. */
  scan(after: number, limit: number): [number, string][] {
    return this.q.scan.all(after, limit);
  }

  /** Entries in the key index, 0 when it is not built. */
  get indexed(): number {
    return this.index?.size ?? 0;
  }

  /** The rows a source holds (appended or sent again), range by range: its own events, for its counts. */
  *heldRows(source: string): Generator<{ id: number; case_id: string }> {
    for (const [a, b] of this.q.rangesOf.all(source)) yield* this.q.casesBetween.iterate(a, b);
    for (const id of this.q.heldBy.all(source)) {
      const caseId = this.q.caseOf.get(id);
      if (caseId !== undefined) yield { id, case_id: caseId };
    }
  }

  /** The row kept under this key, if any. */
  private find(key: string): KeptRow | undefined {
    this.wanted = key;
    this.found = undefined;
    this.keyIndex().find(key, this.isWanted);
    return this.found;
  }

  /**
   * Inserts the events at `pending` (indexes into the batch; emptied) as rows `firstId`, `firstId + 1`, ... and adds
   * their keys to the index. A statement of APPEND_ROWS rows costs about half as much per row as one row a statement.
   */
  private append(events: readonly Event[], bodies: readonly string[], pending: number[], firstId: number): void {
    const many = pending.length === APPEND_ROWS;
    const params = many ? this.appendParams : [0, '', '', 0, '', ''];
    for (let j = 0; j < pending.length; j++) {
      const k = pending[j]!;
      const e = events[k]!;
      const o = many ? j * 6 : 0;
      params[o] = firstId + j;
      params[o + 1] = e.key;
      params[o + 2] = e.caseId;
      params[o + 3] = e.time;
      params[o + 4] = e.digest;
      params[o + 5] = bodies[k]!;
      if (!many) this.q.insert.run(params);
    }
    if (many) this.q.insertMany.run(params);
    const index = this.keyIndex();
    for (let j = 0; j < pending.length; j++) index.add(events[pending[j]!]!.key, firstId + j);
    pending.length = 0;
  }

  /** The rows of these ids (comma-separated), in no particular order. */
  rows(ids: string): KeptRow[] {
    return ids === '' ? [] : this.q.rows.all(ids);
  }

  /**
   * Every case's events in case order, one case at a time, in case id order: case_state's rows
   * with the changes still pending in the case batch log laid over them (see CaseTable.pending),
   * so reading never has to merge, that is, to write.
   */
  *traces(pending: ReadonlyMap<string, { ids: string; whole: boolean }> = new Map()): Generator<Event[]> {
    // Cases only the pending changes know, in the table's order (SQLite's BINARY: UTF-8 bytes), slotted in as the stored ones pass.
    const fresh = [...pending.keys()].sort(byteOrder);
    let next = 0;
    const finish = function* (this: EventLog, caseId: string, stored: Event[]): Generator<Event[]> {
      const p = pending.get(caseId);
      const events = p === undefined ? stored : [...(p.whole ? [] : stored), ...this.rows(p.ids).map(unpackRow)];
      if (events.length) yield events.sort(compareEvents);
    }.bind(this);
    const before = function* (this: EventLog, caseId: string | undefined): Generator<Event[]> {
      while (next < fresh.length && (caseId === undefined || byteOrder(fresh[next]!, caseId) < 0)) {
        const id = fresh[next++]!;
        yield* finish(id, []);
      }
      // A pending case the table has too is finished with its stored rows, not here.
      if (caseId !== undefined && fresh[next] === caseId) next++;
    }.bind(this);
    let current: Event[] = [];
    let currentId: string | undefined;
    for (const row of this.q.allRows.iterate()) {
      if (row.case_id !== currentId) {
        if (currentId !== undefined) yield* finish(currentId, current);
        yield* before(row.case_id);
        current = [];
        currentId = row.case_id;
      }
      current.push(unpackRow(row));
    }
    if (currentId !== undefined) yield* finish(currentId, current);
    yield* before(undefined);
  }

  forget(): void {
    this.index = undefined;
  }

  private keyIndex(): KeyIndex {
    if (!this.index) {
      const index = new KeyIndex(this.q.count.get()!.n);
      for (const [id, key] of this.q.keys.iterate()) index.add(key, id);
      this.index = index;
    }
    return this.index;
  }
}

/** Rows a many-row insert writes (6 parameters each, far below SQLite's limit of 32,766). */
const APPEND_ROWS = 64;

/**
 * SQLite's BINARY collation on text: the order of the UTF-8 bytes, which is code point order, not
 * the order of UTF-16 units. The two differ only where a surrogate (a code point past U+FFFF) meets
 * a unit from U+E000 up; units are shifted so that surrogates sort last, without allocating.
 */
function byteOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit;
}
