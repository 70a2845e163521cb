import Database from 'better-sqlite3';
import { OcelError } from './errors.js';
import { attributeValue, emptyLog, type OcelEvent, type OcelLog } from './model.js';
import { relationBudget, type RelationBudget } from './budget.js';

const REQUIRED = ['event', 'object', 'event_object'] as const;
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * OCEL 2.0 SQLite, opened read-only. Event times and attributes live in one
 * table per event type (`event_<Type>`). SQLite has no single event order, so
 * ties in time follow the reference reader's: row by row through the per-type
 * tables, types in name order (what pm4py's stable sort yields).
 *
 * An uploaded database is a program as much as data: a view runs its query
 * when it is read (a 12 KB file whose `event` table was a view over a
 * recursive CTE took 15 s to refuse, inside one call to SQLite that nothing
 * could interrupt), a virtual table runs its module's code, a computed
 * (VIRTUAL generated) column its expression on every row read. better-sqlite3
 * offers no progress handler to cut a statement short, and SQLite's heap
 * limits are the process's (they would bind every project store too). What
 * bounds the cost is what is read: every table the reader reads must be a
 * plain table without computed columns (checked in sqlite_master and
 * table_xinfo before its first row), and the file must have no trigger on
 * them (triggers never run on reads; one is refused as a sign the file is
 * not a plain OCEL export). A plain table's rows are records on its pages, so
 * reading it is one step per row, each bounded by the file's bytes (and so by
 * the upload limit), and the thread that reads can be stopped between rows:
 * a check's time budget ends it there (api/upload-checks.ts). Rows of
 * relations are counted against PCG_LIMIT_OCEL_RELATIONS as they are read. The
 * connection is read-only and query-only, with a bounded page cache and no
 * memory map.
 */
