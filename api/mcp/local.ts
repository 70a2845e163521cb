import { createHash } from 'node:crypto';
import { toWire, type Event } from '../../engine/event.js';
import type { GraphDocument } from '../../engine/document/types.js';
import { documentText, runBlock, type BlockSpec, type Graphs, type ProjectRegistry, type ServedGraph } from '../../engine/projects/index.js';
import type { Auth, Principal } from '../auth.js';
import type { Catalog, Permission } from '../catalog/index.js';
import { retentionDaysOf, type Config } from '../config.js';
import { ApiError } from '../errors.js';
import type { BlockAnswer, CaseEvent, CasePage, CaseQuery, GraphAnswer, Identity, IngestAnswer, PcgBackend, ProjectInfo } from './backend.js';
import { DEFAULT_MAX_CHARS, fitItems, offsetOf } from './views.js';

export interface LocalParts {
  catalog: Catalog;
  states: ProjectRegistry;
  graphs: Graphs;
  auth: Auth;
  /** The server's default retention, shown for projects that set none (as the HTTP API answers). */
  config: Pick<Config, 'retentionDays'>;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** GUIDs name the same project in any letter case (as in the HTTP API's paths). */
const lower = (id: string) => (GUID.test(id) ? id.toLowerCase() : id);

const answerOf = async (projectId: string, served: ServedGraph): Promise<GraphAnswer> => {
  const json = await documentText(served);
  return { projectId, dataVersion: served.dataVersion, document: JSON.parse(json) as GraphDocument, json };
};

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

  async graph(projectId: string, version?: number): Promise<GraphAnswer> {
    const id = this.project(projectId, 'read');
    if (version === undefined) return answerOf(id, await this.parts.graphs.current(id));
    const kept = this.parts.graphs.version(id, version);
    if (!kept) throw new ApiError('not_found', `graph version ${version} not found (graph_versions lists the kept ones)`);
    return answerOf(id, kept);
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
    let keep: (trace: readonly Event[]) => boolean;
    if (query.outcome !== undefined) {
      const doc = (await this.graph(id)).document;
      const outcome = doc.outcomes.find((o) => o.id === query.outcome);
      const end = outcome?.end_activity ?? (doc.outcomes.some((o) => o.end_activity === query.outcome) ? query.outcome : undefined);
      if (end === undefined) throw new ApiError('not_found', `no outcome '${query.outcome}'; outcomes: ${doc.outcomes.map((o) => o.id).join(', ') || 'none'}`);
      selection = {
        outcome: query.outcome,
        endActivity: end,
        rule: `cases whose last event is '${end}'; the document splits them by kind (success, failure, open, other) from counts, which are not kept per case`,
      };
      keep = (t) => t[t.length - 1]!.activity === end;
    } else {
      let path = query.path;
      if (query.variant !== undefined) {
        const doc = (await this.graph(id)).document;
        const v = doc.variants.find((x) => x.id === query.variant);
        if (!v) throw new ApiError('not_found', `no variant '${query.variant}' in the newest document (variants under 1% of cases are left out: pass path instead)`);
        path = v.path.map(String);
        selection = { variant: v.id, path, rule: 'cases whose activity sequence is exactly the path' };
      } else selection = { path: path!, rule: 'cases whose activity sequence is exactly the path' };
      const want = path!;
      keep = (t) => t.length === want.length && t.every((e, i) => e.activity === want[i]);
    }
    const state = this.parts.states.state(id);
    const dataVersion = state.dataVersion;
    // One pass: every match counted, only the asked page kept.
    const page: Event[][] = [];
    let total = 0;
    for (const trace of state.traces()) {
      if (!keep(trace)) continue;
      if (total >= offset && page.length < query.limit) page.push(trace);
      total += 1;
    }
    const view = page.map((t) => ({ caseId: t[0]!.caseId, eventCount: t.length, events: t.slice(0, query.maxEvents).map(caseEvent) }));
    const answer = fitItems(view, this.maxChars, (cases) => ({
      projectId: id,
      dataVersion,
      selection,
      total,
      cases,
      nextCursor: offset + cases.length < total ? String(offset + cases.length) : null,
    }));
    const notes = [answer.note, view.some((c) => c.eventCount > c.events.length) ? `cases show at most ${query.maxEvents} events (maxEvents); eventCount has them all` : undefined].filter(Boolean);
    return { ...answer, ...(notes.length ? { note: notes.join('; ') } : {}) } as CasePage;
  }

  async runBlock(projectId: string, spec: BlockSpec): Promise<BlockAnswer> {
    const id = this.project(projectId, 'read');
    const state = this.parts.states.state(id);
    const dataVersion = state.dataVersion;
    const key = `mcp:${createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 12)}`;
    const result = await runBlock(spec, state, id, key, [], this.parts.graphs);
    return { projectId: id, dataVersion, type: spec.type, result };
  }

  async ingest(projectId: string, events: unknown[]): Promise<IngestAnswer> {
    const id = this.project(projectId, 'write');
    const { applied: _applied, ...result } = this.parts.states.ingest(id, { records: events, rejected: [] });
    return { projectId: id, ...result };
  }
}

function caseEvent(e: Event): CaseEvent {
  const { caseId: _caseId, ...rest } = toWire(e);
  return rest as CaseEvent;
}
