import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { KeptDocument } from '../../engine/projects/index.js';
import { now, type Db } from './database.js';

export interface Project {
  id: string;
  tenantId: string;
  name: string;
  description: string;
  /** Days its raw events are kept, as set (null: never set, the server's default applies; 0: keep every event). */
  retention: number | null;
  createdAt: string;
  updatedAt: string;
}

/** A record owned by a project (dataset, investigation, notebook, block, dashboard): its kind-specific fields live in `body`. */
export interface ProjectRecord<B = Record<string, unknown>> {
  id: string;
  tenantId: string;
  projectId: string;
  parentId: string | null;
  position: number;
  name: string;
  body: B;
  createdAt: string;
  updatedAt: string;
}

export type RecordKind = 'dataset' | 'investigation' | 'notebook' | 'block' | 'dashboard';
const kinds: readonly RecordKind[] = ['dataset', 'investigation', 'notebook', 'block', 'dashboard'];

const projectCols = 'id, tenant_id AS tenantId, name, description, retention_days AS retention, created_at AS createdAt, updated_at AS updatedAt';
const recordCols = 'id, tenant_id AS tenantId, project_id AS projectId, parent_id AS parentId, position, name, body, created_at AS createdAt, updated_at AS updatedAt';

type Row = Omit<ProjectRecord, 'body'> & { body: string };
const record = (r: Row): ProjectRecord => ({ ...r, body: JSON.parse(r.body) as Record<string, unknown> });

/** One kind of project record: every query is scoped by tenant and project, so a caller can never reach across. */
export class RecordTable {
  private readonly q;
  constructor(db: Db, kind: RecordKind) {
    if (!kinds.includes(kind)) throw new Error(`unknown record kind ${kind}`);
    this.q = {
      insert: db.prepare(
        `INSERT INTO ${kind} (id, tenant_id, project_id, parent_id, position, name, body, created_at, updated_at) VALUES (?, ?, ?, ?, (SELECT coalesce(max(position), -1) + 1 FROM ${kind} WHERE project_id = ? AND parent_id IS ?), ?, ?, ?, ?)`,
      ),
      get: db.prepare<[string, string, string], Row>(`SELECT ${recordCols} FROM ${kind} WHERE tenant_id = ? AND project_id = ? AND id = ?`),
      list: db.prepare<[string, string, string | null], Row>(
        `SELECT ${recordCols} FROM ${kind} WHERE tenant_id = ? AND project_id = ? AND parent_id IS ? ORDER BY position, created_at, id`,
      ),
      // A page in list order, after the key (position, created_at, id) of the previous page's last record.
      page: db.prepare<[string, string, string | null, number, string, string, number], Row>(
        `SELECT ${recordCols} FROM ${kind} WHERE tenant_id = ? AND project_id = ? AND parent_id IS ? AND (position, created_at, id) > (?, ?, ?) ORDER BY position, created_at, id LIMIT ?`,
      ),
      update: db.prepare(`UPDATE ${kind} SET name = ?, body = ?, position = ?, updated_at = ? WHERE tenant_id = ? AND project_id = ? AND id = ?`),
      delete: db.prepare(`DELETE FROM ${kind} WHERE tenant_id = ? AND project_id = ? AND id = ?`),
      // Through the project index: the tenant's own rows are read, not every tenant's.
      countOfTenant: db.prepare<[string], number>(`SELECT count(*) FROM ${kind} WHERE project_id IN (SELECT id FROM project WHERE tenant_id = ?)`).pluck(),
      count: db.prepare<[string, string, string | null], number>(`SELECT count(*) FROM ${kind} WHERE tenant_id = ? AND project_id = ? AND parent_id IS ?`).pluck(),
    };
  }

