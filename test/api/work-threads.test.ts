import { describe, expect, it } from 'vitest';
import { DEFAULT_EVENT_LIMITS } from '../../engine/index.js';
import { WorkThreads } from '../../api/work-threads.js';

/**
 * The work threads' pools (api/work-threads.ts). A metrics scrape asks every started thread for its figures
 * without waiting; a server closing while such a question is in flight must close cleanly: the thread's late
 * answer reaches a destroyed pool, which Piscina reports as an 'error' event, thrown when nobody listens.
 */
describe('work threads', () => {
  it('close cleanly while a stats question is in flight, however many times', async () => {
    const errors: unknown[] = [];
    const onError = (err: unknown) => errors.push(err);
    process.on('uncaughtException', onError);
    try {
      for (let round = 0; round < 5; round++) {
        const threads = new WorkThreads(2, { limits: DEFAULT_EVENT_LIMITS, cachedCases: 1000, cachedCaseTextBytes: 2 ** 20 }, { eager: true });
        // Asked once the threads are up (a thread not started is not asked), then closed at once.
        while (threads.stats().heapUsedBytes === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        threads.stats();
        await threads.close();
      }
      // A turn for any late message to arrive.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(errors).toEqual([]);
  });
});
