import { randomUUID } from 'node:crypto';
import { sourceInputSchema, type RunnerStatus, type SecretBox, type SourceDefinition, type SourceDirectory, type SourceInput } from '../../connectors/kafka/index.js';
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

const cols = 'id, tenant_id AS tenantId, project_id AS projectId, name, body, secret, paused, revision, created_at AS createdAt, updated_at AS updatedAt';

/**
 * Stream sources of projects, and what the workers running them report. Every
 * query a tenant's request makes is scoped by tenant and project; `active`
 * (all tenants) is for the supervisor, which runs each source into its own
 * project only. Implements the supervisor's SourceDirectory.
 */
export class Sources implements SourceDirectory {
  private readonly q;

  constructor(
    db: Db,
    private readonly box: () => SecretBox,
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
      statuses: db.prepare<[string], { workerId: string; status: string; updatedAt: string }>(
        'SELECT worker_id AS workerId, status, updated_at AS updatedAt FROM source_status WHERE source_id = ? ORDER BY worker_id',
      ),
    };
  }

  create(tenantId: string, projectId: string, input: SourceInput): SourceRecord {
    const id = randomUUID();
    const t = now();
    const secrets: Secrets = {};
    if (input.sasl) secrets.password = input.sasl.password;
    if (typeof input.tls === 'object' && input.tls.key) secrets.key = input.tls.key;
    const sealed = Object.keys(secrets).length ? this.box().seal(JSON.stringify(secrets)) : '';
    this.q.insert.run(id, tenantId, projectId, input.name ?? input.topic, JSON.stringify(withoutSecrets(input)), sealed, t, t);
    return this.get(tenantId, projectId, id)!;
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

  /** Every source to run now, with its secrets opened: a source whose secrets cannot be opened (another key) is left out and reported. */
  active(): SourceDefinition[] {
    const out: SourceDefinition[] = [];
    for (const r of this.q.active.all()) {
      const base = record(r);
      try {
        out.push(definitionOf(base, r.secret ? (JSON.parse(this.box().open(r.secret)) as Secrets) : {}));
      } catch {
        this.report(r.id, 'catalog', {
          state: 'failed',
          assigned: [],
          partitions: [],
          eventsApplied: 0,
          deadLetters: 0,
          lastError: { message: 'its secrets cannot be opened with the configured source secret key', at: now() },
          updatedAt: now(),
        });
      }
    }
    return out;
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
  return {
    ...rest,
    ...(sasl ? { sasl: { ...sasl, password: '' } } : {}),
    ...(tls === undefined ? {} : { tls: typeof tls === 'boolean' ? tls : { ...tls, ...(tls.key ? { key: '' } : {}) } }),
  };
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

function definitionOf(r: SourceRecord, secrets: Secrets): SourceDefinition {
  const input = { ...r.input };
  if (input.sasl) input.sasl = { ...input.sasl, password: secrets.password ?? '' };
  if (typeof input.tls === 'object' && secrets.key) input.tls = { ...input.tls, key: secrets.key };
  // Read back through the schema: a declaration stored by an older pcg gets today's defaults.
  const parsed = sourceInputSchema.parse({ ...input, ...(input.sasl && !input.sasl.password ? { sasl: undefined } : {}) });
  return { ...parsed, id: r.id, tenantId: r.tenantId, projectId: r.projectId, revision: `${r.revision}` };
}
