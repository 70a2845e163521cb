import type { BuiltDocument, CaseAnswer, CaseReader, DocumentBuilder } from '../engine/projects/index.js';
import { DEFAULT_EVENT_LIMITS } from '../engine/index.js';
import { ApiError } from './errors.js';
import { FairQueue, type WorkKind } from './fair-queue.js';
import type { DocumentViewer } from './mcp/viewer.js';
import { viewTask } from './mcp/viewer.js';
import type { WorkOutcome, WorkTask } from './work-thread.js';
import { unwrap } from './thread-errors.js';
import { WorkThreads } from './work-threads.js';

export interface DocumentPool {
  build: DocumentBuilder;
  /** Queries over every case of a project (blocks, pages of cases), read from its files on a thread. */
  read: CaseReader;
  /** The MCP tools' views of documents (api/mcp/viewer.ts), parsed on a thread. */
  view: DocumentViewer;
  close(): Promise<void>;
}

export interface DocumentPoolOptions {
  /** The work threads, or how many to start for this pool alone. */
  threads: number | WorkThreads;
  /** A build, query or view running longer than this is aborted: 503 `unavailable`. */
  budgetMs: number;
  /** The fair queue its work waits in (the app's, shared with ingestion); by default one of its own. */
  queue?: FairQueue;
  /** The tenant a project belongs to, so that its work waits in that tenant's queue ('' when unknown). */
  tenantOf?: (projectId: string) => string;
}

/**
 * Document builds on the work threads: their cost grows with a project's
 * activities and variants, and on the one event loop a tenant's large project
 * held every other tenant's requests for as long as its build took. A
 * project's full graph whose counted state is not in memory is snapshotted
 * there too, from its files. Every task waits in the fair queue
 * (api/fair-queue.ts) in its tenant's lane for the project and kind, so one
 * tenant's builds never take every thread while another tenant waits; a task
 * past its budget (counted from when it starts) is aborted and answered 503
 * `unavailable` (the next request tries again). Queries that read every
 * case's events (notebook blocks, the MCP tools' pages of cases) run on the
 * same threads under the same budget, and so do the MCP tools' views of
 * documents (each parses the whole document).
 */
export function documentPool(options: DocumentPoolOptions): DocumentPool {
  const own = typeof options.threads === 'number';
  const threads =
    typeof options.threads === 'number'
      ? new WorkThreads(options.threads, { limits: DEFAULT_EVENT_LIMITS, cachedCases: 100_000, cachedCaseTextBytes: 64 * 2 ** 20 })
      : options.threads;
  const queue = options.queue ?? new FairQueue({ slots: threads.size, perTenant: 1_000_000 });
  const tenantOf = options.tenantOf ?? (() => '');
  const run = <T>(projectId: string | undefined, kind: WorkKind, task: WorkTask, what: string): Promise<T> =>
    queue.run(tenantOf(projectId ?? ''), projectId ?? '', kind, async (slot, signal) => {
      // The budget counts from the start: time waiting for a thread is the fair queue's (bounded per tenant).
      const budget = AbortSignal.timeout(options.budgetMs);
      try {
        return unwrap(await threads.run<WorkOutcome<T>>(slot, task, { signal: AbortSignal.any([signal, budget]) }));
      } catch (error) {
        if (budget.aborted) throw new ApiError('unavailable', `${what} took longer than its ${options.budgetMs} ms budget; retry later`, { 'retry-after': '30' });
        throw error;
      }
    });
  return {
    build(source) {
      // Files given (a full graph cold here, or a scoped view): the thread reads them. Else (warm) the snapshot is taken here.
      const task: WorkTask = source.files ? { build: { files: source.files(), ...(source.scopes ? { scopes: source.scopes } : {}) } } : { build: { snapshot: source.snapshot() } };
      return run<BuiltDocument>(source.projectId, 'build', task, 'building the graph');
    },
    read(source, scopes, query) {
      return run<CaseAnswer>(source.projectId, 'read', { files: source.files(), scopes, query }, `the ${query.type} query`);
    },
    view(documents, request, projectId) {
      return run<Record<string, unknown>>(projectId, 'view', viewTask(documents, request), `the ${request.kind} view`);
    },
    async close() {
      if (!options.queue) queue.close();
      if (own) await threads.close();
    },
  };
}
