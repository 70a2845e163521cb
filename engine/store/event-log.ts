import { compareEvents, type Event } from '../event.js';
import type { Db } from './database.js';
import { KeyIndex } from './key-index.js';
import { packBody, unpackRow, type EventRow } from './trace-codec.js';

export interface KeptRow extends EventRow {
  id: number;
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

  /** The row kept under this key, if any. */
  find(key: string): KeptRow | undefined {
    this.wanted = key;
    this.found = undefined;
    this.keyIndex().find(key, this.isWanted);
    return this.found;
  }

  /** Appends a new event (its key must not be kept yet); returns its row id. */
  append(e: Event): number {
    const id = Number(this.q.insert.run(e.key, e.caseId, e.time, e.digest, packBody(e)).lastInsertRowid);
    this.keyIndex().add(e.key, id);
    return id;
  }

  /** Puts a winning body in the row of the event it replaces (same key, so the index holds). */
  replace(id: number, e: Event): void {
    this.q.replace.run(e.caseId, e.time, e.digest, packBody(e), id);
  }

  /** The rows of these ids (comma-separated), in no particular order. */
  rows(ids: string): KeptRow[] {
    return ids === '' ? [] : this.q.rows.all(ids);
  }

  /** Every case's events in case order, one case at a time (case_state must be up to date: see CaseTable.merge). */
  *traces(): Generator<Event[]> {
    let current: Event[] = [];
    for (const row of this.q.allRows.iterate()) {
      if (current.length && current[0]!.caseId !== row.case_id) {
        yield current.sort(compareEvents);
        current = [];
      }
      current.push(unpackRow(row));
    }
    if (current.length) yield current.sort(compareEvents);
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
