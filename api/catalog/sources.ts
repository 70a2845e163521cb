import { randomUUID } from 'node:crypto';
import { groupIdOf, type RunnerStatus, type SecretBox, type SourceDefinition, type SourceDirectory, type SourceInput } from '../../connectors/kafka/index.js';
import type { Clusters } from './clusters.js';
import { now, type Db } from './database.js';

/** A source as the catalog keeps it; `input` never holds secrets (they are sealed apart). */
export interface SourceRecord {
  id: string;
  tenantId: string;
  projectId: string;
  name: string;
  input: SourceInput;
  /** Whether a SASL password or TLS key is sealed with it. */
  hasSecrets: boolean;
  paused: boolean;
  revision: number;
  createdAt: string;
  updatedAt: string;
}

export interface WorkerStatus {
  workerId: string;
  status: RunnerStatus;
  updatedAt: string;
}

interface Row {
  id: string;
  tenantId: string;
  projectId: string;
  name: string;
  body: string;
  secret: string;
  paused: number;
  revision: number;
  createdAt: string;
  updatedAt: string;
}

interface Secrets {
  password?: string;
  key?: string;
}

/** Why a declaration cannot be made on its cluster: the field at fault and what to tell the caller. */
export interface SourceRefusal {
  refused: 'cluster' | 'credentials' | 'topic';
  field: string;
  message: string;
}

const cols = 'id, tenant_id AS tenantId, project_id AS projectId, name, body, secret, paused, revision, created_at AS createdAt, updated_at AS updatedAt';

/**
 * Stream sources of projects, and what the workers running them report. Every
 * query a tenant's request makes is scoped by tenant and project; `active`
 * (all tenants) is for the supervisor, which runs each source into its own
 * project only. Implements the supervisor's SourceDirectory.
 */
