/**
 * The miner's input: a multiset of traces (variants with their case counts),
 * activities as small integers so cuts and projections compare numbers.
 * Activity ids follow the sorted order of labels, so "sorted" below means
 * the same on every machine.
 */
export interface VariantLog {
  traces: number[][];
  counts: number[];
}

/** The directly-follows graph of a (sub)log, with occurrence counts weighted by cases. */
export interface Dfg {
  /** Activities present, ascending. */
  activities: number[];
  /** Key a * K + b -> count. */
  edges: Map<number, number>;
  succ: Map<number, Set<number>>;
  pred: Map<number, Set<number>>;
  start: Map<number, number>;
  end: Map<number, number>;
}

/** The stride of edge keys; activity ids stay below it. */
export const K = 1 << 20;

export const edgeOf = (a: number, b: number): number => a * K + b;

export function emptyDfg(): Dfg {
  return { activities: [], edges: new Map(), succ: new Map(), pred: new Map(), start: new Map(), end: new Map() };
}

export function addEdge(dfg: Dfg, a: number, b: number, n: number): void {
  const key = edgeOf(a, b);
  dfg.edges.set(key, (dfg.edges.get(key) ?? 0) + n);
  getSet(dfg.succ, a).add(b);
  getSet(dfg.pred, b).add(a);
}

function getSet(m: Map<number, Set<number>>, k: number): Set<number> {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  return s;
}

let matrixScratch: Float64Array = new Float64Array(0);
let edgeScratch: Float64Array = new Float64Array(0);

/** Scratch arrays above this many entries are made per call, not kept. */
export const MAX_SCRATCH = 1 << 16;

/** `buffer` zeroed over [0, n), or a larger zeroed one when it is too short. */
export function grown(buffer: Float64Array, n: number): Float64Array {
  if (buffer.length < n) return new Float64Array(Math.max(n, 2 * buffer.length));
  return buffer.fill(0, 0, n);
}

/** The DFG of a log over activity ids below `size` (the label count; larger alphabets use maps). */
export function dfgOf(log: VariantLog, size: number): Dfg {
  // A size x size matrix per sublog is cheap for the few dozen activities logs have, but for
  // thousands it is megabytes allocated and scanned per sublog: count those in a map instead.
  if (size * size > MAX_SCRATCH) return sparseDfg(log);
  const dfg = emptyDfg();
  // Dense counting first: typed arrays beat maps by far for the few dozen activities logs have.
  // Reused buffers (zeroed here): a DFG is counted for every sublog, and typed arrays of this size
  // get buffers outside the heap, slow to make and to collect.
  // Kept between calls up to MAX_SCRATCH entries only (a large alphabet's matrix is not held on to).
  const matrix = size * size > MAX_SCRATCH ? new Float64Array(size * size) : (matrixScratch = grown(matrixScratch, size * size));
  const starts = 2 * size > MAX_SCRATCH ? new Float64Array(2 * size) : (edgeScratch = grown(edgeScratch, 2 * size));
  const ends = starts.subarray(size, 2 * size);
  const present = new Uint8Array(size);
  const { traces, counts } = log;
  for (let v = 0; v < traces.length; v++) {
    const t = traces[v]!;
    const len = t.length;
    if (len === 0) continue;
    const n = counts[v]!;
    let prev = t[0]!;
    starts[prev]! += n;
    present[prev] = 1;
    for (let i = 1; i < len; i++) {
      const a = t[i]!;
      matrix[prev * size + a]! += n;
      present[a] = 1;
      prev = a;
    }
    ends[prev]! += n;
  }
  for (let a = 0; a < size; a++) {
    if (!present[a]) continue;
    dfg.activities.push(a);
    if (starts[a]) dfg.start.set(a, starts[a]!);
    if (ends[a]) dfg.end.set(a, ends[a]!);
    for (let b = 0; b < size; b++) {
      const n = matrix[a * size + b]!;
      if (n > 0) addEdge(dfg, a, b, n);
    }
  }
  return dfg;
}

