import { compareEvents, type Event } from '../event.js';
import type { Db } from './database.js';
import { DigestSum } from './digest.js';
import { KeyIndex } from './key-index.js';
import { packBody, unpackRow, type EventRow } from './trace-codec.js';

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
  /** The key being looked up and the row found for it: fields rather than a closure per lookup. */
  private wanted = '';
  private found: KeptRow | undefined;
  private readonly isWanted = (id: number): boolean => {
    const row = this.q.byId.get(id)!;
    if (row.key !== this.wanted) return false;
    this.found = row;
    return true;
  };

  constructor(db: Db) {
    this.q = {
      insert: db.prepare('INSERT INTO event (key, case_id, time, digest, body) VALUES (?, ?, ?, ?, ?)'),
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
    };
  }

  get isEmpty(): boolean {
    return this.q.any.get() === undefined;
  }

  /** Writes a batch's new and winning events (one per key); a key already kept is a duplicate unless the new body has the smaller digest. */
  write(incoming: Iterable<Event>, logDigest: string): BatchChanges {
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
    for (const e of incoming) {
      const kept = this.find(e.key);
      let id: number;
      if (!kept) {
        id = this.append(e);
      } else {
        if (kept.digest <= e.digest) {
          changes.duplicates += 1;
          continue;
        }
        // A different body under a known id, and it wins: the old one leaves its case.
        changes.digest.add(kept.digest, -1);
        (change(kept.case_id).replaced ??= []).push(unpackRow(kept));
        changes.replacedKeys.add(e.key);
        this.replace(kept.id, e);
        id = kept.id;
      }
      changes.digest.add(e.digest, 1);
      const c = change(e.caseId);
      c.added.push(e);
      c.ids.push(id);
      changes.addedMin = Math.min(changes.addedMin, e.time);
      changes.addedMax = Math.max(changes.addedMax, e.time);
      changes.accepted += 1;
    }
    return changes;
  }

  /** The row kept under this key, if any. */
  private find(key: string): KeptRow | undefined {
    this.wanted = key;
    this.found = undefined;
    this.keyIndex().find(key, this.isWanted);
    return this.found;
  }

  /** Appends a new event (its key must not be kept yet); returns its row id. */
  private append(e: Event): number {
    const id = Number(this.q.insert.run(e.key, e.caseId, e.time, e.digest, packBody(e)).lastInsertRowid);
    this.keyIndex().add(e.key, id);
    return id;
  }

  /** Puts a winning body in the row of the event it replaces (same key, so the index holds). */
  private replace(id: number, e: Event): void {
    this.q.replace.run(e.caseId, e.time, e.digest, packBody(e), id);
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
