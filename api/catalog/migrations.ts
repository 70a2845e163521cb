/**
 * The catalog's schema, one entry per version (user_version = entries applied).
 * Append only: a shipped entry is never edited.
 */
const stamp = 'created_at TEXT NOT NULL, updated_at TEXT NOT NULL';

/** Records owned by a project (and maybe a parent record): one shape, several tables. */
function projectRecordTable(name: string, parent?: string): string {
  const parentColumn = parent ? `parent_id TEXT NOT NULL REFERENCES ${parent} (id) ON DELETE CASCADE,` : 'parent_id TEXT,';
  return `CREATE TABLE ${name} (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    project_id TEXT NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    ${parentColumn}
    position INTEGER NOT NULL DEFAULT 0,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    ${stamp}
  ) STRICT;
  CREATE INDEX ${name}_project ON ${name} (project_id, parent_id, position);`;
}

export const migrations: readonly string[] = [
  `
  CREATE TABLE tenant (id TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL, ${stamp}) STRICT;
  CREATE TABLE user (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL, ${stamp}) STRICT;
  CREATE TABLE membership (
    tenant_id TEXT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES user (id) ON DELETE CASCADE,
    permissions TEXT NOT NULL,
    ${stamp},
    PRIMARY KEY (tenant_id, user_id)
  ) STRICT;
  CREATE TABLE global_key (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, prefix TEXT NOT NULL, hash BLOB NOT NULL,
    created_at TEXT NOT NULL, last_used_at TEXT, revoked_at TEXT
  ) STRICT;
  CREATE INDEX global_key_prefix ON global_key (prefix);
  CREATE TABLE api_key (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES user (id) ON DELETE CASCADE,
    name TEXT NOT NULL, prefix TEXT NOT NULL, hash BLOB NOT NULL,
    permissions TEXT NOT NULL, project_ids TEXT,
    created_at TEXT NOT NULL, last_used_at TEXT, revoked_at TEXT
  ) STRICT;
  CREATE INDEX api_key_prefix ON api_key (prefix);
  CREATE INDEX api_key_tenant ON api_key (tenant_id);
  CREATE TABLE project (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    name TEXT NOT NULL, description TEXT NOT NULL, ${stamp}
  ) STRICT;
  CREATE INDEX project_tenant ON project (tenant_id);
  ${projectRecordTable('dataset')}
  ${projectRecordTable('investigation')}
  ${projectRecordTable('notebook', 'investigation')}
  ${projectRecordTable('block', 'notebook')}
  ${projectRecordTable('dashboard')}
  CREATE TABLE graph_version (
    project_id TEXT NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    data_version INTEGER NOT NULL,
    document TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (project_id, data_version)
  ) STRICT;
  `,
  `
  -- Stream sources (Kafka topics) a project subscribes to. body: the
  -- declaration without secrets; secret: SASL password and TLS key sealed with
  -- the source secret key (connectors/kafka/secrets.ts), '' for none.
  CREATE TABLE source (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    project_id TEXT NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    secret TEXT NOT NULL,
    paused INTEGER NOT NULL DEFAULT 0,
    revision INTEGER NOT NULL DEFAULT 1,
    ${stamp}
  ) STRICT;
  CREATE INDEX source_project ON source (project_id);
  -- What each worker running a source last reported (assigned partitions, lag, last error).
  CREATE TABLE source_status (
    source_id TEXT NOT NULL REFERENCES source (id) ON DELETE CASCADE,
    worker_id TEXT NOT NULL,
    status TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (source_id, worker_id)
  ) STRICT;
  `,
  `
  -- Key expiry (NULL: never), and where a global key came from: 'config'
  -- (PCG_GLOBAL_API_KEY: a changed configured key revokes the old one's row),
  -- 'file' (<data-dir>/global-api-key) or 'api' (/admin/global-api-keys).
  -- Before this entry only the server wrote global keys, named by origin.
  ALTER TABLE global_key ADD COLUMN expires_at TEXT;
  ALTER TABLE global_key ADD COLUMN origin TEXT NOT NULL DEFAULT 'api';
  UPDATE global_key SET origin = CASE name WHEN 'configured' THEN 'config' ELSE 'file' END;
  ALTER TABLE api_key ADD COLUMN expires_at TEXT;
  `,
  `
  -- Retention per project: days its raw events are kept (NULL: the server's
  -- PCG_RETENTION_DAYS; 0: every event is kept). See engine/store/retention.ts.
  ALTER TABLE project ADD COLUMN retention_days INTEGER;
  `,
  `
  -- Listing a project's kept versions reads data_version and created_at only, but
  -- created_at comes after the document in the row, so each row read walked the
  -- document's overflow pages (the soak: 5 -> 22 ms for 500 versions). The index
  -- covers the list.
  CREATE INDEX graph_version_listed ON graph_version (project_id, data_version, created_at);
  `,
  `
  -- Documents kept gzip-compressed in packed (document is then ''): a 4 MB
  -- document of 2,000 activities packs to 90 KB, and storing it as text held
  -- the event loop 155 ms. Rows kept before stay text (packed NULL) and age out.
  ALTER TABLE graph_version ADD COLUMN packed BLOB;
  `,
  `
  -- Kafka clusters (connectors/kafka/cluster.ts): the only brokers sources may
  -- read. Declared by configuration (origin 'config': PCG_KAFKA_CLUSTERS, made
  -- anew at every start of pcg serve) or by the global key (origin 'api').
  -- body: the declaration without secrets; secret: pcg's own SASL password and
  -- TLS key, sealed as sources' are; tenants: the configuration's grants, a
  -- JSON list of tenant ids or "*" (every tenant).
  CREATE TABLE kafka_cluster (
    name TEXT PRIMARY KEY,
    origin TEXT NOT NULL CHECK (origin IN ('config', 'api')),
    body TEXT NOT NULL,
    secret TEXT NOT NULL,
    tenants TEXT NOT NULL,
    revision INTEGER NOT NULL DEFAULT 1,
    ${stamp}
  ) STRICT;
  -- Grants of a cluster to a tenant by the global key (or pcg serve --demo to
  -- its tenant), and who may read a topic of a cluster pcg reads with its own
  -- credentials: 'claimed' by the first tenant to subscribe it, 'granted' to
  -- another by the global key. Neither refers to kafka_cluster: a cluster
  -- left out of the configuration for a while finds them again.
  CREATE TABLE kafka_grant (
    cluster TEXT NOT NULL,
    tenant_id TEXT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    PRIMARY KEY (cluster, tenant_id)
  ) STRICT;
  CREATE INDEX kafka_grant_tenant ON kafka_grant (tenant_id);
  CREATE TABLE kafka_topic (
    cluster TEXT NOT NULL,
    topic TEXT NOT NULL,
    tenant_id TEXT NOT NULL REFERENCES tenant (id) ON DELETE CASCADE,
    how TEXT NOT NULL CHECK (how IN ('claimed', 'granted')),
    created_at TEXT NOT NULL,
    PRIMARY KEY (cluster, topic, tenant_id)
  ) STRICT;
  CREATE INDEX kafka_topic_tenant ON kafka_topic (tenant_id);
  -- Key lineage: the key that issued a key (NULL: made by the server itself,
  -- or before this entry) and, for a tenant key, the user who held it. A key
  -- is revoked with its issuer (api/catalog/keys.ts).
  ALTER TABLE api_key ADD COLUMN issued_by_key TEXT;
  ALTER TABLE api_key ADD COLUMN issued_by_user TEXT;
  ALTER TABLE global_key ADD COLUMN issued_by_key TEXT;
  CREATE INDEX api_key_issuer ON api_key (issued_by_key);
  CREATE INDEX api_key_issuer_user ON api_key (tenant_id, issued_by_user);
  CREATE INDEX global_key_issuer ON global_key (issued_by_key);
  `,
];