/** The same DFG as the dense count, edges and start and end activities added in ascending order, in time linear in events. */
function sparseDfg(log: VariantLog): Dfg {
  const dfg = emptyDfg();
  const edges = new Map<number, number>();
  const starts = new Map<number, number>();
  const ends = new Map<number, number>();
  const seen = new Set<number>();
  for (let v = 0; v < log.traces.length; v++) {
    const t = log.traces[v]!;
    const n = log.counts[v]!;
    if (t.length === 0) continue;
    starts.set(t[0]!, (starts.get(t[0]!) ?? 0) + n);
    ends.set(t[t.length - 1]!, (ends.get(t[t.length - 1]!) ?? 0) + n);
    for (let i = 0; i < t.length; i++) {
      seen.add(t[i]!);
      if (i + 1 < t.length) {
        const key = edgeOf(t[i]!, t[i + 1]!);
        edges.set(key, (edges.get(key) ?? 0) + n);
      }
    }
  }
  dfg.activities = [...seen].sort((a, b) => a - b);
  const ascending = <V>(m: Map<number, V>) => [...m].sort((x, y) => x[0] - y[0]);
  for (const [a, n] of ascending(starts)) dfg.start.set(a, n);
  for (const [a, n] of ascending(ends)) dfg.end.set(a, n);
  for (const [key, n] of ascending(edges)) addEdge(dfg, Math.floor(key / K), key % K, n);
  return dfg;
}

