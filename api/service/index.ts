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
import { DatasetFiles, type UploadLog } from './datasets.js';
import { EventIngestion } from './events.js';
import { SourceSubscriptions } from './sources.js';
import type { DatasetImports } from '../datasets.js';
import type { Ingest } from '../ingestion.js';
import type { TenantUsage } from '../usage.js';
import { ApiError } from '../errors.js';

export { authorize, lowerGuid, lowerGuids, projectOf, projectOr404, tenantCaller, type ProjectGrant } from './access.js';
export type { CaseEvent, CaseQuery, CaseRead, CaseSelection } from './cases.js';
export type { GraphChoice } from './graphs.js';
export type { LiveAnswer } from './live.js';
export type { ProjectInput, ProjectView } from './projects.js';
export type { DatasetView, UploadOptions } from './datasets.js';
export type { EventInput, IngestAnswer } from './events.js';
export type { DeadLetterView, SourceChange, SourceView } from './sources.js';

export interface ServiceParts {
  catalog: Catalog;
  states: ProjectRegistry;
  graphs: Graphs;
  /** Reads of every case (pages of cases, live state, blocks): off the loop in `pcg serve`. */
  cases: CaseReads;
  /** Where documents are parsed for views: a work thread in `pcg serve`; in process by default. */
  views?: DocumentViewer | undefined;
  config: Pick<Config, 'retentionDays' | 'limitProjectsPerTenant' | 'limitEventsPerRequest' | 'limitSourcesPerProject' | 'uploadLimitBytes'>;
  /** Where a batch of events is applied: the fair queue and a work thread in `pcg serve` (api/ingestion.ts); the registry in process without. */
  ingest?: Ingest | undefined;
  /** The tenants' quotas (`pcg serve`; `pcg mcp --data-dir` has none). */
  usage?: TenantUsage | undefined;
  /** Dataset imports (`pcg serve`): without, the dataset use cases answer 503. */
  datasets?: DatasetImports | undefined;
  /** Told when a source is declared, changed or deleted: the source thread's supervisor reconciles at once. */
  sourcesChanged?: (() => void) | undefined;
  /** Where a failed upload's rollback failure is logged. */
  log?: UploadLog | undefined;
}

/**
 * The use cases of pcg, reads and writes, each written once, below every face:
 * the HTTP routes (api/routes/), MCP's tools (api/mcp/local.ts) and, through
 * HTTP, the web page call these. Framework-free: errors are ApiErrors with the HTTP API's
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
  readonly events: EventIngestion;
  readonly sources: SourceSubscriptions;
  private readonly datasetFiles: DatasetFiles | undefined;

  constructor(parts: ServiceParts) {
    this.access = new ProjectAccess(parts.catalog);
    this.projects = new ProjectDirectory(parts.catalog, parts.states, parts.config);
    this.graphs = new ServedGraphs(parts.catalog, parts.graphs, parts.views ?? viewInProcess);
    this.cases = new CasePages(this.graphs, parts.cases);
    this.live = new LiveStates(parts.states, parts.cases);
    this.blocks = new BlockRuns(parts.graphs, parts.cases);
    this.events = new EventIngestion(parts.states, parts.config, parts.ingest, parts.usage);
    this.sources = new SourceSubscriptions(parts.catalog, parts.states, parts.config, parts.sourcesChanged);
    this.datasetFiles = parts.datasets && new DatasetFiles(parts.catalog, parts.datasets, parts.config, parts.usage, parts.log ?? { error: () => undefined });
  }

  /** Uploads, lists and deletions of datasets: where imports run (`pcg serve`); 503 elsewhere. */
  get datasets(): DatasetFiles {
    return this.datasetFiles ?? unavailable();
  }
}

function unavailable(): never {
  throw new ApiError('unavailable', 'datasets are imported by a running service (pcg serve)');
}