export class Sources implements SourceDirectory {
  private readonly q;
  /** The reason last written for each source that may not run (by this process). */
  private readonly refusals = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly box: () => SecretBox,
    private readonly clusters: Clusters,
  ) {
    this.q = {
      insert: db.prepare('INSERT INTO source (id, tenant_id, project_id, name, body, secret, paused, revision, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, 1, ?, ?)'),
      get: db.prepare<[string, string, string], Row>(`SELECT ${cols} FROM source WHERE tenant_id = ? AND project_id = ? AND id = ?`),
      list: db.prepare<[string, string], Row>(`SELECT ${cols} FROM source WHERE tenant_id = ? AND project_id = ? ORDER BY created_at, id`),
      active: db.prepare<[], Row>(`SELECT ${cols} FROM source WHERE paused = 0 ORDER BY created_at, id`),
      count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM source WHERE project_id = ?'),
      project: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM project WHERE id = ?'),
      update: db.prepare('UPDATE source SET name = ?, body = ?, revision = revision + 1, updated_at = ? WHERE tenant_id = ? AND project_id = ? AND id = ?'),
      pause: db.prepare('UPDATE source SET paused = ?, revision = revision + 1, updated_at = ? WHERE tenant_id = ? AND project_id = ? AND id = ?'),
      delete: db.prepare('DELETE FROM source WHERE tenant_id = ? AND project_id = ? AND id = ?'),
      report: db.prepare(
        'INSERT INTO source_status (source_id, worker_id, status, updated_at) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM source WHERE id = ?) ON CONFLICT DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at',
      ),
      unreport: db.prepare('DELETE FROM source_status WHERE source_id = ? AND worker_id = ?'),
      reported: db.prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM source_status WHERE source_id = ? AND worker_id = ?'),
      statuses: db.prepare<[string], { workerId: string; status: string; updatedAt: string }>(
        'SELECT worker_id AS workerId, status, updated_at AS updatedAt FROM source_status WHERE source_id = ? ORDER BY worker_id',
      ),
    };
  }

  /**
   * Declares a source on a cluster granted to the tenant, claiming its topic on a cluster pcg reads with its own
   * credentials; refused (nothing written) when the cluster is not the tenant's, the credentials do not fit the
   * cluster, or another tenant holds the topic. The stored declaration names the cluster, never brokers.
   */
  create(tenantId: string, projectId: string, input: SourceInput): SourceRecord | SourceRefusal {
    return this.db
      .transaction((): SourceRecord | SourceRefusal => {
        const cluster = input.cluster ?? this.clusters.byBrokers(tenantId, input.brokers ?? []);
        if (!cluster || !this.clusters.isGranted(cluster, tenantId)) {
          return input.cluster
            ? { refused: 'cluster', field: 'cluster', message: `no Kafka cluster '${input.cluster}' is granted to this tenant (GET /api/${tenantId}/kafka-cluster lists those that are)` }
            : { refused: 'cluster', field: 'brokers', message: `these brokers are not those of a Kafka cluster granted to this tenant; pcg connects only to clusters the operator declared (GET /api/${tenantId}/kafka-cluster lists them)` };
        }
        if (input.brokers && input.cluster && this.clusters.byBrokers(tenantId, input.brokers) !== cluster) {
          return { refused: 'cluster', field: 'brokers', message: `these brokers are not those of the cluster '${cluster}'` };
        }
        const credentials = this.clusters.get(cluster)!.credentials;
        if (credentials === 'service' && (input.sasl || input.tls)) {
          return { refused: 'credentials', field: input.sasl ? 'sasl' : 'tls', message: `pcg reads cluster '${cluster}' with the operator's own credentials: a source brings none` };
        }
        if (credentials === 'tenant' && !input.sasl) {
          return { refused: 'credentials', field: 'sasl', message: `cluster '${cluster}' lets its ACLs decide: a source brings the tenant's SASL login` };
        }
        if (!this.clusters.mayRead(cluster, input.topic, tenantId, true)) {
          return { refused: 'topic', field: 'topic', message: `topic '${input.topic}' of cluster '${cluster}' is held by another tenant; the operator may grant it (PUT /admin/kafka-clusters/${cluster}/topics/${input.topic}/tenants/${tenantId})` };
        }
        const id = randomUUID();
        const t = now();
        const secrets: Secrets = {};
        if (input.sasl) secrets.password = input.sasl.password;
        if (input.tls) secrets.key = input.tls.key;
        const sealed = Object.keys(secrets).length ? this.box().seal(JSON.stringify(secrets)) : '';
        const { brokers: _brokers, ...declared } = input;
        this.q.insert.run(id, tenantId, projectId, input.name ?? input.topic, JSON.stringify(withoutSecrets({ ...declared, cluster })), sealed, t, t);
        return this.get(tenantId, projectId, id)!;
      })
      .immediate();
  }

  get(tenantId: string, projectId: string, id: string): SourceRecord | undefined {
    const r = this.q.get.get(tenantId, projectId, id);
    return r && record(r);
  }

  list(tenantId: string, projectId: string): SourceRecord[] {
    return this.q.list.all(tenantId, projectId).map(record);
  }

  countOf(projectId: string): number {
    return this.q.count.get(projectId)!.n;
  }

  /** A new name, format or mapping; secrets and connection settings stay. */
  update(tenantId: string, projectId: string, id: string, change: { name?: string | undefined; format?: SourceInput['format'] | undefined; mapping?: SourceInput['mapping'] | undefined }): SourceRecord | undefined {
    const old = this.get(tenantId, projectId, id);
    if (!old) return undefined;
    const input: SourceInput = { ...old.input, ...(change.format ? { format: change.format } : {}), ...(change.mapping ? { mapping: change.mapping } : {}) };
    this.q.update.run(change.name ?? old.name, JSON.stringify(input), now(), tenantId, projectId, id);
    return this.get(tenantId, projectId, id);
  }

  setPaused(tenantId: string, projectId: string, id: string, paused: boolean): SourceRecord | undefined {
    this.q.pause.run(paused ? 1 : 0, now(), tenantId, projectId, id);
    return this.get(tenantId, projectId, id);
  }

  delete(tenantId: string, projectId: string, id: string): boolean {
    return this.q.delete.run(tenantId, projectId, id).changes > 0;
  }

  /**
   * Every source to run now, with its cluster's connection and its secrets opened. A source that may not run
   * (its cluster gone or no longer granted, its topic held by another tenant, secrets that cannot be opened) is
   * left out, so a runner of it stops, and its status says why (worker 'catalog').
   */
  active(): SourceDefinition[] {
    const out: SourceDefinition[] = [];
    for (const r of this.q.active.all()) {
      const base = record(r);
      let resolved: SourceDefinition | string;
      try {
        resolved = this.resolve(base, r.secret ? (JSON.parse(this.box().open(r.secret)) as Secrets) : {});
      } catch {
        resolved = 'its secrets cannot be opened with the configured source secret key';
      }
      if (typeof resolved === 'string') {
        // Written once per reason, not at every poll.
        if (this.refusals.get(r.id) !== resolved) {
          this.refusals.set(r.id, resolved);
          this.report(r.id, 'catalog', { state: 'failed', assigned: [], partitions: [], eventsApplied: 0, deadLetters: 0, lastError: { message: resolved, at: now() }, updatedAt: now() });
        }
        continue;
      }
      if (this.refusals.delete(r.id) || this.q.reported.get(r.id, 'catalog')!.n > 0) this.report(r.id, 'catalog', null);
      out.push(resolved);
    }
    return out;
  }

  /** The runner's definition of a stored source, or why it may not run now. */
  private resolve(r: SourceRecord, secrets: Secrets): SourceDefinition | string {
    const { input } = r;
    // Declared before clusters: its brokers name a granted cluster, or it waits for the operator.
    const name = input.cluster ?? this.clusters.byBrokers(r.tenantId, input.brokers ?? []);
    if (!name) return `its brokers (${(input.brokers ?? []).join(', ')}) are not those of a Kafka cluster granted to this tenant; the operator declares one and grants it`;
    if (!this.clusters.isGranted(name, r.tenantId)) return `the Kafka cluster '${name}' is not declared or not granted to this tenant`;
    const cluster = this.clusters.connection(name)!;
    if (!this.clusters.mayRead(name, input.topic, r.tenantId, true)) return `topic '${input.topic}' of cluster '${name}' is held by another tenant`;
    const sasl = cluster.credentials === 'service' ? cluster.sasl : input.sasl && secrets.password ? { ...input.sasl, password: secrets.password } : undefined;
    if (cluster.credentials === 'tenant' && !sasl) return `cluster '${name}' lets its ACLs decide: the source needs the tenant's SASL login`;
    const own = cluster.credentials === 'tenant' && input.tls && secrets.key ? { cert: input.tls.cert, key: secrets.key } : undefined;
    const tls = own ? { ...(typeof cluster.tls === 'object' ? cluster.tls : {}), ...own } : cluster.tls;
    return {
      id: r.id,
      tenantId: r.tenantId,
      projectId: r.projectId,
      revision: `${r.revision}.${cluster.revision}`,
      cluster: name,
      brokers: cluster.brokers,
      topic: input.topic,
      groupId: groupIdOf(cluster.groupPrefix, r.tenantId, r.id, input.groupSuffix),
      format: input.format ?? 'pcg',
      ...(input.mapping ? { mapping: input.mapping } : {}),
      start: input.start ?? 'earliest',
      ...(sasl ? { sasl } : {}),
      ...(tls !== undefined ? { tls } : {}),
      // Stored by a pcg before changelogs: off.
      changelog: input.changelog ?? false,
    };
  }

  projectExists(projectId: string): boolean {
    return this.q.project.get(projectId)!.n > 0;
  }

  report(sourceId: string, workerId: string, status: RunnerStatus | null): void {
    if (status === null) this.q.unreport.run(sourceId, workerId);
    else this.q.report.run(sourceId, workerId, JSON.stringify(status), now(), sourceId);
  }

  statuses(sourceId: string): WorkerStatus[] {
    return this.q.statuses.all(sourceId).map((r) => ({ workerId: r.workerId, status: JSON.parse(r.status) as RunnerStatus, updatedAt: r.updatedAt }));
  }
}

function withoutSecrets(input: SourceInput): SourceInput {
  const { sasl, tls, ...rest } = input;
  return { ...rest, ...(sasl ? { sasl: { ...sasl, password: '' } } : {}), ...(tls ? { tls: { ...tls, key: '' } } : {}) };
}

function record(r: Row): SourceRecord {
  const body = JSON.parse(r.body) as SourceInput;
  return {
    id: r.id,
    tenantId: r.tenantId,
    projectId: r.projectId,
    name: r.name,
    input: body,
    hasSecrets: r.secret !== '',
    paused: r.paused === 1,
    revision: r.revision,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}
