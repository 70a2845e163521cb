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

/** The DFG of a log over activity ids below `size` (the label count; larger alphabets use maps). */
export function dfgOf(log: VariantLog, size: number): Dfg {
  if (size > 2048) return sparseDfg(log, -1);
  const dfg = emptyDfg();
  // Dense counting first: typed arrays beat maps by far for the few dozen activities logs have.
  const matrix = new Float64Array(size * size);
  const starts = new Float64Array(size);
  const ends = new Float64Array(size);
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

function sparseDfg(log: VariantLog, skip: number): Dfg {
  const dfg = emptyDfg();
  const seen = new Set<number>();
  for (let v = 0; v < log.traces.length; v++) {
    const t = log.traces[v]!.filter((a) => a !== skip);
    const n = log.counts[v]!;
    if (t.length === 0) continue;
    dfg.start.set(t[0]!, (dfg.start.get(t[0]!) ?? 0) + n);
    dfg.end.set(t[t.length - 1]!, (dfg.end.get(t[t.length - 1]!) ?? 0) + n);
    for (let i = 0; i < t.length; i++) {
      seen.add(t[i]!);
      if (i + 1 < t.length) addEdge(dfg, t[i]!, t[i + 1]!, n);
    }
  }
  dfg.activities = [...seen].sort((a, b) => a - b);
  return dfg;
}

export function totalCases(log: VariantLog): number {
  let n = 0;
  for (const c of log.counts) n += c;
  return n;
}

/** Collects projected traces, merging equal ones (the log stays a multiset of variants). */
export class LogBuilder {
  // Keyed by a numeric hash of the trace: far cheaper than joining traces into strings.
  private readonly index = new Map<number, number | number[]>();
  readonly log: VariantLog = { traces: [], counts: [] };

  add(trace: number[], count: number): void {
    let h = 0x811c9dc5;
    for (let i = 0; i < trace.length; i++) h = Math.imul(h ^ trace[i]!, 0x01000193);
    h = Math.imul(h ^ trace.length, 0x01000193);
    const found = this.find(h, (candidate) => sameTrace(candidate, trace));
    if (found >= 0) this.log.counts[found]! += count;
    else this.insert(h, trace, count);
  }

  /** The indices of the traces with hash h: one, several, or none. */
  slot(h: number): number | number[] | undefined {
    return this.index.get(h);
  }

  /** The index of a trace with hash h that `same` accepts, or -1. */
  find(h: number, same: (candidate: readonly number[]) => boolean): number {
    const at = this.index.get(h);
    if (at === undefined) return -1;
    if (typeof at === 'number') return same(this.log.traces[at]!) ? at : -1;
    for (const v of at) if (same(this.log.traces[v]!)) return v;
    return -1;
  }

  insert(h: number, trace: number[], count: number): void {
    const v = this.log.traces.length;
    this.log.traces.push(trace);
    this.log.counts.push(count);
    const at = this.index.get(h);
    if (at === undefined) this.index.set(h, v);
    else if (typeof at === 'number') this.index.set(h, [at, v]);
    else at.push(v);
  }
}

/**
 * LogBuilder.add(t[from..to) filtered to the activities with groupOf[a] === group), without
 * building the filtered trace when an equal one is already there: projections merge most traces,
 * and not allocating them is what keeps the miner's garbage down.
 */
export function addPicked(b: LogBuilder, t: readonly number[], from: number, to: number, groupOf: Int32Array, group: number, count: number): void {
  // Length and hash in one pass (the hash is LogBuilder.add's).
  let len = 0;
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) {
    const a = t[i]!;
    if (groupOf[a] === group) {
      len++;
      h = Math.imul(h ^ a, 0x01000193);
    }
  }
  h = Math.imul(h ^ len, 0x01000193);
  // The lookup inline (no closure per call: this runs once per trace and group).
  const at = b.slot(h);
  let found = -1;
  if (at !== undefined) {
    if (typeof at === 'number') {
      if (samePicked(b.log.traces[at]!, t, from, to, groupOf, group, len)) found = at;
    } else {
      for (const v of at) {
        if (samePicked(b.log.traces[v]!, t, from, to, groupOf, group, len)) {
          found = v;
          break;
        }
      }
    }
  }
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
  let k = 0;
  for (let i = from; i < to; i++) if (groupOf[t[i]!] === group) out[k++] = t[i]!;
  b.insert(h, out, count);
}

function samePicked(candidate: readonly number[], t: readonly number[], from: number, to: number, groupOf: Int32Array, group: number, len: number): boolean {
  if (candidate.length !== len) return false;
  let k = 0;
  for (let i = from; i < to; i++) if (groupOf[t[i]!] === group && candidate[k++] !== t[i]) return false;
  return true;
}

/** LogBuilder.add(t.slice(from, to)), without the slice when an equal trace is already there. */
export function addRange(b: LogBuilder, t: readonly number[], from: number, to: number, count: number): void {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ t[i]!, 0x01000193);
  const len = to - from;
  h = Math.imul(h ^ len, 0x01000193);
  const found = b.find(h, (candidate) => {
    if (candidate.length !== len) return false;
    for (let i = 0; i < len; i++) if (candidate[i] !== t[from + i]) return false;
    return true;
  });
  if (found >= 0) b.log.counts[found]! += count;
  else b.insert(h, t.slice(from, to), count);
}

function sameTrace(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
