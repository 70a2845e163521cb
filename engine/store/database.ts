import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { EngineError } from '../errors.js';
import { migrations } from './migrations.js';

export type Db = Database.Database;

/**
 * Opens (creating if needed) a project state file: WAL, foreign keys on,
 * migrated to the newest user_version. A file written by a newer pcg is
 * refused rather than guessed at.
 */
export function openDatabase(file: string): Db {
  const db = openSqlite(file, migrations, {
    tooNew: (version, known) =>
      new EngineError('schema_too_new', `state file has schema version ${version}; this pcg knows up to ${known}. Use a newer pcg.`),
    unversioned: () => new EngineError('state_corrupt', 'file has tables but no pcg schema version'),
  });
  // SQLite's own 2 MiB page cache per state file: better-sqlite3 builds SQLite with 16 MiB, and a process may hold
  // hundreds of stores open (PCG_MAX_OPEN_STORES), so the soak saw that cache grow outside the V8 heap (up to 4 GiB
  // at 256 stores). Ingesting 1M events took the same time with either (18.8-23.1 s against 19.2-22.6 s, same run).
  db.pragma(`cache_size = ${-STATE_CACHE_KIB}`);
  return db;
}

/** KiB of page cache per project state connection. */
export const STATE_CACHE_KIB = 2000;

export interface SqliteOptions {
  /** The error for a file whose user_version is above the migrations known here (written by a newer pcg). */
  tooNew: (version: number, known: number) => Error;
  /** The error for a file with tables but no user_version; without it such a file is migrated as if empty. */
  unversioned?: () => Error;
}

/**
 * Opens (creating folder and file if needed) a SQLite file the way every pcg
 * file is kept: WAL, synchronous NORMAL, foreign keys on, a 5 s busy timeout,
 * and the numbered migrations (entry i moves user_version i-1 to i, each in a
 * transaction). The connection is closed again when any of it fails.
 */
export function openSqlite(file: string, migrations: readonly string[], options: SqliteOptions): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    // The timeout first: two processes may open a new file at once (a worker making a partition state while the API reads it).
    db.pragma('busy_timeout = 5000');
    walMode(db);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, migrations, options);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Switching to WAL takes a lock the busy handler does not wait for: retried for up to 2 s. */
function walMode(db: Db): void {
  for (let attempt = 0; ; attempt++) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (attempt >= 100 || !/^SQLITE_BUSY/.test(String((error as { code?: string }).code))) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

/**
 * Brings the file to the newest user_version. Read, checked and migrated under
 * one write lock: two connections opening a new file at once would otherwise
 * both run the first migration, and one fail on tables the other made.
 */
function migrate(db: Db, migrations: readonly string[], options: SqliteOptions): void {
  if ((db.pragma('user_version', { simple: true }) as number) === migrations.length) return;
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > migrations.length) throw options.tooNew(current, migrations.length);
    if (current === 0 && options.unversioned) {
      const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number };
      if (tables.n > 0) throw options.unversioned();
    }
    for (let v = current; v < migrations.length; v++) {
      db.exec(migrations[v] as string);
      db.pragma(`user_version = ${v + 1}`);
    }
  }).immediate();
}