  create(tenantId: string, projectId: string, parentId: string | null, name: string, body: object): ProjectRecord {
    const id = randomUUID();
    const t = now();
    this.q.insert.run(id, tenantId, projectId, parentId, projectId, parentId, name, JSON.stringify(body), t, t);
    return this.get(tenantId, projectId, id)!;
  }
  get(tenantId: string, projectId: string, id: string): ProjectRecord | undefined {
    const r = this.q.get.get(tenantId, projectId, id);
    return r && record(r);
  }
  list(tenantId: string, projectId: string, parentId: string | null = null): ProjectRecord[] {
    return this.q.list.all(tenantId, projectId, parentId).map(record);
  }
  /**
   * Up to `limit` records in list order after the sort key `after` ([position, createdAt, id] of a record;
   * omitted: from the first): one index seek, however deep the page.
   */
  page(tenantId: string, projectId: string, parentId: string | null, after: readonly (string | number)[] | undefined, limit: number): ProjectRecord[] {
    const [position, createdAt, id] = (after ?? [-1, '', '']) as [number, string, string];
    return this.q.page.all(tenantId, projectId, parentId, position, createdAt, id, limit).map(record);
  }
  /** Records of this kind in a tenant's projects. */
  countOfTenant(tenantId: string): number {
    return this.q.countOfTenant.get(tenantId)!;
  }
  /** Records of this kind under one parent (a notebook's blocks), or at the top of a project. */
  count(tenantId: string, projectId: string, parentId: string | null = null): number {
    return this.q.count.get(tenantId, projectId, parentId)!;
  }
  update(tenantId: string, projectId: string, id: string, change: { name?: string | undefined; body?: object | undefined; position?: number | undefined }): ProjectRecord | undefined {
    const old = this.get(tenantId, projectId, id);
    if (!old) return undefined;
    this.q.update.run(change.name ?? old.name, JSON.stringify(change.body ?? old.body), change.position ?? old.position, now(), tenantId, projectId, id);
    return this.get(tenantId, projectId, id);
  }
  delete(tenantId: string, projectId: string, id: string): boolean {
    return this.q.delete.run(tenantId, projectId, id).changes > 0;
  }
}