export function readOcel2Sqlite(path: string, budget: RelationBudget = relationBudget()): OcelLog {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma('query_only = ON');
    db.pragma('trusted_schema = OFF');
    db.pragma('cell_size_check = ON');
    db.pragma('mmap_size = 0');
    db.pragma('cache_size = -16384');
  } catch (error) {
    throw new OcelError('ocel_malformed', `SQLite: ${(error as Error).message}`);
  }
  try {
    return read(db, budget);
  } catch (error) {
    if (error instanceof OcelError) throw error;
    throw new OcelError('ocel_malformed', `SQLite: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}

/** The table names of a SQLite file, views included (used by detection too: a view where a table should be is refused by name, not missed). */
export function tableNames(db: Database.Database): Set<string> {
  return new Set(db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").all().map((r) => r.name));
}

/**
 * Refuses a table the reader is about to read unless it is a plain one: not a view, not a virtual table, no
 * computed column read from it, no trigger on it. Says which table and what it is.
 */
function assertPlain(db: Database.Database, table: string): void {
  const entries = db.prepare<[string], { type: string; name: string; sql: string | null }>('SELECT type, name, sql FROM sqlite_master WHERE tbl_name = ? COLLATE NOCASE').all(table);
  const own = entries.find((e) => e.name.toLowerCase() === table.toLowerCase() && (e.type === 'table' || e.type === 'view'));
  const refuse = (what: string) =>
    new OcelError('ocel_unsafe_sqlite', `SQLite: the OCEL table "${table}" ${what}; only plain tables are read (views, virtual tables, computed columns and triggers run code when read or written)`);
  if (!own) return;
  if (own.type === 'view') throw refuse('is a view');
  if (/^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(own.sql ?? '')) throw refuse('is a virtual table');
  const trigger = entries.find((e) => e.type === 'trigger');
  if (trigger) throw refuse(`has a trigger ("${trigger.name}")`);
  // table_xinfo's hidden: 2 for a VIRTUAL generated column (computed at every read); 3 (STORED) is a value on disk.
  const computed = db.prepare<[], { name: string; hidden: number }>(`PRAGMA table_xinfo(${quote(table)})`).all().find((c) => c.hidden === 2);
  if (computed) throw refuse(`has a computed column ("${computed.name}")`);
}

function read(db: Database.Database, budget: RelationBudget): OcelLog {
  const tables = tableNames(db);
  const missing = REQUIRED.filter((t) => !tables.has(t));
  if (missing.length) throw new OcelError('ocel_missing_table', `SQLite: missing OCEL 2.0 table${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  for (const t of [...REQUIRED, 'object_object', 'event_map_type']) if (tables.has(t)) assertPlain(db, t);
  const log = emptyLog();

  const typeOf = new Map<string, string>();
  for (const r of db.prepare<[], { id: unknown; type: unknown }>('SELECT ocel_id AS id, ocel_type AS type FROM event').iterate()) {
    if (r.id === null || r.type === null) log.problems.push({ location: 'table event', reason: 'a row without ocel_id or ocel_type' });
    else typeOf.set(String(r.id), String(r.type));
  }
  for (const r of db.prepare<[], { id: unknown; type: unknown }>('SELECT ocel_id AS id, ocel_type AS type FROM object').iterate()) {
    if (r.id === null || r.type === null) log.problems.push({ location: 'table object', reason: 'a row without ocel_id or ocel_type' });
    else log.objects.set(String(r.id), String(r.type));
  }

  const tableOf = mapTypes(db, tables, 'event_map_type');
  const types = [...new Set(typeOf.values())].sort();
  const ranked: { event: OcelEvent; row: number; typeIndex: number }[] = [];
  const timed = new Set<string>();
  types.forEach((type, typeIndex) => {
    const table = `event_${tableOf.get(type) ?? type.replace(/[^A-Za-z0-9_]/g, '')}`;
    if (!tables.has(table)) {
      log.problems.push({ location: `table ${table}`, reason: `missing: the events of type "${type}" have no time and are left out` });
      return;
    }
    assertPlain(db, table);
    // SQLite has no booleans: a column declared BOOLEAN holds 0 and 1.
    const booleans = new Set(
      db.prepare<[], { name: string; type: string }>(`PRAGMA table_info(${quote(table)})`).all().filter((c) => /bool/i.test(c.type)).map((c) => c.name),
    );
    let row = 0;
    for (const r of db.prepare<[], Record<string, unknown>>(`SELECT * FROM ${quote(table)}`).iterate()) {
      const id = r.ocel_id === null || r.ocel_id === undefined ? undefined : String(r.ocel_id);
      if (id === undefined || typeOf.get(id) !== type || timed.has(id)) continue;
      timed.add(id);
      const attributes: OcelEvent['attributes'] = {};
      for (const [name, value] of Object.entries(r)) {
        if (name === 'ocel_id' || name === 'ocel_time') continue;
        const v = attributeValue(booleans.has(name) && (value === 0 || value === 1) ? value === 1 : value);
        if (v !== undefined) attributes[name] = v;
      }
      const time = r.ocel_time;
      ranked.push({ event: { id, type, time: typeof time === 'number' || typeof time === 'string' ? time : '', attributes }, row: row++, typeIndex });
    }
  });
  for (const [id, type] of typeOf) {
    if (!timed.has(id) && tables.has(`event_${tableOf.get(type) ?? type.replace(/[^A-Za-z0-9_]/g, '')}`)) {
      log.problems.push({ location: `event ${id}`, reason: `no row in its type table, so no time` });
    }
  }
  ranked.sort((a, b) => a.row - b.row || a.typeIndex - b.typeIndex);
  log.events = ranked.map((r) => r.event);

  for (const r of db.prepare<[], { e: unknown; o: unknown; q: unknown }>('SELECT ocel_event_id AS e, ocel_object_id AS o, ocel_qualifier AS q FROM event_object').iterate()) {
    budget.read(1);
    if (r.e !== null && r.o !== null) log.eventObjects.push({ from: String(r.e), to: String(r.o), qualifier: r.q === null ? undefined : String(r.q) });
  }
  if (tables.has('object_object')) {
    for (const r of db.prepare<[], { f: unknown; t: unknown; q: unknown }>('SELECT ocel_source_id AS f, ocel_target_id AS t, ocel_qualifier AS q FROM object_object').iterate()) {
      budget.read(1);
      if (r.f !== null && r.t !== null) log.objectObjects.push({ from: String(r.f), to: String(r.t), qualifier: r.q === null ? undefined : String(r.q) });
    }
  }
  return log;
}

function mapTypes(db: Database.Database, tables: Set<string>, table: string): Map<string, string> {
  const map = new Map<string, string>();
  if (!tables.has(table)) return map;
  for (const r of db.prepare<[], { t: unknown; m: unknown }>(`SELECT ocel_type AS t, ocel_type_map AS m FROM ${table}`).iterate()) {
    if (r.t !== null && r.m !== null) map.set(String(r.t), String(r.m));
  }
  return map;
}
