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
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new EngineError(
      'schema_too_new',
      `state file has schema version ${current}; this pcg knows up to ${migrations.length}. Use a newer pcg.`,
    );
  }
  if (current === 0) {
    const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number };
    if (tables.n > 0) throw new EngineError('state_corrupt', 'file has tables but no pcg schema version');
  }
  for (let v = current; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v] as string);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
