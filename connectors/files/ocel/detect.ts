import Database from 'better-sqlite3';
import { tableNames } from './sqlite-reader.js';

export type OcelFormat = 'ocel2-json' | 'ocel2-xml' | 'ocel2-sqlite' | 'ocel1-json' | 'ocel1-xml';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\u0000', 'latin1');

/**
 * Which OCEL form a file is, from its content: `head` is its first bytes
 * (about 64 KB, already gunzipped), `path` is read only for SQLite, whose
 * table list may lie beyond the head. Undefined when it is no OCEL form.
 */
export function detectOcel(head: Buffer, path: string): OcelFormat | undefined {
  if (head.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) return isOcelSqlite(path) ? 'ocel2-sqlite' : undefined;
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const start = text.trimStart();
  if (start.startsWith('{')) {
    if (/"ocel:(events|global-log|objects)"\s*:/.test(text)) return 'ocel1-json';
    const keys = ['objectTypes', 'eventTypes', 'objects', 'events'].filter((k) => new RegExp(`"${k}"\\s*:`).test(text));
    // Two of the four keys: a wire event (NDJSON) has none of them.
    if (keys.length >= 2) return 'ocel2-json';
    return undefined;
  }
  if (start.startsWith('<')) {
    const body = text.replace(/<\?[\s\S]*?\?>/g, '').replace(/<!--[\s\S]*?-->/g, '').replace(/<!DOCTYPE(?:[^>[]|\[[\s\S]*?\])*>/gi, '');
    if (!/^\s*<log[\s>/]/.test(body)) return undefined;
    if (/<(object-types|event-types)[\s>/]/.test(body)) return 'ocel2-xml';
    // XES shares the <log> root and <global>; OCEL 1.0 has events outside traces and object scopes.
    if (/xes\.version|<trace[\s>]/.test(body)) return undefined;
    if (/<global\s+scope="(object|log)"|key="(ocel:)?(omap|ovmap)"|key="ocel:/.test(body)) return 'ocel1-xml';
  }
  return undefined;
}

function isOcelSqlite(path: string): boolean {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const tables = tableNames(db);
    return tables.has('event') && tables.has('object') && tables.has('event_object');
  } catch {
    return false;
  } finally {
    db?.close();
  }
}
