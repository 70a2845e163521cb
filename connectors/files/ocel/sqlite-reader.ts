import Database from 'better-sqlite3';
import { OcelError } from './errors.js';
import { attributeValue, emptyLog, type OcelEvent, type OcelLog } from './model.js';

const REQUIRED = ['event', 'object', 'event_object'] as const;
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * OCEL 2.0 SQLite, opened read-only. Event times and attributes live in one
 * table per event type (`event_<Type>`). SQLite has no single event order, so
 * ties in time follow the reference reader's: row by row through the per-type
 * tables, types in name order (what pm4py's stable sort yields).
 */
export function readOcel2Sqlite(path: string): OcelLog {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new OcelError('ocel_malformed', `SQLite: ${(error as Error).message}`);
  }
  try {
    return read(db);
  } catch (error) {
    if (error instanceof OcelError) throw error;
    throw new OcelError('ocel_malformed', `SQLite: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}

/** The table names of a SQLite file, or undefined when it is not one (used by detection too). */
export function tableNames(db: Database.Database): Set<string> {
  return new Set(db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").all().map((r) => r.name));
}

function read(db: Database.Database): OcelLog {
  const tables = tableNames(db);
  const missing = REQUIRED.filter((t) => !tables.has(t));
  if (missing.length) throw new OcelError('ocel_missing_table', `SQLite: missing OCEL 2.0 table${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
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
    if (r.e !== null && r.o !== null) log.eventObjects.push({ from: String(r.e), to: String(r.o), qualifier: r.q === null ? undefined : String(r.q) });
  }
  if (tables.has('object_object')) {
    for (const r of db.prepare<[], { f: unknown; t: unknown; q: unknown }>('SELECT ocel_source_id AS f, ocel_target_id AS t, ocel_qualifier AS q FROM object_object').iterate()) {
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
