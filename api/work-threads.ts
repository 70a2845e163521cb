import type { Transferable } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ResourceLimits } from 'node:worker_threads';
import type { EventLimits } from '../engine/index.js';
import type { WorkOutcome, WorkTask, WorkThreadStats } from './work-thread.js';

/**
 * The heap of a work thread. Not INGEST_HEAP's 192 MiB young generation (engine/heap.ts), made for imports of
 * millions of events in batches of thousands: a work thread applies HTTP batches of a few hundred events and
 * builds documents, and with two (or more) such threads their young generations were a good part of the
 * 10-minute soak's RSS (1.39 -> 1.67 GiB). 24 batches (18 of 150 events, 6 of 20,000) applied on a thread took
 * 7.1-10.2 s with 64 MiB against 8.5-11.5 s with 192 (a busy machine: within its noise), and the process's
 * RSS was 418-425 MiB against 448-464 MiB.
 */
const WORK_HEAP: ResourceLimits = Object.freeze({ maxYoungGenerationSizeMb: 64 });

/** What every work thread is started with (api/work-thread.ts reads it). */
export interface WorkThreadData {
  /** The event limits of the configuration: batches applied on the thread are held to them. */
  limits: EventLimits;
  /** Case folds the stores this thread writes may cache together, and the bytes of given-up folds kept as text. */
  cachedCases: number;
  cachedCaseTextBytes: number;
}

/**
 * The work threads (api/workers/work.mjs): one piscina of one thread per slot
 * of the fair queue (api/fair-queue.ts), so a task goes to the thread its slot
 * names. One pool of N threads would hand a task to whichever is free, and a
 * project's writes would hop between threads, each time reading its key index,
 * case folds and counted state back from the file; addressed by slot, a
 * project's work returns to the thread that holds them (the queue remembers
 * where each project last ran). Piscina still starts a thread on first use,
 * restarts one that a budget aborted (the task's thread is terminated: a read
 * cannot be cut short otherwise) and passes buffers across. Threads stay up
 * once started: their open stores are the caches.
 */
export class WorkThreads {
  private readonly pools: Piscina[];
  /** What each thread answered when last asked (api/work-thread.ts), and whether it is being asked now. */
  private readonly reported: (WorkThreadStats | undefined)[];
  private readonly asking: boolean[];

  constructor(
    readonly size: number,
    data: WorkThreadData,
    /**
     * Start every thread now rather than at its first task (`pcg serve`): a thread takes about a second to start
     * under load (loading the engine), which the first request sent to it would otherwise wait for.
     */
    options: { eager?: boolean } = {},
  ) {
    this.pools = Array.from(
      { length: size },
      () =>
        new Piscina({
          filename: new URL('./workers/work.mjs', import.meta.url).href,
          minThreads: options.eager ? 1 : 0,
          maxThreads: 1,
          // Forever: a thread's open stores are what make its next task on the same project cheap.
          idleTimeout: 2 ** 31 - 1,
          // The fair queue hands each slot one task at a time, but the tallies carried forward (tellOthers) and
          // the stats asked for wait here too while a task runs: unbounded, so that none of them can make piscina
          // refuse the queue's next task (a follow is a batch's counter rows, and as many wait as batches were
          // applied elsewhere during one task).
          maxQueue: Infinity,
          workerData: data,
          resourceLimits: WORK_HEAP,
        }),
    );
    this.reported = this.pools.map(() => undefined);
    this.asking = this.pools.map(() => false);
    // Piscina reports a thread's answer to a task it no longer tracks as an 'error' event, which Node throws when
    // nobody listens: a stats answer arriving while the pools are destroyed (close, below) is one. Only then is it
    // expected; any other is a fault of the pool and is thrown as before.
    for (const pool of this.pools) {
      pool.on('error', (err: unknown) => {
        if (!this.closing) throw err;
      });
    }
  }

  private closing = false;

  /**
   * What the threads reported last, summed, and each started thread is asked again (its answer reaches the next
   * call). Never waited for: a thread answers between its tasks, and a scrape of the metrics should not wait
   * behind a build. A thread not started holds nothing and is not started for this.
   */
  stats(): WorkThreadStats {
    const sum: WorkThreadStats = { openStores: 0, counterKeys: 0, cachedFolds: 0, cachedFoldTextBytes: 0, heapUsedBytes: 0, heapLiveBytes: 0 };
    this.pools.forEach((pool, slot) => {
      const r = this.reported[slot];
      if (r) for (const k of Object.keys(sum) as (keyof WorkThreadStats)[]) sum[k] += r[k];
      if (this.asking[slot] || pool.threads.length === 0) return;
      this.asking[slot] = true;
      (pool.run({ stats: true } satisfies WorkTask) as Promise<WorkOutcome<WorkThreadStats>>)
        .then((outcome) => {
          if ('ok' in outcome) this.reported[slot] = outcome.ok;
        })
        // A thread stopped (a budget aborted its task, or the pool closed): its successor starts empty.
        .catch(() => (this.reported[slot] = undefined))
        .finally(() => (this.asking[slot] = false));
    });
    return sum;
  }

  /** Runs a task on the thread of `slot`; an abort terminates the thread (a new one starts for the next task). */
  run<T>(slot: number, task: object, options: { signal?: AbortSignal; transferList?: Transferable[] } = {}): Promise<T> {
    const pool = this.pools[slot % this.size]!;
    return pool.run(task, { ...(options.signal ? { signal: options.signal } : {}), ...(options.transferList ? { transferList: options.transferList as never } : {}) }) as Promise<T>;
  }

  /**
   * Hands a task to every started thread but `slot`'s, answered by nobody: piscina runs it on each thread before
   * any task given after it (a thread runs its tasks in order, one at a time), so it costs the next fair-queue task
   * there the time it takes, and is never waited for here.
   */
  tellOthers(slot: number, task: WorkTask): void {
    this.pools.forEach((pool, other) => {
      if (other === slot % this.size || pool.threads.length === 0 || this.closing) return;
      (pool.run(task) as Promise<unknown>).catch(() => {
        // A thread stopped (a budget aborted its task, or the pool closed): its successor holds no tally to carry.
      });
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.pools.map((p) => p.destroy()));
  }
}