export function totalCases(log: VariantLog): number {
  let n = 0;
  for (const c of log.counts) n += c;
  return n;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * Collects projected traces, merging equal ones (the log stays a multiset of variants).
 * Traces are found by a numeric hash of their content in an open-addressing table of
 * typed arrays: the miner adds every trace of every sublog here, and Map lookups were
 * a good part of its time.
 */
export class LogBuilder {
  readonly log: VariantLog = { traces: [], counts: [] };
  /** Per trace index, its hash. */
  private hashes = new Int32Array(8);
  /** Slots hold trace index + 1 (0: free); linear probing from hash & mask. */
  private table = new Int32Array(16);
  private mask = 15;

  add(trace: number[], count: number): void {
    let h = FNV_OFFSET;
    for (let i = 0; i < trace.length; i++) h = Math.imul(h ^ trace[i]!, FNV_PRIME);
    h = Math.imul(h ^ trace.length, FNV_PRIME);
    const found = this.findIn(h, trace, 0, trace.length);
    if (found >= 0) this.log.counts[found]! += count;
    else this.insert(h, trace, count);
  }

  /** The index of the trace equal to xs[from..to) with hash h, or -1. */
  findIn(h: number, xs: ArrayLike<number>, from: number, to: number): number {
    const { table, mask, hashes } = this;
    const traces = this.log.traces;
    const len = to - from;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const at = table[s]!;
      if (at === 0) return -1;
      if (hashes[at - 1] !== h) continue;
      const c = traces[at - 1]!;
      if (c.length !== len) continue;
      let i = 0;
      while (i < len && c[i] === xs[from + i]) i++;
      if (i === len) return at - 1;
    }
  }

  insert(h: number, trace: number[], count: number): void {
    const v = this.log.traces.length;
    this.log.traces.push(trace);
    this.log.counts.push(count);
    if (v >= this.hashes.length) {
      const grown = new Int32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[v] = h;
    // Load factor at most 1/2.
    if ((v + 1) * 2 > this.table.length) this.rehash();
    else this.place(h, v);
  }

  private place(h: number, v: number): void {
    const { table, mask } = this;
    let s = h & mask;
    while (table[s] !== 0) s = (s + 1) & mask;
    table[s] = v + 1;
  }

  private rehash(): void {
    this.table = new Int32Array(this.table.length * 2);
    this.mask = this.table.length - 1;
    const n = this.log.traces.length;
    for (let v = 0; v < n; v++) this.place(this.hashes[v]!, v);
  }
}

/** Scratch for projections: a picked trace is written here first and copied out only when new. */
let scratch = new Int32Array(1024);

/**
 * LogBuilder.add(t[from..to) filtered to the activities with groupOf[a] === group), without
 * building the filtered trace when an equal one is already there: projections merge most traces,
 * and not allocating them is what keeps the miner's garbage down.
 */
export function addPicked(b: LogBuilder, t: readonly number[], from: number, to: number, groupOf: Int32Array, group: number, count: number): void {
  if (scratch.length < to - from) scratch = new Int32Array(2 * (to - from));
  const buf = scratch;
  // Picked events and their hash (LogBuilder.add's) in one pass.
  let len = 0;
  let h = FNV_OFFSET;
  for (let i = from; i < to; i++) {
    const a = t[i]!;
    if (groupOf[a] === group) {
      buf[len++] = a;
      h = Math.imul(h ^ a, FNV_PRIME);
    }
  }
  h = Math.imul(h ^ len, FNV_PRIME);
  const found = b.findIn(h, buf, 0, len);
  if (found >= 0) {
    b.log.counts[found]! += count;
    return;
  }
  // Every event picked (common: a trace within one group): share or copy the range, traces are never mutated.
  if (len === to - from) {
    b.insert(h, from === 0 && to === t.length ? (t as number[]) : t.slice(from, to), count);
    return;
  }
  const out = new Array<number>(len);
  for (let k = 0; k < len; k++) out[k] = buf[k]!;
  b.insert(h, out, count);
}

let scratchOnly = new Int32Array(1024);

/**
 * addPicked of t to `only` (the events of a) and to `rest` (the others) in one pass over t:
 * the fall-through that splits one activity off does this for every trace.
 */
export function addSplit(only: LogBuilder, rest: LogBuilder, t: readonly number[], a: number, count: number): void {
  const len = t.length;
  if (scratch.length < len) scratch = new Int32Array(2 * len);
  if (scratchOnly.length < len) scratchOnly = new Int32Array(2 * len);
  const buf = scratch;
  const mine = scratchOnly;
  let k = 0;
  let m = 0;
  let hk = FNV_OFFSET;
  let hm = FNV_OFFSET;
  for (let i = 0; i < len; i++) {
    const x = t[i]!;
    if (x === a) {
      mine[k++] = x;
      hk = Math.imul(hk ^ x, FNV_PRIME);
    } else {
      buf[m++] = x;
      hm = Math.imul(hm ^ x, FNV_PRIME);
    }
  }
  hk = Math.imul(hk ^ k, FNV_PRIME);
  hm = Math.imul(hm ^ m, FNV_PRIME);
  addFrom(only, t, mine, k, hk, count);
  addFrom(rest, t, buf, m, hm, count);
}

/** Adds xs[0..len) (picked from t, hash h) to b: counted when there, else t itself (all picked) or a copy. */
function addFrom(b: LogBuilder, t: readonly number[], xs: Int32Array, len: number, h: number, count: number): void {
  const found = b.findIn(h, xs, 0, len);
  if (found >= 0) {
    b.log.counts[found]! += count;
    return;
  }
  if (len === t.length) {
    b.insert(h, t as number[], count);
    return;
  }
  const out = new Array<number>(len);
  for (let i = 0; i < len; i++) out[i] = xs[i]!;
  b.insert(h, out, count);
}

/** LogBuilder.add(t.slice(from, to)), without the slice when an equal trace is already there. */
export function addRange(b: LogBuilder, t: readonly number[], from: number, to: number, count: number): void {
  let h = FNV_OFFSET;
  for (let i = from; i < to; i++) h = Math.imul(h ^ t[i]!, FNV_PRIME);
  h = Math.imul(h ^ (to - from), FNV_PRIME);
  const found = b.findIn(h, t, from, to);
  if (found >= 0) b.log.counts[found]! += count;
  else b.insert(h, t.slice(from, to), count);
}

export function filterLog(log: VariantLog, keep: (a: number) => boolean): VariantLog {
  const b = new LogBuilder();
  log.traces.forEach((t, v) => b.add(t.filter(keep), log.counts[v]!));
  return b.log;
}

/** Activity ids -> sorted distinct members. */
export function alphabetOf(log: VariantLog): number[] {
  const s = new Set<number>();
  for (const t of log.traces) for (const a of t) s.add(a);
  return [...s].sort((a, b) => a - b);
}