export class Projects {
  private readonly q;
  constructor(db: Db) {
    this.q = {
      insert: db.prepare('INSERT INTO project (id, tenant_id, name, description, retention_days, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      get: db.prepare<[string, string], Project>(`SELECT ${projectCols} FROM project WHERE tenant_id = ? AND id = ?`),
      list: db.prepare<[string], Project>(`SELECT ${projectCols} FROM project WHERE tenant_id = ? ORDER BY created_at, id`),
      ofTenant: db.prepare<[string], { id: string }>('SELECT id FROM project WHERE tenant_id = ?'),
      tenantOf: db.prepare<[string], { tenantId: string }>('SELECT tenant_id AS tenantId FROM project WHERE id = ?'),
      count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM project WHERE tenant_id = ?'),
      update: db.prepare('UPDATE project SET name = ?, description = ?, retention_days = ?, updated_at = ? WHERE tenant_id = ? AND id = ?'),
      retention: db.prepare<[], { id: string; retention: number | null }>('SELECT id, retention_days AS retention FROM project ORDER BY created_at, id'),
      delete: db.prepare('DELETE FROM project WHERE tenant_id = ? AND id = ?'),
    };
  }
  create(tenantId: string, input: { name: string; description?: string | undefined; retention?: number | null | undefined }): Project {
    const id = randomUUID();
    const t = now();
    this.q.insert.run(id, tenantId, input.name, input.description ?? '', input.retention ?? null, t, t);
    return this.get(tenantId, id)!;
  }
  get(tenantId: string, id: string): Project | undefined {
    return this.q.get.get(tenantId, id);
  }
  /** The tenant a project belongs to (work on the threads is queued per tenant). */
  tenantOf(id: string): string | undefined {
    return this.q.tenantOf.get(id)?.tenantId;
  }
  list(tenantId: string): Project[] {
    return this.q.list.all(tenantId);
  }
  countOf(tenantId: string): number {
    return this.q.count.get(tenantId)!.n;
  }
  idsOfTenant(tenantId: string): string[] {
    return this.q.ofTenant.all(tenantId).map((r) => r.id);
  }
  update(tenantId: string, id: string, input: { name?: string | undefined; description?: string | undefined; retention?: number | null | undefined }): Project | undefined {
    const old = this.get(tenantId, id);
    if (!old) return undefined;
    this.q.update.run(input.name ?? old.name, input.description ?? old.description, input.retention === undefined ? old.retention : input.retention, now(), tenantId, id);
    return this.get(tenantId, id);
  }
  delete(tenantId: string, id: string): boolean {
    return this.q.delete.run(tenantId, id).changes > 0;
  }
  /** Every project of every tenant with its retention setting (the retention pass walks them). */
  retentionSettings(): { id: string; retention: number | null }[] {
    return this.q.retention.all();
  }
}

export interface GraphVersionInfo {
  dataVersion: number;
  createdAt: string;
}

/** Served documents kept per project by default: the newest 500 ... */
export const DEFAULT_KEEP_VERSIONS = 500;
/** ... within 256 MiB per project. */
export const DEFAULT_VERSION_BYTES = 256 * 1024 * 1024;

/** A kept version's stored size: its compressed bytes (a row kept before compression: its text's), read from the row header. */
const STORED_BYTES = 'coalesce(octet_length(packed), octet_length(document))';

/**
 * Every graph document served, by data_version, so `?version=V` answers the
 * same bytes again; kept gzip-compressed (documents repeat their names
 * endlessly: 4 MB packs to 90 KB). A live project serves a new version every
 * few seconds, so only the newest are retained per project: at most `keep` of
 * them and at most `maxBytes` stored bytes together, the oldest pruned first
 * beyond either. A document whose compressed form alone is larger than
 * `maxBytes` is not kept at all (it was served; `?version=` of it is then 404).
 */
export class GraphVersions {
  private readonly q;
  constructor(
    db: Db,
    readonly keep = DEFAULT_KEEP_VERSIONS,
    readonly maxBytes = DEFAULT_VERSION_BYTES,
  ) {
    this.q = {
      // A project deleted while its document was being built keeps nothing (and breaks no foreign key).
      put: db.prepare(
        "INSERT OR IGNORE INTO graph_version (project_id, data_version, document, packed, created_at) SELECT @project, @version, '', @packed, @at WHERE EXISTS (SELECT 1 FROM project WHERE id = @project)",
      ),
      prune: db.prepare(
        'DELETE FROM graph_version WHERE project_id = ? AND data_version <= (SELECT data_version FROM graph_version WHERE project_id = ? ORDER BY data_version DESC LIMIT 1 OFFSET ?)',
      ),
      // Newest first, a running total of the documents' sizes (octet_length reads the size from the row header, not the text):
      // the first version past the budget goes, with every older one.
      pruneBytes: db.prepare(
        `DELETE FROM graph_version WHERE project_id = @project AND data_version <= (
           SELECT data_version FROM (
             SELECT data_version, sum(${STORED_BYTES}) OVER (ORDER BY data_version DESC ROWS UNBOUNDED PRECEDING) AS total
             FROM graph_version WHERE project_id = @project)
           WHERE total > @budget ORDER BY data_version DESC LIMIT 1)`,
      ),
      bytes: db.prepare<[string], { n: number | null }>(`SELECT sum(${STORED_BYTES}) AS n FROM graph_version WHERE project_id = ?`),
      get: db.prepare<[string, number], { document: string; packed: Buffer | null }>('SELECT document, packed FROM graph_version WHERE project_id = ? AND data_version = ?'),
      latest: db.prepare<[string], { dataVersion: number; document: string; packed: Buffer | null }>(
        'SELECT data_version AS dataVersion, document, packed FROM graph_version WHERE project_id = ? ORDER BY data_version DESC LIMIT 1',
      ),
      list: db.prepare<[string], GraphVersionInfo>(
        'SELECT data_version AS dataVersion, created_at AS createdAt FROM graph_version WHERE project_id = ? ORDER BY data_version',
      ),
    };
  }
  /** Keeps a served document (compressed: `gzip` is its JSON text gzipped); false when it alone is larger than the byte budget, or its project is gone (then it is not kept). */
  put(projectId: string, dataVersion: number, json: string, gzip: Uint8Array = gzipSync(json)): boolean {
    if (gzip.byteLength > this.maxBytes) return false;
    if (this.q.put.run({ project: projectId, version: dataVersion, packed: gzip, at: now() }).changes) {
      this.q.prune.run(projectId, projectId, this.keep);
      this.q.pruneBytes.run({ project: projectId, budget: this.maxBytes });
      return true;
    }
    // Kept before (a concurrent build of the same version), or the project is gone.
    return this.q.get.get(projectId, dataVersion) !== undefined;
  }
  get(projectId: string, dataVersion: number): KeptDocument | undefined {
    const row = this.q.get.get(projectId, dataVersion);
    if (!row) return undefined;
    return row.packed ? { gzip: row.packed } : { json: row.document };
  }
  /** The newest kept document of a project (served, marked stale, while a newer one builds). */
  latest(projectId: string): ({ dataVersion: number } & KeptDocument) | undefined {
    const row = this.q.latest.get(projectId);
    if (!row) return undefined;
    return row.packed ? { dataVersion: row.dataVersion, gzip: row.packed } : { dataVersion: row.dataVersion, json: row.document };
  }
  list(projectId: string): GraphVersionInfo[] {
    return this.q.list.all(projectId);
  }
  /** Bytes of the documents kept for a project. */
  bytes(projectId: string): number {
    return this.q.bytes.get(projectId)?.n ?? 0;
  }
}
