import { createHash } from 'node:crypto';
import { documentText, type BlockSpec, type CaseReads, type Graphs, type ProjectRegistry } from '../../engine/projects/index.js';
import type { Principal } from '../auth.js';
import type { Catalog, Permission } from '../catalog/index.js';
import type { LoopShare } from '../loop-share.js';
import { PcgService, tenantCaller, type ProjectGrant, type ServiceParts } from '../service/index.js';
import type { TenantUsage } from '../usage.js';
import type { BlockAnswer, CasePage, CaseQuery, GraphAnswer, GraphViewAnswer, Identity, IngestAnswer, LiveAnswer, PcgBackend, ProjectInfo } from './backend.js';
import type { DocumentViewer } from './viewer.js';
import type { Ingest } from '../ingestion.js';
import { DEFAULT_MAX_CHARS, fitItems, type GraphViewRequest } from './views.js';

export interface LocalParts {
  catalog: Catalog;
  states: ProjectRegistry;
  graphs: Graphs;
  /** Reads of every case (pages of cases, blocks): off the loop in `pcg serve`. */
  cases: CaseReads;
  /** The use cases (api/service/): `pcg serve` hands its own, shared with the HTTP routes; made from the parts above otherwise. */
  service?: PcgService;
  /** Where `ingest_events` applies its batch: a work thread in `pcg serve` (api/ingestion.ts); the registry in process by default. */
  ingest?: Ingest;
  /** Where documents are parsed for the tools' views: a worker thread in `pcg serve`; in process by default. */
  views?: DocumentViewer;
  /** The server's default retention, shown for projects that set none (as the HTTP API answers). */
  config: ServiceParts['config'];
  /** The tenants' quotas, held by `ingest_events` as by the HTTP API (in `pcg serve`; `pcg mcp --data-dir` has none). */
  usage?: TenantUsage;
  /** Each tenant's share of the request loop (`pcg serve`): a tool call takes its turn as an HTTP route's handler does. */
  share?: LoopShare;
}

const MISSING = (projectId: string) => `project ${projectId} not found in this key's tenant`;
const KEPT_HINT = 'graph_versions lists the kept ones';

/**
 * The tools' backend in this process: an adapter from `PcgBackend` to the use
 * cases of api/service/, for one caller. `principal` is asked again on every
 * call (the HTTP transport hands the request's, `pcg mcp --data-dir` re-checks
 * its key each time, so a revoked key stops at once); access is the service's,
 * as for the HTTP routes: 403 for a project outside a scoped key or a missing
 * permission, 404 for a project not in the key's tenant.
 */
export class LocalBackend implements PcgBackend {
  private readonly service: PcgService;

  constructor(
    private readonly parts: LocalParts,
    private readonly principal: () => Principal,
    private readonly maxChars = DEFAULT_MAX_CHARS,
  ) {
    this.service = parts.service ?? new PcgService(parts);
  }

  private caller() {
    return tenantCaller(this.principal(), 'the MCP tools take a tenant API key, not the global key');
  }

  /** The key's access to one project of its tenant (the service's); the project id in lower case. */
  private grant(projectId: string, needed: Permission): ProjectGrant {
    const p = this.caller();
    return this.service.access.grant(p, p.tenantId, projectId, needed, MISSING(projectId));
  }

  /** A write's access, refused in the service's own words, as over HTTP (test/api/faces.test.ts compares them). */
  private writeGrant(projectId: string): ProjectGrant {
    const p = this.caller();
    return this.service.access.grant(p, p.tenantId, projectId, 'write');
  }

  /**
   * A call in the tenant's turn of the request loop (api/loop-share.ts), charged its synchronous part, as
   * registerRoutes does for a route's handler: a tenant's tool calls wait behind no one and hold no one up.
   */
  private async turn<T>(work: () => Promise<T>): Promise<T> {
    const share = this.parts.share;
    if (!share) return work();
    const principal = this.principal();
    return share.charged(principal.kind === 'tenant' ? principal.tenantId : '', work);
  }

