/**
 * A quantile sketch of non-negative durations (milliseconds) made of
 * log-spaced bucket counts, as in DDSketch. A value v >= 1 falls in bucket
 * i = ceil(log_gamma v) and is reported as 2*gamma^i/(gamma+1), so every
 * quantile is within RELATIVE_ERROR of a true value of that rank. Zero (and
 * anything below 1 ms) has a bucket of its own, -1, reported as 0.
 *
 * Bucket counts are plain sums: two sketches merge by adding, and a value is
 * removed by subtracting its bucket. That is what lets a late event retract
 * and re-apply a whole case's contribution.
 */
export const RELATIVE_ERROR = 0.01;
const GAMMA = (1 + RELATIVE_ERROR) / (1 - RELATIVE_ERROR);
const LOG_GAMMA = Math.log(GAMMA);
export const ZERO_BUCKET = -1;

/** Bucket index -> count. Entries with count 0 are removed. */
export type Sketch = Map<number, number>;

export function bucketOf(millis: number): number {
  if (!(millis >= 1)) return ZERO_BUCKET;
  return Math.ceil(Math.log(millis) / LOG_GAMMA - 1e-9);
}

export function bucketValue(bucket: number): number {
  if (bucket === ZERO_BUCKET) return 0;
  return (2 * GAMMA ** bucket) / (GAMMA + 1);
}

export function addToSketch(sketch: Sketch, bucket: number, count: number): void {
  const next = (sketch.get(bucket) ?? 0) + count;
  if (next === 0) sketch.delete(bucket);
  else sketch.set(bucket, next);
}

export function sketchOf(values: Iterable<number>): Sketch {
  const s: Sketch = new Map();
  for (const v of values) addToSketch(s, bucketOf(v), 1);
  return s;
}

export function sketchCount(sketch: Sketch): number {
  let n = 0;
  for (const c of sketch.values()) n += c;
  return n;
}

/**
 * The q-quantile as the value of rank ceil(q*n) (1-based; the lower median for
 * an even count), 0 for an empty sketch.
 */
export function quantile(sketch: Sketch, q: number): number {
  const n = sketchCount(sketch);
  if (n === 0) return 0;
  const rank = Math.min(n, Math.max(1, Math.ceil(q * n)));
  const buckets = [...sketch.keys()].sort((a, b) => a - b);
  let seen = 0;
  for (const b of buckets) {
    seen += sketch.get(b) ?? 0;
    if (seen >= rank) return bucketValue(b);
  }
  return bucketValue(buckets[buckets.length - 1] as number);
}

/** The exact value of the same rank, for tests and oracles. */
export function exactQuantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}
