import { openSqlite, type Db } from '../../engine/index.js';
import { migrations } from './migrations.js';

export type { Db };

export class CatalogTooNewError extends Error {}

/** Opens the catalog: WAL, foreign keys (deletes cascade), migrated to the newest user_version. */
export function openCatalogDb(file: string): Db {
  return openSqlite(file, migrations, {
    tooNew: (version, known) => new CatalogTooNewError(`catalog schema version ${version} is newer than this pcg (${known})`),
  });
}

export const now = (): string => new Date().toISOString();
