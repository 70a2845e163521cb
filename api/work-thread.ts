import { existsSync } from 'node:fs';
import { constants as perfConstants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { workerData } from 'node:worker_threads';
import type { ApplyResult, Batch, Position } from '../engine/index.js';
import type { TallyChange } from '../engine/store/project-store.js';
import { builtDocument, StateFiles, type BuiltDocument, type CaseAnswer, type CaseQuery } from '../engine/projects/index.js';
import type { Scope } from '../engine/projects/scope.js';
import { FoldBudget } from '../engine/store/case-cache.js';
import { isPrepared, type PreparedBatch } from '../engine/store/prepare.js';
import type { ProjectSnapshot, SourceCounts } from '../engine/store/project-store.js';
import { readIngestBody } from './ingest-body.js';
import { ApiError } from './errors.js';
import { answerable, OverQuota, toWire, type ThreadOutcome, type WireError } from './thread-errors.js';
import { answerViewTask, type ViewTask } from './mcp/viewer.js';
import type { WorkThreadData } from './work-threads.js';

/** A batch for a project's own store: the request's body as it came (parsed here), or records already parsed (MCP's tool). */
export type IngestTask = { file: string; position?: Position } & (
  | { body: Uint8Array | string; ndjson: boolean; maxEvents: number; /** Events the tenant's quota leaves room for: more are not applied. */ room: number }
  | { records: unknown[] }
  | { batch: Batch | PreparedBatch }
);

/** What a work thread is asked: apply a batch, build a document, answer a query over the cases, or view documents. */
export type WorkTask =
  | { ingest: IngestTask }
  | { build: { snapshot: ProjectSnapshot } | { files: string[]; scopes?: readonly Scope[] } }
  | { query: CaseQuery; files: string[]; scopes: readonly Scope[] }
  | { sourceCounts: { file: string; source: string } }
  | { stats: true }
  | { follow: { file: string; change: TallyChange } }
  | ViewTask;

/** What a task answers (the error in the one wire form of thread boundaries: api/thread-errors.ts). */
export type WorkOutcome<T> = ThreadOutcome<T>;

/** What a thread holds (for the metrics, which add the loop's own stores: api/metrics.ts). */
export interface WorkThreadStats {
  openStores: number;
  counterKeys: number;
  cachedFolds: number;
  cachedFoldTextBytes: number;
  heapUsedBytes: number;
  /** Heap used right after this thread's latest full collection: its live data (0 before the first). */
  heapLiveBytes: number;
}

/** An applied batch, with how long its transaction took (for the apply metric), and its counted change (for the other threads). */
export interface Applied {
  result: ApplyResult;
  seconds: number;
  change?: TallyChange;
}

const data = (workerData ?? {}) as Partial<WorkThreadData>;
/**
 * The project stores this thread has opened (reading and writing), kept between tasks: a store written here keeps
 * its caches for the next batch and its counted state for the next build. Its folds are held to this thread's
 * part of PCG_CACHED_CASES and PCG_CACHED_CASE_TEXT_MIB.
 */
const folds = new FoldBudget(data.cachedCases ?? 100_000, data.cachedCaseTextBytes ?? 64 * 2 ** 20);
const files = new StateFiles(16, {
  ...(data.limits ? { limits: data.limits } : {}),
  foldBudget: folds,
  // Merges a batch makes due run after the batch is answered (settled below), as the registry does on the loop.
  deferMerges: true,
});

/** What the heap held right after the latest full collection (as the loop's pcg_heap_live_bytes, api/metrics.ts). */
let liveHeap = 0;
new PerformanceObserver((list) => {
  if (list.getEntries().some((e) => (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR)) liveHeap = getHeapStatistics().used_heap_size;
}).observe({ entryTypes: ['gc'] });

/** Runs one task on this thread (api/workers/work.mjs hands them in). */
export function runWork(task: WorkTask): WorkOutcome<unknown> | Promise<WorkOutcome<unknown>> {
  try {
    if ('ingest' in task) return { ok: ingest(task.ingest) };
    if ('follow' in task) return { ok: files.follow(task.follow.file, task.follow.change) };
    if ('stats' in task) {
      const stats: WorkThreadStats = {
        openStores: files.openCount,
        counterKeys: files.counterKeys,
        cachedFolds: folds.size,
        cachedFoldTextBytes: folds.coldBytes,
        heapUsedBytes: getHeapStatistics().used_heap_size,
        heapLiveBytes: liveHeap,
      };
      return { ok: stats };
    }
    if ('view' in task) {
      return answerViewTask(task);
    }
    if ('sourceCounts' in task) return { ok: files.sourceCounts(task.sourceCounts.file, task.sourceCounts.source) satisfies SourceCounts };
    if ('query' in task) return { ok: files.read(task.files, task.scopes ?? [], task.query) satisfies CaseAnswer };
    const b = task.build;
    const snapshot = 'snapshot' in b ? b.snapshot : b.scopes ? files.scopedSnapshot(b.files, b.scopes) : files.snapshot(b.files);
    return { ok: builtDocument(snapshot) satisfies BuiltDocument };
  } catch (error) {
    return { error: failure(error) };
  }
}

function ingest(task: IngestTask): Applied {
  // A project deleted while its batch waited: its folder is not made again.
  if (!existsSync(task.file)) throw new ApiError('not_found', 'project not found');
  const batch: Batch | PreparedBatch = 'batch' in task ? task.batch : 'records' in task ? { records: task.records } : readIngestBody(task.body, task.ndjson, task.maxEvents);
  if ('room' in task && !isPrepared(batch) && batch.records.length > task.room) throw new OverQuota(batch.records.length);
  const applied = files.apply(task.file, batch, task.position);
  // After the answer has left: the merge a batch made due never delays the batch's own request.
  setImmediate(() => {
    try {
      files.settle(task.file);
    } catch {
      // A busy or closed file: the merge stays due, and the next batch tries again (or merges itself once overdue).
    }
  });
  return applied;
}

/** A known error in its wire form; anything else is thrown, and piscina carries it as a fault (a 500). */
function failure(error: unknown): WireError {
  if (!answerable(error)) throw error;
  return toWire(error);
}
