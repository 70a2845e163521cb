import type { Logger } from 'pino';
import type { Catalog } from './catalog/index.js';
import type { Config } from './config.js';
import { ApiError } from './errors.js';
import { projectOr404 as projectIn } from './service/access.js';
import type { ProjectRegistry } from '../engine/projects/index.js';
import type { SourceCounts } from '../engine/store/project-store.js';
import type { LoopShare } from './loop-share.js';
import type { FairQueue, FairRun } from './fair-queue.js';
import type { Ingest } from './ingestion.js';
import type { TenantUsage } from './usage.js';
import type { WorkThreadStats } from './work-thread.js';

/** What every route module needs: built once by buildApp. */
export interface AppContext {
  config: Config;
  catalog: Catalog;
  /** The project service: open stores and the one ingest path. */
  states: ProjectRegistry;
  logger: Logger;
  /** Each tenant's share of the request event loop (api/loop-share.ts). */
  loopShare: LoopShare;
  /**
   * The fair queue of the work threads (api/fair-queue.ts): heavy work is handed there with its tenant, project and
   * kind, never run on the request loop.
   */
  work: FairRun;
  /** The queue behind `work`: `admit` refuses a full tenant before its body is read; its counts are metrics. */
  queue: FairQueue;
  /** The one ingestion path of requests (HTTP events, MCP's ingest_events): parsed and applied on a work thread (api/ingestion.ts). */
  ingest: Ingest;
  /** What one source brought to a project (a dataset's summary): read on a work thread, in the tenant's queue. */
  sourceCounts(tenantId: string, projectId: string, source: string): Promise<SourceCounts>;
  /** Aborted as the app starts to close, before anything it uses is: long-lived answers (graph streams) end on it. */
  closing: AbortSignal;
  /** What each tenant keeps, against its quotas (api/usage.ts). */
  usage: TenantUsage;
  /** What the work threads last reported holding, summed (none without threads): the metrics add it to the loop's. */
  threadStats?(): WorkThreadStats;
}

export function notFound(what: string): never {
  throw new ApiError('not_found', `${what} not found`);
}

/** The project, or 404 (api/service/access.ts): callers already know the key may see this tenant and project. */
export function projectOr404(ctx: AppContext, tenantId: string, projectId: string) {
  return projectIn(ctx.catalog, tenantId, projectId);
}
