import { Piscina } from 'piscina';
import type { BuiltDocument, CaseAnswer, CaseReader, DocumentBuilder } from '../engine/projects/index.js';
import { ApiError } from './errors.js';
import { viewAnswer, viewTask, type DocumentViewer, type ViewOutcome } from './mcp/viewer.js';

export interface DocumentPool {
  build: DocumentBuilder;
  /** Queries over every case of a project (blocks, pages of cases), read from its files on a thread. */
  read: CaseReader;
  /** The MCP tools' views of documents (api/mcp/viewer.ts), parsed on a thread. */
  view: DocumentViewer;
  close(): Promise<void>;
}

/**
 * Document builds on worker threads (piscina): their cost grows with a
 * project's activities and variants, and on the one event loop a tenant's
 * large project held every other tenant's requests for as long as its build
 * took. A project's full graph whose counted state is not in memory is
 * snapshotted there too, from its files. Threads start on demand and stop
 * when idle; a build past its budget is aborted and answered 503
 * `unavailable` (the next request tries again). Queries that read every
 * case's events (notebook blocks, the MCP tools' pages of cases) run on the
 * same threads under the same budget, and so do the MCP tools' views of
 * documents (each parses the whole document).
 */
export function documentPool(options: { threads: number; budgetMs: number }): DocumentPool {
  const pool = new Piscina({
    filename: new URL('./workers/build-document.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: options.threads,
    idleTimeout: 30_000,
  });
  const run = async <T>(task: object, what: string): Promise<T> => {
    try {
      return (await pool.run(task, { signal: AbortSignal.timeout(options.budgetMs) })) as T;
    } catch (error) {
      if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') {
        throw new ApiError('unavailable', `${what} took longer than its ${options.budgetMs} ms budget; retry later`, { 'retry-after': '30' });
      }
      throw error;
    }
  };
  return {
    build(source) {
      // Files given (a full graph cold here, or a scoped view): the thread reads them. Else (warm) the snapshot is taken here.
      const task = source.files ? { files: source.files(), ...(source.scopes ? { scopes: source.scopes } : {}) } : { snapshot: source.snapshot() };
      return run<BuiltDocument>(task, 'building the graph');
    },
    read(source, scopes, query) {
      return run<CaseAnswer>({ files: source.files(), scopes, query }, `the ${query.type} query`);
    },
    async view(documents, request) {
      return viewAnswer(await run<ViewOutcome>(viewTask(documents, request), `the ${request.kind} view`));
    },
    close: () => pool.destroy(),
  };
}
