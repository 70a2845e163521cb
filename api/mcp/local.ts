import { createHash } from 'node:crypto';
import { documentText, runBlock, type BlockSpec, type CasePageAnswer, type CaseReads, type Graphs, type LiveState, type ProjectRegistry, type ServedGraph } from '../../engine/projects/index.js';
import type { Auth, Principal } from '../auth.js';
import type { Catalog, Permission } from '../catalog/index.js';
import { retentionDaysOf, type Config } from '../config.js';
import { ApiError } from '../errors.js';
import type { TenantUsage } from '../usage.js';
import type { BlockAnswer, CasePage, CaseQuery, GraphAnswer, GraphViewAnswer, Identity, IngestAnswer, LiveAnswer, PcgBackend, ProjectInfo } from './backend.js';
import { viewInProcess, type DocumentViewer } from './viewer.js';
import type { Ingest } from '../ingestion.js';
import { tooManyEvents } from '../ingest-body.js';
import { DEFAULT_MAX_CHARS, fitItems, offsetOf, type GraphViewRequest } from './views.js';

export interface LocalParts {
  catalog: Catalog;
  states: ProjectRegistry;
  graphs: Graphs;
  /** Reads of every case (pages of cases, blocks): off the loop in `pcg serve`. */
  cases: CaseReads;
  /** Where `ingest_events` applies its batch: a work thread in `pcg serve` (api/ingestion.ts); the registry in process by default. */
  ingest?: Ingest;
  /** Where documents are parsed for the tools' views: a worker thread in `pcg serve`; in process by default. */
  views?: DocumentViewer;
  auth: Auth;
  /** The server's default retention, shown for projects that set none (as the HTTP API answers). */
  config: Pick<Config, 'retentionDays' | 'limitEventsPerRequest'>;
  /** The tenants' quotas, held by `ingest_events` as by the HTTP API (in `pcg serve`; `pcg mcp --data-dir` has none). */
  usage?: TenantUsage;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** GUIDs name the same project in any letter case (as in the HTTP API's paths). */
const lower = (id: string) => (GUID.test(id) ? id.toLowerCase() : id);

/**
 * The tools' backend in this process: the data directory's catalog, project
 * registry and served graphs, for one caller. `principal` is asked again on
 * every call (the HTTP transport hands the request's, `pcg mcp --data-dir`
 * re-checks its key each time, so a revoked key stops at once); access is
 * Auth.authorize's, as for the HTTP routes: 403 for a project outside a scoped
 * key or a missing permission, 404 for a project not in the key's tenant.
 */
export class LocalBackend implements PcgBackend {
  constructor(
    private readonly parts: LocalParts,
    private readonly principal: () => Principal,
    private readonly maxChars = DEFAULT_MAX_CHARS,
  ) {}

  private caller(): Extract<Principal, { kind: 'tenant' }> {
    const p = this.principal();
    if (p.kind !== 'tenant') throw new ApiError('forbidden', 'the MCP tools take a tenant API key, not the global key');
    return p;
  }

  /** The key's access to one project of its tenant, as the HTTP routes check it; the project id in lower case. */
  private project(projectId: string, needed: Permission): string {
    const p = this.caller();
    const id = lower(projectId);
    this.parts.auth.authorize(p, p.tenantId, needed, id);
    if (!this.parts.catalog.projects.get(p.tenantId, id)) throw new ApiError('not_found', `project ${projectId} not found in this key's tenant`);
    return id;
  }

  async whoami(): Promise<Identity> {
    const p = this.caller();
    return { tenantId: p.tenantId, permissions: p.permissions, projectIds: p.projectIds };
  }

  async listProjects(): Promise<ProjectInfo[]> {
    const p = this.caller();
    this.parts.auth.authorize(p, p.tenantId, 'read');
    return this.parts.catalog.projects
      .list(p.tenantId)
      .filter((x) => !p.projectIds || p.projectIds.includes(x.id))
      .map(({ retention, ...x }) => ({ ...x, retentionDays: retentionDaysOf(this.parts.config, retention), dataVersion: this.parts.states.state(x.id).dataVersion }));
  }

  private async served(id: string, version: number | undefined): Promise<ServedGraph> {
    if (version === undefined) return this.parts.graphs.current(id);
    const kept = this.parts.graphs.version(id, version);
    if (!kept) throw new ApiError('not_found', `graph version ${version} not found (graph_versions lists the kept ones)`);
    return kept;
  }

  async graph(projectId: string, version?: number): Promise<GraphAnswer> {
    const id = this.project(projectId, 'read');
    const served = await this.served(id, version);
    return { projectId: id, dataVersion: served.dataVersion, json: await documentText(served) };
  }

  async graphView(projectId: string, versions: readonly (number | undefined)[], request: GraphViewRequest): Promise<GraphViewAnswer> {
    const id = this.project(projectId, 'read');
    const served: ServedGraph[] = [];
    for (const v of versions) served.push(await this.served(id, v));
    const result = await (this.parts.views ?? viewInProcess)(served, request, id);
    return { projectId: id, dataVersions: served.map((s) => s.dataVersion), result };
  }

  async versions(projectId: string): Promise<{ dataVersion: number; createdAt: string }[]> {
    const id = this.project(projectId, 'read');
    return this.parts.catalog.graphVersions.list(id);
  }

  async cases(projectId: string, query: CaseQuery): Promise<CasePage> {
    const id = this.project(projectId, 'read');
    const chosen = [query.variant, query.path, query.outcome].filter((x) => x !== undefined).length;
    if (chosen !== 1) throw new ApiError('validation_failed', 'give exactly one of variant, path or outcome');
    const offset = offsetOf(query.cursor);
    let selection: CasePage['selection'];
    let select: { path: string[] } | { endActivity: string };
    if (query.outcome !== undefined) {
      const end = (await this.graphView(id, [undefined], { kind: 'outcome', id: query.outcome })).result.endActivity as string;
      selection = {
        outcome: query.outcome,
        endActivity: end,
        rule: `cases whose last event is '${end}'; the document splits them by kind (success, failure, open, other) from counts, which are not kept per case`,
      };
      select = { endActivity: end };
    } else {
      let path = query.path;
      if (query.variant !== undefined) {
        const v = (await this.graphView(id, [undefined], { kind: 'variant', id: query.variant })).result as { id: string; path: string[] };
        path = v.path;
        selection = { variant: v.id, path, rule: 'cases whose activity sequence is exactly the path' };
      } else selection = { path: path!, rule: 'cases whose activity sequence is exactly the path' };
      select = { path: path! };
    }
    // Every case is read (off the loop in `pcg serve`): every match counted, only the asked page kept.
    const read = await this.parts.cases.run(id, [], { type: 'cases', ...select, offset, limit: query.limit, maxEvents: query.maxEvents });
    const { total, cases: view } = read.result as unknown as CasePageAnswer;
    const answer = fitItems(view as CasePage['cases'], this.maxChars, (cases) => ({
      projectId: id,
      dataVersion: read.dataVersion,
      selection,
      total,
      cases,
      nextCursor: offset + cases.length < total ? String(offset + cases.length) : null,
    }));
    const notes = [answer.note, view.some((c) => c.eventCount > c.events.length) ? `cases show at most ${query.maxEvents} events (maxEvents); eventCount has them all` : undefined].filter(Boolean);
    return { ...answer, ...(notes.length ? { note: notes.join('; ') } : {}) } as CasePage;
  }

  async live(projectId: string): Promise<LiveAnswer> {
    const id = this.project(projectId, 'read');
    // Every kept case is read (off the loop in `pcg serve`), as for the HTTP API's …/live.
    const { dataVersion, result } = await this.parts.cases.run(id, [], { type: 'live' });
    return { projectId: id, dataVersion, ...(result as unknown as LiveState) };
  }

  async runBlock(projectId: string, spec: BlockSpec): Promise<BlockAnswer> {
    const id = this.project(projectId, 'read');
    if (spec.type === 'graph') {
      // The whole project's graph (a tool's block has no scope), answered as its summary: get_graph has the rest.
      const v = await this.graphView(id, [undefined], { kind: 'summary' });
      const dataVersion = v.dataVersions[0]!;
      return { projectId: id, dataVersion, type: 'graph', result: { dataVersion, summary: v.result, note: "the block's document is answered as its summary: get_graph (view=full or a section) has the rest" } };
    }
    const key = `mcp:${createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 12)}`;
    const { dataVersion, result } = await runBlock(spec, id, key, [], this.parts.graphs, this.parts.cases);
    return { projectId: id, dataVersion, type: spec.type, result };
  }

  async ingest(projectId: string, events: unknown[]): Promise<IngestAnswer> {
    const id = this.project(projectId, 'write');
    const tenantId = this.caller().tenantId;
    // The same cap as an HTTP batch (PCG_LIMIT_EVENTS_PER_REQUEST); it was a literal 10,000 here.
    if (events.length > this.parts.config.limitEventsPerRequest) throw tooManyEvents(events.length, this.parts.config.limitEventsPerRequest);
    // The tenant's quotas are checked by the ingestion (api/ingestion.ts), or here when the tool applies directly.
    let applied;
    if (this.parts.ingest) applied = await this.parts.ingest(tenantId, id, { records: events });
    else {
      await this.parts.usage?.check(tenantId, events.length);
      applied = this.parts.states.ingest(id, { records: events, rejected: [] });
    }
    const { applied: _applied, ...result } = applied;
    return { projectId: id, ...result };
  }
}
