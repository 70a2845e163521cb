import type { Graphs, ServedGraph } from '../../engine/projects/index.js';
import type { Catalog, GraphVersionInfo } from '../catalog/index.js';
import { ApiError } from '../errors.js';
import type { DocumentViewer } from '../mcp/viewer.js';
import type { GraphViewRequest } from '../mcp/views.js';
import { scopeSchema, type Scope } from '../schemas.js';
import type { ProjectGrant } from './access.js';

/** Which document of a project: the newest (built if needed), a kept version, or the newest in an investigation's scope. */
export interface GraphChoice {
  /** A data version served before (kept in the catalog's version store). */
  version?: number | undefined;
  /** An investigation of the project (lower-case id): its scope's graph, replayed from the kept events. */
  investigation?: string | undefined;
  /** A busy project answers its newest kept document at once, marked stale (Graphs.current). */
  stale?: boolean;
  /** Words added to a missing version's 404, in parentheses (MCP names the tool that lists the kept ones). */
  hint?: string;
}

/**
 * The documents of a project as served, for every face: the newest or a kept
 * version (HTTP `…/graph`, its stream, MCP's `get_graph`, its views and
 * `diff_graphs`), the list of kept versions, and a view of documents computed
 * where the viewer runs (a work thread in `pcg serve`).
 */
export class ServedGraphs {
  constructor(
    private readonly catalog: Pick<Catalog, 'graphVersions' | 'investigations'>,
    private readonly graphs: Graphs,
    private readonly viewer: DocumentViewer,
  ) {}

  /** An investigation's scope, or 404. */
  scopeOf(grant: ProjectGrant, investigationId: string): Scope {
    const inv = this.catalog.investigations.get(grant.tenantId, grant.projectId, investigationId) ?? notFound('investigation not found');
    return scopeSchema.parse(inv.body.scope ?? {});
  }

  /** The document chosen; 404 for a version not kept (investigation graphs keep none) or an unknown investigation. */
  async served(grant: ProjectGrant, choice: GraphChoice = {}): Promise<ServedGraph> {
    const { version, investigation } = choice;
    if (version !== undefined) {
      if (investigation !== undefined) notFound('versions of investigation graphs are not kept; graph version not found');
      const hint = choice.hint === undefined ? '' : ` (${choice.hint})`;
      return this.graphs.version(grant.projectId, version) ?? notFound(`graph version ${version} not found${hint}`);
    }
    if (investigation === undefined) return this.graphs.current(grant.projectId, { stale: choice.stale ?? false });
    return this.graphs.inScope(grant.projectId, investigation, [this.scopeOf(grant, investigation)]);
  }

  /** The data versions whose documents are kept, oldest first. */
  versions(grant: ProjectGrant): GraphVersionInfo[] {
    return this.catalog.graphVersions.list(grant.projectId);
  }

  /** A view of documents (api/mcp/views.ts), each version as for `served` (undefined: the newest); `diff` takes two. */
  async view(grant: ProjectGrant, versions: readonly (number | undefined)[], request: GraphViewRequest, hint?: string): Promise<{ dataVersions: number[]; result: Record<string, unknown> }> {
    const served: ServedGraph[] = [];
    for (const version of versions) served.push(await this.served(grant, { version, ...(hint === undefined ? {} : { hint }) }));
    const result = await this.viewer(served, request, grant.projectId);
    return { dataVersions: served.map((s) => s.dataVersion), result };
  }
}

function notFound(message: string): never {
  throw new ApiError('not_found', message);
}
