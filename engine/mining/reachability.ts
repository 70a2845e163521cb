import type { Dfg } from './log.js';

/**
 * Transitive successors of every activity as bitsets (bit j of row i: the
 * i-th activity reaches the j-th), via strongly connected components taken
 * sinks first: O(edges x activities / 32), which keeps logs with hundreds of
 * activities fast.
 */
export function reachability(dfg: Dfg): { index: Map<number, number>; rows: Uint32Array[]; has(a: number, b: number): boolean; count(a: number): number } {
  const acts = dfg.activities;
  const n = acts.length;
  const index = new Map(acts.map((a, i) => [a, i]));
  const words = (n + 31) >>> 5;
  const succ = acts.map((a) => [...(dfg.succ.get(a) ?? [])].map((b) => index.get(b)!).filter((b) => b !== undefined));
  // Tarjan's algorithm, iterative; components come out sinks first.
  const order = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const comp = new Int32Array(n).fill(-1);
  const stack: number[] = [];
  const comps: number[][] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (order[root] !== -1) continue;
    const work: [number, number][] = [[root, 0]];
    order[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (work.length) {
      const top = work[work.length - 1]!;
      const [v, k] = top;
      if (k < succ[v]!.length) {
        top[1] = k + 1;
        const w = succ[v]![k]!;
        if (order[w] === -1) {
          order[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          work.push([w, 0]);
        } else if (onStack[w]) low[v] = Math.min(low[v]!, order[w]!);
        continue;
      }
      work.pop();
      if (work.length) {
        const u = work[work.length - 1]![0];
        low[u] = Math.min(low[u]!, low[v]!);
      }
      if (low[v] === order[v]) {
        const members: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          comp[w] = comps.length;
          members.push(w);
        } while (w !== v);
        comps.push(members);
      }
    }
  }
  const rows = acts.map(() => new Uint32Array(words));
  for (const members of comps) {
    const r = new Uint32Array(words);
    const cyclic = members.length > 1 || succ[members[0]!]!.includes(members[0]!);
    for (const v of members) {
      for (const w of succ[v]!) {
        if (comp[w] === comp[v]) continue;
        const rw = rows[w]!;
        for (let i = 0; i < words; i++) r[i]! |= rw[i]!;
        r[w >>> 5]! |= 1 << (w & 31);
      }
    }
    if (cyclic) for (const v of members) r[v >>> 5]! |= 1 << (v & 31);
    for (const v of members) rows[v] = r;
  }
  const popcount = (x: number) => {
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  };
  return {
    index,
    rows,
    has: (a, b) => {
      const j = index.get(b)!;
      return (rows[index.get(a)!]![j >>> 5]! & (1 << (j & 31))) !== 0;
    },
    count: (a) => rows[index.get(a)!]!.reduce((s, x) => s + popcount(x), 0),
  };
}
