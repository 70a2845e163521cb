import { describe, expect, it } from 'vitest';
import { simulate } from '../../connectors/simulator/index.js';
import { ProjectStore } from '../../engine/index.js';
import { buildInProcess } from '../../engine/projects/index.js';
import { documentPool } from '../../api/document-pool.js';
import { ApiError } from '../../api/errors.js';

/** Documents built on the worker pool are the very bytes the in-process builder makes; a build past its budget is a 503. */
describe('the document pool', () => {
  const store = ProjectStore.open(':memory:');
  store.apply({ records: [...simulate({ model: 'claims', cases: 300, seed: 3 })] });
  const snapshot = store.snapshot();

  it('builds off the main thread the same document as in process', async () => {
    const pool = documentPool({ threads: 1, budgetMs: 60_000 });
    try {
      // A timer set before the build fires before its result: the build did not hold this thread
      // (an in-process build would have finished, and its promise settled, before any timer ran).
      let timerFirst = false;
      let done = false;
      setTimeout(() => (timerFirst = !done), 0);
      const threaded = await pool.build(snapshot);
      done = true;
      expect(timerFirst).toBe(true);
      expect(threaded).toBe(await buildInProcess(snapshot));
      expect(JSON.parse(threaded).source.cases).toBe(300);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('answers a build past its budget with 503 unavailable', async () => {
    // One millisecond is less than a worker thread takes to start.
    const pool = documentPool({ threads: 1, budgetMs: 1 });
    try {
      const error = await pool.build(snapshot).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect([(error as ApiError).status, (error as ApiError).code]).toEqual([503, 'unavailable']);
    } finally {
      await pool.close();
    }
  }, 60_000);
});
