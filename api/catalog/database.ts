import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrations } from './migrations.js';

export type Db = Database.Database;

export class CatalogTooNewError extends Error {}

/** Opens the catalog: WAL, foreign keys (deletes cascade), migrated to the newest user_version. */
export function openCatalogDb(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > migrations.length) throw new CatalogTooNewError(`catalog schema version ${current} is newer than this pcg (${migrations.length})`);
    for (let v = current; v < migrations.length; v++) {
      db.transaction(() => {
        db.exec(migrations[v]!);
        db.pragma(`user_version = ${v + 1}`);
      })();
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export const now = (): string => new Date().toISOString();
