import { addEdge, edgeOf, emptyDfg, grown, K, MAX_SCRATCH, type Dfg, type VariantLog } from './log.js';

/**
 * Per activity a, the hand-offs that appear when a is left out: every maximal
 * run of a joins the activity before it to the one after it (-1: trace
 * border). One pass gives the DFG without a for every a, instead of one pass
 * per a. `each(a, f)` visits a's hand-offs as f(before, after, count), in
 * ascending order of (before, after) with the border first when counted densely.
 */
export interface Bridges {
  each(a: number, f: (before: number, after: number, n: number) => void): void;
}

let bridgeScratch: Float64Array = new Float64Array(0);

export function bridgesOf(log: VariantLog, acts: readonly number[], size: number): Bridges {
  // Few activities (the common case): count in a dense [a][before][after] array over the sublog's own
  // activities (local index + 1, 0 the border), read in place; maps are slow per event.
  if (size <= 64) {
    const localOf = new Int32Array(size);
    acts.forEach((a, i) => (localOf[a] = i + 1));
    const w = acts.length + 1;
    // Reused (zeroed here): the bridges are read before the miner recurses.
    const cells = acts.length * w * w;
    const dense = cells > MAX_SCRATCH ? new Float64Array(cells) : (bridgeScratch = grown(bridgeScratch, cells));
    const complete = eachRun(log, (t, i, j, n) => {
      const la = localOf[t[i]!]!;
      if (la === 0) return false;
      const before = i > 0 ? localOf[t[i - 1]!]! : 0;
      const after = j + 1 < t.length ? localOf[t[j + 1]!]! : 0;
      dense[((la - 1) * w + before) * w + after]! += n;
      return true;
    });
    if (complete) {
      return {
        each(a, f) {
          const la = localOf[a]!;
          if (la === 0) return;
          const base = (la - 1) * w * w;
          for (let p = 0; p < w; p++) {
            for (let q = 0; q < w; q++) {
              const n = dense[base + p * w + q]!;
              if (n !== 0) f(p === 0 ? -1 : acts[p - 1]!, q === 0 ? -1 : acts[q - 1]!, n);
            }
          }
        },
      };
    }
  }
  const out = new Map<number, Map<number, number>>();
  // Sorted keys when counted densely over all ids (an activity the DFG lacks), else first met.
  const dense = size <= 64;
  eachRun(log, (t, i, j, n) => {
    const before = i > 0 ? t[i - 1]! + 1 : 0;
    const after = j + 1 < t.length ? t[j + 1]! + 1 : 0;
    let m = out.get(t[i]!);
    if (!m) out.set(t[i]!, (m = new Map()));
    const key = edgeOf(before, after);
    m.set(key, (m.get(key) ?? 0) + n);
    return true;
  });
  return {
    each(a, f) {
      const m = out.get(a);
      if (!m) return;
      const keys = dense ? [...m.keys()].sort((x, y) => x - y) : [...m.keys()];
      for (const key of keys) f(Math.floor(key / K) - 1, (key % K) - 1, m.get(key)!);
    },
  };
}

/**
 * Calls f(trace, i, j, count) for every maximal run trace[i..j] of one
 * activity, variant by variant; stops, returning false, when f does.
 */
function eachRun(log: VariantLog, f: (t: ArrayLike<number>, i: number, j: number, n: number) => boolean): boolean {
  const { traces, counts } = log;
  for (let v = 0; v < traces.length; v++) {
    const t = traces[v]!;
    const n = counts[v]!;
    for (let i = 0; i < t.length; ) {
      let j = i;
      while (j + 1 < t.length && t[j + 1] === t[i]) j++;
      if (!f(t, i, j, n)) return false;
      i = j + 1;
    }
  }
  return true;
}

export function dfgWithout(dfg: Dfg, a: number, bridges: Bridges): Dfg {
  const out = emptyDfg();
  out.activities = dfg.activities.filter((x) => x !== a);
  for (const [key, n] of dfg.edges) {
    const x = Math.floor(key / K);
    const y = key % K;
    if (x !== a && y !== a) addEdge(out, x, y, n);
  }
  for (const [x, n] of dfg.start) if (x !== a) out.start.set(x, n);
  for (const [x, n] of dfg.end) if (x !== a) out.end.set(x, n);
  bridges.each(a, (x, y, n) => {
    if (x >= 0 && y >= 0) addEdge(out, x, y, n);
    else if (x < 0 && y >= 0) out.start.set(y, (out.start.get(y) ?? 0) + n);
    else if (y < 0 && x >= 0) out.end.set(x, (out.end.get(x) ?? 0) + n);
  });
  return out;
}
