import { buildCase } from './case.js';
import type { ModelSpec } from './model.js';

export interface Calibration {
  /** Cases simulated to measure the durations. */
  cases: number;
  seed: number;
  meanHours: number;
  medianHours: number;
  /** 90% of complete cases finish within this many hours. */
  p90Hours: number;
}

const CASES = 5000;
const SEED = 0x5eed;
const HOUR = 3_600_000;
const cache = new Map<string, Calibration>();

/**
 * Case durations are a sum of lognormal waits along a random path, which has
 * no closed form; a fixed reference run measures them once per model. The
 * window length (hence the open share) and the stated service level use it.
 */
export function calibrate(spec: ModelSpec): Calibration {
  const known = cache.get(spec.name);
  if (known) return known;
  const hours: number[] = [];
  for (let i = 0; i < CASES; i++) {
    const { events } = buildCase(spec, SEED, i, 0);
    hours.push(((events[events.length - 1] as { time: number }).time - (events[0] as { time: number }).time) / HOUR);
  }
  hours.sort((a, b) => a - b);
  const at = (q: number): number => hours[Math.min(hours.length - 1, Math.ceil(q * hours.length) - 1)] as number;
  const round1 = (x: number): number => Math.round(x * 10) / 10;
  const result: Calibration = {
    cases: CASES,
    seed: SEED,
    meanHours: round1(hours.reduce((a, b) => a + b, 0) / hours.length),
    medianHours: round1(at(0.5)),
    p90Hours: round1(at(0.9)),
  };
  cache.set(spec.name, result);
  return result;
}
