import { Piscina } from 'piscina';
import type { BuiltDocument, DocumentBuilder } from '../engine/projects/index.js';
import { ApiError } from './errors.js';

export interface DocumentPool {
  build: DocumentBuilder;
  close(): Promise<void>;
}

/**
 * Document builds on worker threads (piscina): their cost grows with a
 * project's activities and variants, and on the one event loop a tenant's
 * large project held every other tenant's requests for as long as its build
 * took. A project's full graph whose counted state is not in memory is
 * snapshotted there too, from its files. Threads start on demand and stop
 * when idle; a build past its budget is aborted and answered 503
 * `unavailable` (the next request tries again).
 */
export function documentPool(options: { threads: number; budgetMs: number }): DocumentPool {
  const pool = new Piscina({
    filename: new URL('./workers/build-document.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: options.threads,
    idleTimeout: 30_000,
  });
  return {
    async build(source) {
      // Files given (a full graph cold here, or a scoped view): the thread reads them. Else (warm) the snapshot is taken here.
      const task = source.files ? { files: source.files(), ...(source.scopes ? { scopes: source.scopes } : {}) } : { snapshot: source.snapshot() };
      try {
        return (await pool.run(task, { signal: AbortSignal.timeout(options.budgetMs) })) as BuiltDocument;
      } catch (error) {
        if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') {
          throw new ApiError('unavailable', `the graph took longer than its ${options.budgetMs} ms budget to build; retry later`, { 'retry-after': '30' });
        }
        throw error;
      }
    },
    close: () => pool.destroy(),
  };
}
