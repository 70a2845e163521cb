import type { CaseReads, Graphs, ProjectRegistry } from '../../engine/projects/index.js';
import type { Catalog } from '../catalog/index.js';
import type { Config } from '../config.js';
import { viewInProcess, type DocumentViewer } from '../mcp/viewer.js';
import { ProjectAccess } from './access.js';
import { BlockRuns } from './blocks.js';
import { CasePages } from './cases.js';
import { ServedGraphs } from './graphs.js';
import { LiveStates } from './live.js';
import { ProjectDirectory } from './projects.js';

export { authorize, lowerGuid, lowerGuids, projectOf, projectOr404, tenantCaller, type ProjectGrant } from './access.js';
export type { CaseEvent, CaseQuery, CaseRead, CaseSelection } from './cases.js';
export type { GraphChoice } from './graphs.js';
export type { LiveAnswer } from './live.js';
export type { ProjectView } from './projects.js';

export interface ServiceParts {
  catalog: Catalog;
  states: ProjectRegistry;
  graphs: Graphs;
  /** Reads of every case (pages of cases, live state, blocks): off the loop in `pcg serve`. */
  cases: CaseReads;
  /** Where documents are parsed for views: a work thread in `pcg serve`; in process by default. */
  views?: DocumentViewer | undefined;
  config: Pick<Config, 'retentionDays'>;
}

/**
 * The read use cases of pcg, each written once, below every face: the HTTP
 * routes (api/routes/), MCP's tools (api/mcp/local.ts) and, through HTTP, the
 * web page call these. Framework-free: errors are ApiErrors with the HTTP API's
 * codes, and each face words its answers. One per process in `pcg serve`
 * (built by buildApp), so caches (the live state's) serve every face.
 */
export class PcgService {
  readonly access: ProjectAccess;
  readonly projects: ProjectDirectory;
  readonly graphs: ServedGraphs;
  readonly cases: CasePages;
  readonly live: LiveStates;
  readonly blocks: BlockRuns;

  constructor(parts: ServiceParts) {
    this.access = new ProjectAccess(parts.catalog);
    this.projects = new ProjectDirectory(parts.catalog, parts.states, parts.config);
    this.graphs = new ServedGraphs(parts.catalog, parts.graphs, parts.views ?? viewInProcess);
    this.cases = new CasePages(this.graphs, parts.cases);
    this.live = new LiveStates(parts.states, parts.cases);
    this.blocks = new BlockRuns(parts.graphs, parts.cases);
  }
}
