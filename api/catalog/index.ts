import { openCatalogDb, type Db } from './database.js';
import { Identity } from './identity.js';
import { Keys } from './keys.js';
import { GraphVersions, Projects, RecordTable } from './records.js';

export { CatalogTooNewError } from './database.js';
export { grants, normalizePermissions, type Membership, type Permission, type Tenant, type User } from './identity.js';
export { newSecret, type GlobalKeyInfo, type TenantKeyInfo } from './keys.js';
export type { GraphVersionInfo, Project, ProjectRecord, RecordKind } from './records.js';

/**
 * The catalog: one SQLite file holding tenants, users, keys and every resource
 * record. Project event state lives elsewhere (one file per project).
 */
export class Catalog {
  readonly db: Db;
  readonly identity: Identity;
  readonly keys: Keys;
  readonly projects: Projects;
  readonly datasets: RecordTable;
  readonly investigations: RecordTable;
  readonly notebooks: RecordTable;
  readonly blocks: RecordTable;
  readonly dashboards: RecordTable;
  readonly graphVersions: GraphVersions;

  static open(file: string): Catalog {
    return new Catalog(openCatalogDb(file));
  }

  constructor(db: Db) {
    this.db = db;
    this.identity = new Identity(db);
    this.keys = new Keys(db);
    this.projects = new Projects(db);
    this.datasets = new RecordTable(db, 'dataset');
    this.investigations = new RecordTable(db, 'investigation');
    this.notebooks = new RecordTable(db, 'notebook');
    this.blocks = new RecordTable(db, 'block');
    this.dashboards = new RecordTable(db, 'dashboard');
    this.graphVersions = new GraphVersions(db);
  }

  close(): void {
    this.db.close();
  }
}
