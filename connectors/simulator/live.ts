import { setTimeout as sleep } from 'node:timers/promises';
import { EngineError, type WireEvent } from '../../engine/index.js';
import { modelSpec } from './models/index.js';
import { Rng } from './random.js';
import { Simulation } from './simulation.js';

export interface LiveFeedOptions {
  model: string;
  seed: number;
  /** Mean arrival rate of new cases (Poisson). */
  casesPerMinute: number;
  /** The clock (default Date.now); event timestamps follow it. */
  now?: () => number;
  /** Model hours that pass per real hour (default 1440: a model day per real minute, so cases finish while one watches). */
  speed?: number;
  /** Real milliseconds between batches (default 1000). */
  intervalMs?: number;
  /** Share of events held back past a later event of their case (default 0). */
  lateShare?: number;
  /** Share of events sent twice (default 0). */
  duplicateShare?: number;
  /** Stops the feed; breaking out of `for await` stops it too. */
  signal?: AbortSignal;
}

const HOUR = 3_600_000;

/**
 * An endless feed for a running demo: every interval it yields the events
 * that became due since the last batch, stamped around the clock's now, so a
 * service fed by it always has fresh data. Empty intervals yield nothing.
 */
export async function* liveFeed(options: LiveFeedOptions): AsyncGenerator<WireEvent[]> {
  const spec = modelSpec(options.model);
  const { casesPerMinute, seed } = options;
  if (!(casesPerMinute > 0) || !Number.isFinite(casesPerMinute)) throw new EngineError('invalid_argument', `casesPerMinute must be > 0, got ${casesPerMinute}`);
  const speed = options.speed ?? 1440;
  if (!(speed > 0) || !Number.isFinite(speed)) throw new EngineError('invalid_argument', `speed must be > 0, got ${speed}`);
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? 1000;
  const arrivalRng = new Rng(seed, 0x11fe);
  let t = now();
  const gap = 60_000 / casesPerMinute;
  const simulation = new Simulation({
    spec,
    seed,
    arrivals: () => (t += arrivalRng.exponential(gap)),
    windowEnd: Infinity,
    lateShare: options.lateShare ?? 0,
    duplicateShare: options.duplicateShare ?? 0,
    hourMs: HOUR / speed,
  });
  const signal = options.signal;
  while (!signal?.aborted) {
    try {
      await sleep(intervalMs, undefined, signal ? { signal } : undefined);
    } catch {
      return; // aborted while waiting
    }
    const due = now();
    const batch: WireEvent[] = [];
    while (simulation.nextKey() <= due) batch.push(simulation.next() as WireEvent);
    if (batch.length) yield batch;
  }
}
