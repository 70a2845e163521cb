import { Piscina } from 'piscina';
import type { CheckOutcome, CheckTask } from '../connectors/files/check-task.js';
import type { LogCheck } from '../connectors/files/index.js';
import { limitName } from './config.js';
import { ApiError } from './errors.js';
import { unwrap } from './thread-errors.js';

export interface UploadChecks {
  /**
   * Checks an upload on a thread (checkTask): its facts, or the file's refusal as the reader made it (its class and
   * code, for fileError). Past the time budget or the thread's heap, a 422 naming the setting;
   * when `signal` aborts (the server stopping), its reason. Either way the thread is ended where it stands.
   */
  check(task: CheckTask, signal: AbortSignal): Promise<LogCheck>;
  close(): Promise<void>;
}

/**
 * Dataset checks on worker threads (piscina): an upload is read whole once
 * before anything of it is applied, and that read, its format's detection
 * included, costs what the file makes it cost. On the request event loop a
 * hostile file held every tenant's requests (an OCEL-SQLite view over a
 * recursive CTE, 15 s; 2 GiB of newlines in 2 MB of gzip, 150 s). Here it
 * holds one thread, under a time budget (PCG_CHECK_BUDGET_MS, counted from the
 * moment the check is handed over, its wait for a free thread included) and
 * a heap limit (PCG_READ_HEAP_MIB); an abort terminates the thread, which is
 * the only way to stop one inside a synchronous parse, and piscina starts a
 * fresh one for the next check. Threads start on demand and stop when idle.
 */
export function uploadChecks(options: { threads: number; budgetMs: number; heapMiB: number }): UploadChecks {
  const pool = new Piscina({
    filename: new URL('./workers/check-upload.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: options.threads,
    idleTimeout: 30_000,
    resourceLimits: { maxOldGenerationSizeMb: options.heapMiB },
  });
  return {
    async check(task, signal) {
      signal.throwIfAborted();
      const budget = AbortSignal.timeout(options.budgetMs);
      let outcome: CheckOutcome;
      try {
        outcome = (await pool.run(task, { signal: AbortSignal.any([signal, budget]) })) as CheckOutcome;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (budget.aborted) {
          throw new ApiError('limit_exceeded', `limit ${limitName('checkBudgetMs')}: checking the file took longer than ${options.budgetMs} ms; nothing was imported`);
        }
        if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
          throw new ApiError('limit_exceeded', `limit ${limitName('readHeapMiB')}: checking the file needs more than ${options.heapMiB} MiB of heap; nothing was imported`);
        }
        throw error;
      }
      // A refusal comes back as the class the reader threw (a FileImportError, an EngineError), for fileError.
      return unwrap(outcome);
    },
    close: () => pool.destroy(),
  };
}
