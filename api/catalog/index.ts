import { dirname, join } from 'node:path';
import { SecretBox } from '../../connectors/kafka/index.js';
import { openCatalogDb, type Db } from './database.js';
import { Clusters } from './clusters.js';
import { Sources } from './sources.js';
import { Identity } from './identity.js';
import { Keys } from './keys.js';
import { GraphVersions, Projects, RecordTable } from './records.js';

export { DEFAULT_KEEP_VERSIONS, DEFAULT_VERSION_BYTES } from './records.js';

export { CatalogTooNewError } from './database.js';
export { grants, normalizePermissions, type Membership, type Permission, type Tenant, type User } from './identity.js';
export { cappedExpiry, newSecret, type GlobalKeyInfo, type Issuer, type TenantKeyInfo } from './keys.js';
export type { GraphVersionInfo, Project, ProjectRecord, RecordKind } from './records.js';
export type { SourceRecord, SourceRefusal, WorkerStatus } from './sources.js';
export type { ClusterInfo, TopicAccess } from './clusters.js';

export interface CatalogOptions {
  /** Seals stream sources' secrets; default: the key in `source-secret-key` beside the catalog (made on first use). */
  secrets?: SecretBox;
  /** Served graph documents kept per project: how many and how many bytes (PCG_LIMIT_GRAPH_VERSIONS, PCG_LIMIT_GRAPH_VERSIONS_BYTES). */
  graphVersions?: { keep?: number; maxBytes?: number };
}

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
  readonly clusters: Clusters;
  readonly sources: Sources;

  static open(file: string, options: CatalogOptions = {}): Catalog {
    let box = options.secrets;
    return new Catalog(openCatalogDb(file), () => (box ??= SecretBox.fromConfig(undefined, join(dirname(file), 'source-secret-key'))), options.graphVersions);
  }

  constructor(db: Db, secrets: () => SecretBox = () => new SecretBox('in-memory catalog'), versions: CatalogOptions['graphVersions'] = {}) {
    this.db = db;
    this.keys = new Keys(db);
    this.identity = new Identity(db, this.keys);
    this.projects = new Projects(db);
    this.datasets = new RecordTable(db, 'dataset');
    this.investigations = new RecordTable(db, 'investigation');
    this.notebooks = new RecordTable(db, 'notebook');
    this.blocks = new RecordTable(db, 'block');
    this.dashboards = new RecordTable(db, 'dashboard');
    this.graphVersions = new GraphVersions(db, versions.keep, versions.maxBytes);
    this.clusters = new Clusters(db, secrets);
    this.sources = new Sources(db, secrets, this.clusters);
  }

  close(): void {
    this.db.close();
  }
}
