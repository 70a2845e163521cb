import { openSqlite, type Db } from '../../engine/index.js';
import { migrations } from './migrations.js';
import { registerWireError } from '../../engine/error-base.js';
import { OperatorError } from '../exit-codes.js';

export type { Db };

export class CatalogTooNewError extends OperatorError<'catalog_too_new'> {
  override name = 'CatalogTooNewError';
  constructor(message: string) {
    super('catalog_too_new', message);
  }
}
registerWireError('CatalogTooNewError', CatalogTooNewError, (w) => new CatalogTooNewError(w.message));

/** Opens the catalog: WAL, foreign keys (deletes cascade), migrated to the newest user_version. */
export function openCatalogDb(file: string): Db {
  return openSqlite(file, migrations, {
    tooNew: (version, known) => new CatalogTooNewError(`catalog schema version ${version} is newer than this pcg (${known})`),
  });
}

export const now = (): string => new Date().toISOString();