  whoami(): Promise<Identity> {
    return this.turn(async () => {
      const p = this.caller();
      return { tenantId: p.tenantId, permissions: p.permissions, projectIds: p.projectIds };
    });
  }

  listProjects(): Promise<ProjectInfo[]> {
    return this.turn(async () => {
      const p = this.caller();
      return this.service.projects.visible(p, p.tenantId).map((x) => this.service.projects.view(x));
    });
  }

  graph(projectId: string, version?: number): Promise<GraphAnswer> {
    return this.turn(async () => {
      const grant = this.grant(projectId, 'read');
      const served = await this.service.graphs.served(grant, { version, hint: KEPT_HINT });
      return { projectId: grant.projectId, dataVersion: served.dataVersion, json: await documentText(served) };
    });
  }

  graphView(projectId: string, versions: readonly (number | undefined)[], request: GraphViewRequest): Promise<GraphViewAnswer> {
    return this.turn(async () => {
      const grant = this.grant(projectId, 'read');
      const { dataVersions, result } = await this.service.graphs.view(grant, versions, request, KEPT_HINT);
      return { projectId: grant.projectId, dataVersions, result };
    });
  }

  versions(projectId: string): Promise<{ dataVersion: number; createdAt: string }[]> {
    return this.turn(async () => this.service.graphs.versions(this.grant(projectId, 'read')));
  }

  cases(projectId: string, query: CaseQuery): Promise<CasePage> {
    return this.turn(async () => {
      const grant = this.grant(projectId, 'read');
      const read = await this.service.cases.read(grant, query);
      const offset = read.offset;
      // Sized for a model: as many of the page's cases as fit the answer cap, the cursor after the last one shown.
      const answer = fitItems(read.cases, this.maxChars, (cases) => ({
        projectId: grant.projectId,
        dataVersion: read.dataVersion,
        selection: read.selection,
        total: read.total,
        cases,
        nextCursor: offset + cases.length < read.total ? String(offset + cases.length) : null,
      }));
      const notes = [answer.note, read.cases.some((c) => c.eventCount > c.events.length) ? `cases show at most ${query.maxEvents} events (maxEvents); eventCount has them all` : undefined].filter(Boolean);
      return { ...answer, ...(notes.length ? { note: notes.join('; ') } : {}) } as CasePage;
    });
  }

  live(projectId: string): Promise<LiveAnswer> {
    return this.turn(async () => this.service.live.live(this.grant(projectId, 'read')));
  }

  runBlock(projectId: string, spec: BlockSpec): Promise<BlockAnswer> {
    return this.turn(async () => {
      const grant = this.grant(projectId, 'read');
      const id = grant.projectId;
      if (spec.type === 'graph') {
        // The whole project's graph (a tool's block has no scope), answered as its summary: get_graph has the rest.
        const v = await this.service.graphs.view(grant, [undefined], { kind: 'summary' });
        const dataVersion = v.dataVersions[0]!;
        return { projectId: id, dataVersion, type: 'graph', result: { dataVersion, summary: v.result, note: "the block's document is answered as its summary: get_graph (view=full or a section) has the rest" } };
      }
      const key = `mcp:${createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 12)}`;
      const { dataVersion, result } = await this.service.blocks.run(grant, spec, key);
      return { projectId: id, dataVersion, type: spec.type, result };
    });
  }

  ingest(projectId: string, events: unknown[]): Promise<IngestAnswer> {
    return this.turn(async () => {
      const grant = this.writeGrant(projectId);
      // The same use case as `POST …/events`: PCG_LIMIT_EVENTS_PER_REQUEST, the tenant's quotas, the one ingestion path.
      return { projectId: grant.projectId, ...(await this.service.events.ingest(grant, { records: events })) };
    });
  }
}
