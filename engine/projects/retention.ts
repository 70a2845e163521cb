import type { ProjectStore } from '../store/project-store.js';

/**
 * A project's retention pass over all its state files (its own store and its
 * partition states): raw events of cases closed beyond the window pruned
 * (engine/store/retention.ts: the counters keep everything), dead letters
 * pruned by age (by when they were received, on the wall clock) and, past a
 * count per project, oldest first. Work is done in small steps, each its own
 * short transaction, with `pause` awaited between them, so a server's
 * requests and the stores' other writers get in between.
 */

export interface RetentionPolicy {
  /** Days raw events are kept, on the log's own clock (null: every event is kept). */
  retentionDays: number | null;
  /** Dead letters received longer ago than this many days are deleted. */
  deadLetterDays: number;
  /** Dead letters kept per project at most: the oldest go first. */
  deadLetterMax: number;
}

export interface PassOptions {
  /** The wall clock the dead letters' age is read against (default Date.now()). */
  now?: number;
  /** Rows scanned per step (default: the store's, 2000). */
  stepRows?: number;
  /** Awaited between steps (a server yields to its event loop here). */
  pause?: () => Promise<void>;
  /** Stops the pass between two steps; what is done stays done. */
  signal?: AbortSignal;
}

export interface PassResult {
  /** Cases whose kept events were pruned, and those events. */
  cases: number;
  events: number;
  deadLetters: number;
}

/** A store of the project, looked up at each use: between two steps a registry may have closed it. */
export type StoreRef = () => ProjectStore;

const DAY_MS = 86_400_000;
/** Dead letters deleted per step. */
const LETTERS = 5000;

/** One pass over a project's stores. Returns what it pruned (partly, when stopped by `signal`). */
export async function prunePass(stores: readonly StoreRef[], policy: RetentionPolicy, options: PassOptions = {}): Promise<PassResult> {
  const result: PassResult = { cases: 0, events: 0, deadLetters: 0 };
  const pause = options.pause ?? (async () => {});
  const stopped = () => options.signal?.aborted === true;
  if (policy.retentionDays !== null) {
    const keepMs = policy.retentionDays * DAY_MS;
    for (const store of stores) {
      for (let after: number | undefined = 0; after !== undefined; ) {
        if (stopped()) return result;
        const step = store().pruneStep(keepMs, after, options.stepRows);
        result.cases += step.cases;
        result.events += step.events;
        after = step.next;
        await pause();
      }
    }
  }
  const receivedBefore = (options.now ?? Date.now()) - policy.deadLetterDays * DAY_MS;
  for (const store of stores) {
    for (let n = LETTERS; n === LETTERS; ) {
      if (stopped()) return result;
      n = store().pruneDeadLetters({ receivedBefore, limit: LETTERS });
      result.deadLetters += n;
      await pause();
    }
  }
  // Past the count, the project's oldest letters go, whichever store holds them.
  let excess = stores.reduce((n, store) => n + store().deadLetterTotal(), 0) - policy.deadLetterMax;
  while (excess > 0 && !stopped()) {
    const k = Math.min(excess, LETTERS);
    const oldest = stores
      .flatMap((store, i) => store().oldestDeadLetters(k).map((d) => ({ ...d, i })))
      .sort((a, b) => a.receivedAt - b.receivedAt || a.i - b.i || a.id - b.id)
      .slice(0, k);
    if (oldest.length === 0) break;
    for (let i = 0; i < stores.length; i++) {
      const ids = oldest.filter((d) => d.i === i).map((d) => d.id);
      if (ids.length) result.deadLetters += stores[i]!().pruneDeadLetters({ ids });
    }
    excess -= k;
    await pause();
  }
  return result;
}
