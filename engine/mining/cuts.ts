import { addPicked, edgeOf, K, LogBuilder, type Dfg, type VariantLog } from './log.js';
import { reachability } from './reachability.js';

/**
 * The four directly-follows cuts of the Inductive Miner (Leemans 2013, and
 * "Robust Process Mining with Guarantees", 2017), each a detection on the DFG
 * and a log split on the variants (the IMf splits, which drop the events that
 * do not fit the cut instead of refusing it).
 */
export type Cut = { operator: 'xor' | 'sequence' | 'parallel' | 'loop'; groups: number[][] };

/** Union-find over activity ids below a bound, the root of a set its smallest member. */
class UnionFind {
  // A plain array: small typed arrays (over 64 bytes) get a buffer outside the heap, slow to make, and cuts are searched often.
  private readonly parent: Int32Array;
  constructor(items: readonly number[]) {
    let max = -1;
    for (const a of items) if (a > max) max = a;
    this.parent = new Int32Array(max + 1);
    for (let i = 0; i <= max; i++) this.parent[i] = i;
  }
  find(a: number): number {
    const parent = this.parent;
    let r = a;
    while (parent[r] !== r) r = parent[r]!;
    while (parent[a] !== r) {
      const next = parent[a]!;
      parent[a] = r;
      a = next;
    }
    return r;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** Groups of `items` by union-find root, each ascending, ordered by smallest member. */
function groupsOf(items: readonly number[], uf: UnionFind): number[][] {
  const by = new Map<number, number[]>();
  for (const a of items) {
    const r = uf.find(a);
    const g = by.get(r);
    if (g) g.push(a);
    else by.set(r, [a]);
  }
  return [...by.values()].map((g) => g.sort((x, y) => x - y)).sort((x, y) => x[0]! - y[0]!);
}

const has = (dfg: Dfg, a: number, b: number) => dfg.edges.has(edgeOf(a, b));

export function xorCut(dfg: Dfg): number[][] | undefined {
  const uf = new UnionFind(dfg.activities);
  for (const [a, succ] of dfg.succ) for (const b of succ) uf.union(a, b);
  const groups = groupsOf(dfg.activities, uf);
  return groups.length > 1 ? groups : undefined;
}

/** Strict sequence cut: groups of mutually reachable or mutually unreachable activities, ordered by reachability, then the skippable groups merged. */
export function sequenceCut(dfg: Dfg): number[][] | undefined {
  const acts = dfg.activities;
  const n = acts.length;
  const reach = reachability(dfg);
  // Reachability of the reversed graph: row i holds the activities that reach i (column i of reach).
  const back = reachability({ ...dfg, succ: dfg.pred });
  const uf = new UnionFind(dfg.activities);
  // Groups join i and j when they reach each other or neither reaches the other (row bit = column bit),
  // found as components by a search over bitsets: activities squared over 32, not squared.
  const words = (n + 31) >>> 5;
  const unassigned = new Uint32Array(words);
  for (let j = 0; j < n; j++) unassigned[j >>> 5]! |= 1 << (j & 31);
  for (let i = 0; i < n; i++) {
    if ((unassigned[i >>> 5]! & (1 << (i & 31))) === 0) continue;
    unassigned[i >>> 5]! &= ~(1 << (i & 31));
    const queue = [i];
    while (queue.length) {
      const v = queue.pop()!;
      const row = reach.rows[v]!;
      const col = back.rows[v]!;
      for (let w = 0; w < words; w++) {
        let m = ~(row[w]! ^ col[w]!) & unassigned[w]!;
        while (m !== 0) {
          const low = m & -m;
          const j = (w << 5) + (31 - Math.clz32(low));
          m ^= low;
          unassigned[w]! &= ~low;
          uf.union(acts[v]!, acts[j]!);
          queue.push(j);
        }
      }
    }
  }
  // Per activity: how many reach it, and how many it reaches (popcounts, once each).
  const preds = new Int32Array(n);
  const succs = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    preds[i] = back.count(acts[i]!);
    succs[i] = reach.count(acts[i]!);
  }
  const rank = (g: number[]) => {
    const i = reach.index.get(g[0]!)!;
    return preds[i]! + (n - succs[i]!);
  };
  const c = groupsOf(acts, uf).sort((x, y) => rank(x) - rank(y) || x[0]! - y[0]!);
  if (c.length < 2) return undefined;

  // Strict sequence (Leemans 2017, p. 233): merge groups that together can be skipped.
  const groupOf = new Map<number, number>();
  c.forEach((g, i) => g.forEach((a) => groupOf.set(a, i)));
  const mf = c.map((g) => (g.some((a) => dfg.start.has(a)) ? -Infinity : Infinity));
  const mt = c.map((g) => (g.some((a) => dfg.end.has(a)) ? Infinity : -Infinity));
  for (const [key] of dfg.edges) {
    const a = Math.floor(key / K);
    const b = key % K;
    const ga = groupOf.get(a)!;
    const gb = groupOf.get(b)!;
    mf[gb] = Math.min(mf[gb]!, ga);
    mt[ga] = Math.max(mt[ga]!, gb);
  }
  const skippable = (p: number): boolean => {
    const after = new Set(c.slice(p + 1).flat());
    for (let i = 0; i < p; i++) for (const a of c[i]!) for (const b of dfg.succ.get(a) ?? []) if (after.has(b)) return true;
    for (let i = p + 1; i < c.length; i++) if (c[i]!.some((a) => dfg.start.has(a))) return true;
    for (let i = 0; i < p; i++) if (c[i]!.some((a) => dfg.end.has(a))) return true;
    return false;
  };
  for (let p = 0; p < c.length; p++) {
    if (!skippable(p)) continue;
    for (let q = p - 1; q >= 0 && mt[q]! <= p; q--) {
      c[p] = [...c[p]!, ...c[q]!];
      c[q] = [];
    }
    for (let q = p + 1; q < c.length && mf[q]! >= p; q++) {
      c[p] = [...c[p]!, ...c[q]!];
      c[q] = [];
    }
  }
  const out = c.filter((g) => g.length > 0).map((g) => g.sort((x, y) => x - y));
  return out.length > 1 ? out : undefined;
}

/** Parallel cut: components of the complement of the two-way DFG; every group needs a start and an end activity. */
export function parallelCut(dfg: Dfg): number[][] | undefined {
  const acts = dfg.activities;
  const uf = new UnionFind(dfg.activities);
  // Components of the complement of the two-way graph, by a search over the activities not yet
  // reached: an activity stays unreached only while joined two ways to the one being expanded, so
  // the work is activities plus two-way edges, where testing every pair costs activities squared.
  let unreached = [...acts];
  while (unreached.length) {
    const queue = [unreached.pop()!];
    while (queue.length) {
      const v = queue.pop()!;
      const out = dfg.succ.get(v);
      const kept: number[] = [];
      for (const u of unreached) {
        if (out?.has(u) && dfg.succ.get(u)?.has(v)) kept.push(u);
        else {
          uf.union(v, u);
          queue.push(u);
        }
      }
      unreached = kept;
    }
  }
  const groups = groupsOf(acts, uf).sort((x, y) => x.length - y.length);
  let i = 0;
  while (i < groups.length && groups.length > 1) {
    const g = groups[i]!;
    if (g.some((a) => dfg.start.has(a)) && g.some((a) => dfg.end.has(a))) {
      i++;
      continue;
    }
    groups.splice(i, 1);
    const into = i === 0 ? 0 : i - 1;
    groups[into] = [...groups[into]!, ...g].sort((x, y) => x - y);
  }
  return groups.length > 1 ? groups : undefined;
}

/** Loop cut: the body holds the start and end activities; the redo part is what connects end back to start. */
export function loopCut(dfg: Dfg): number[][] | undefined {
  if (dfg.edges.size === 0) return undefined;
  const start = new Set(dfg.start.keys());
  const end = new Set(dfg.end.keys());
  const body = new Set([...start, ...end]);
  const uf = new UnionFind(dfg.activities);
  const rest = dfg.activities.filter((a) => !body.has(a));
  for (const a of rest) for (const b of dfg.succ.get(a) ?? []) if (!body.has(b)) uf.union(a, b);
  const groups: Set<number>[] = [body, ...groupsOf(rest, uf).map((g) => new Set(g))];
  const merge = (a: number) => {
    const i = groups.findIndex((g) => g.has(a));
    if (i > 0) {
      for (const x of groups[i]!) groups[0]!.add(x);
      groups.splice(i, 1);
    }
  };
  // What follows a start activity that is not an end activity belongs to the body, and so does what precedes a non-start end activity.
  for (const a of start) if (!end.has(a)) for (const b of dfg.succ.get(a) ?? []) merge(b);
  for (const b of end) if (!start.has(b)) for (const a of dfg.pred.get(b) ?? []) merge(a);
  // A redo group must lead to every start activity and be reached from every end activity.
  for (let i = 1; i < groups.length; ) {
    const g = groups[i]!;
    const bad = [...g].some((a) => [...(dfg.succ.get(a) ?? [])].some((b) => start.has(b)) && [...start].some((s) => !has(dfg, a, s)));
    if (bad) merge([...g][0]!);
    else i++;
  }
  for (let i = 1; i < groups.length; ) {
    const g = groups[i]!;
    const bad = [...g].some((a) => [...(dfg.pred.get(a) ?? [])].some((b) => end.has(b)) && [...end].some((e) => !has(dfg, e, a)));
    if (bad) merge([...g][0]!);
    else i++;
  }
  if (groups.length <= 1) return undefined;
  const redo = groups.slice(1).flatMap((g) => [...g]);
  return [[...groups[0]!].sort((x, y) => x - y), redo.sort((x, y) => x - y)];
}

/** splitLog's group per activity, reused: the split is done before the miner recurses. */
let groupScratch = new Int32Array(64);

/** The IMf log splits: every event that does not fit the cut is left out. */
export function splitLog(log: VariantLog, cut: Cut, size: number): VariantLog[] {
  // Group per activity as a dense array (-1: in no group): this is the miner's innermost loop.
  if (groupScratch.length < size) groupScratch = new Int32Array(size);
  const groupOf = groupScratch;
  groupOf.fill(-1, 0, size);
  cut.groups.forEach((g, i) => g.forEach((a) => (groupOf[a] = i)));
  const builders = cut.groups.map(() => new LogBuilder());
  switch (cut.operator) {
    case 'xor':
      {
        const counts = new Array<number>(cut.groups.length).fill(0);
        log.traces.forEach((t, v) => {
          // The trace goes to the group holding most of its events (ties: the later group).
          for (let i = 0; i < counts.length; i++) counts[i] = 0;
          for (let i = 0; i < t.length; i++) {
            const g = groupOf[t[i]!]!;
            if (g >= 0) counts[g]! += 1;
          }
          let best = 0;
          for (let i = 0; i < counts.length; i++) if (counts[i]! >= counts[best]!) best = i;
          addPicked(builders[best]!, t, 0, t.length, groupOf, best, log.counts[v]!);
        });
      }
      return builders.map((b) => b.log);
    case 'parallel':
      log.traces.forEach((t, v) => builders.forEach((b, i) => addPicked(b, t, 0, t.length, groupOf, i, log.counts[v]!)));
      return builders.map((b) => b.log);
    case 'sequence': {
      // Past the last event of group i the cost below only grows, so the scan for group i stops there.
      const lastOf = new Int32Array(cut.groups.length);
      const G = cut.groups.length;
      for (let v = 0; v < log.traces.length; v++) {
        const t = log.traces[v]!;
        for (let i = 0; i < G; i++) lastOf[i] = -1;
        let outside = false;
        for (let j = 0; j < t.length; j++) {
          const g = groupOf[t[j]!]!;
          if (g >= 0) lastOf[g] = j;
          else outside = true;
        }
        let from = 0;
        for (let i = 0; i < G; i++) {
          // The last group's cost only falls (at its own events) unless an event of no group is
          // there, so its split point is right after its last event: no scan needed.
          if (i === G - 1 && !outside) {
            addPicked(builders[i]!, t, from, Math.max(from, lastOf[i]! + 1), groupOf, i, log.counts[v]!);
            break;
          }
          // The split point after group i is where events of group i most outnumber events of later groups.
          let cost = 0;
          let least = 0;
          let to = from;
          const stop = lastOf[i]!;
          for (let j = from; j <= stop; j++) {
            const g = groupOf[t[j]!]!;
            if (g === i) cost -= 1;
            else if (g < 0 || g > i) cost += 1;
            if (cost < least) {
              least = cost;
              to = j + 1;
            }
          }
          addPicked(builders[i]!, t, from, to, groupOf, i, log.counts[v]!);
          from = to;
        }
      }
      return builders.map((b) => b.log);
    }
    case 'loop':
      log.traces.forEach((t, v) => {
        const n = log.counts[v]!;
        let body: number[] = [];
        let redo: number[] = [];
        for (const a of t) {
          const g = groupOf[a];
          if (g === 0) {
            body.push(a);
            if (redo.length) builders[1]!.add(redo, n), (redo = []);
          } else if (g === 1) {
            redo.push(a);
            if (body.length) builders[0]!.add(body, n), (body = []);
          }
        }
        if (redo.length) builders[1]!.add(redo, n);
        builders[0]!.add(body, n);
      });
      return builders.map((b) => b.log);
  }
}
