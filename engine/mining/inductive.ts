import { loopCut, parallelCut, sequenceCut, splitLog, xorCut, type Cut } from './cuts.js';
import { bridgesOf, dfgWithout } from './bridges.js';
import { addEdge, addRange, addSplit, dfgOf, emptyDfg, K, LogBuilder, type Dfg, type VariantLog } from './log.js';
import { checkTree, foldTree, leaf, node, tau, type ProcessTree } from './tree.js';

/**
 * The Inductive Miner with infrequent-behaviour filtering, IMf (Leemans,
 * Fahland, van der Aalst 2013), on a multiset of variants: find a cut of the
 * directly-follows graph, split the log along it, recurse; when no cut holds,
 * filter the DFG (an edge survives if it has more than `noise` times the
 * commonest edge out of its source) and try again; when that fails too, fall
 * through (activity once per trace, activity concurrent, strict tau loop, tau
 * loop, flower). With noise 0 this is the plain Inductive Miner.
 * The tree is checked before it is returned (checkTree): one with an empty
 * operator is an internal error, never a printed model.
 */
export function inductiveMiner(log: VariantLog, labels: readonly string[], noise: number, memo: MinerMemo = new MinerMemo()): ProcessTree {
  const mined = mine(log, { noise, size: labels.length, memo });
  return checkTree(foldTree(relabel(mined, labels)));
}

/**
 * What the miner learns about a (sub)log that does not depend on the noise
 * threshold: its DFG, its unfiltered cut and split, its fall-through. Runs
 * with several thresholds over one log share it: their recursions meet the
 * very same sublog objects until a threshold changes a decision.
 */
export class MinerMemo {
  readonly facts = new WeakMap<VariantLog, Facts>();
  get(log: VariantLog): Facts {
    let f = this.facts.get(log);
    if (!f) this.facts.set(log, (f = { filtered: new Map(), splits: new Map() }));
    return f;
  }
}

type Fall = { kind: 'split'; a: number; only: VariantLog; rest: VariantLog; restDfg: Dfg } | { kind: 'loop'; log: VariantLog } | { kind: 'flower'; acts: number[] };

interface Facts {
  empty?: number;
  total?: number;
  nonEmpty?: VariantLog;
  dfg?: Dfg;
  cut?: Cut | null;
  filtered: Map<number, Cut | null>;
  /** Splits by cut (operator and groups): thresholds whose filtered cuts agree share one split, and so the memo below it. */
  splits: Map<string, VariantLog[]>;
  fall?: Fall;
}

interface Ctx {
  noise: number;
  /** Activity ids are below this. */
  size: number;
  memo: MinerMemo;
}

function relabel(t: ProcessTree, labels: readonly string[]): ProcessTree {
  if (t.kind === 'activity') return leaf(labels[Number(t.label)]!);
  if (t.kind === 'tau') return t;
  return node(t.kind, t.children.map((c) => relabel(c, labels)));
}

function findCut(dfg: Dfg): Cut | undefined {
  const x = xorCut(dfg);
  if (x) return { operator: 'xor', groups: x };
  const s = sequenceCut(dfg);
  if (s) return { operator: 'sequence', groups: s };
  const p = parallelCut(dfg);
  if (p) return { operator: 'parallel', groups: p };
  const l = loopCut(dfg);
  if (l) return { operator: 'loop', groups: l };
  return undefined;
}

/** `known`: the log's DFG when the caller has it already (it does not change when empty traces go). */
function mine(input: VariantLog, ctx: Ctx, known?: Dfg): ProcessTree {
  // An empty log is silent, as pm4py's EmptyLogBaseCase. IMf's choice split makes them: a cut of the
  // filtered DFG sends each trace to the group holding most of its events, and a group whose
  // activities never hold the most gets no trace. Mined on, it fell through to a flower of no
  // activities, `*( tau, X( ) )`, which pm4py cannot parse (its language is tau's).
  if (input.traces.length === 0) return tau();
  let log = input;
  const f = ctx.memo.get(input);
  if (f.empty === undefined) {
    // Cases, and cases with an empty trace, in one pass.
    let total = 0;
    let empty = 0;
    const { traces, counts } = log;
    for (let v = 0; v < counts.length; v++) {
      total += counts[v]!;
      if (traces[v]!.length === 0) empty += counts[v]!;
    }
    f.total = total;
    f.empty = empty;
  }
  if (f.empty > 0) {
    const rest = (f.nonEmpty ??= filterTraces(log, (t) => t.length > 0));
    if (rest.traces.length === 0) return tau();
    // Empty traces above the noise level make the whole subtree optional; below it they are noise.
    if (f.empty > ctx.noise * f.total!) return node('xor', [tau(), mine(rest, ctx, known)]);
    log = rest;
  }
  if (log.traces.length === 1 && log.traces[0]!.length === 1) return leaf(String(log.traces[0]![0]));
  const g = ctx.memo.get(log);
  const dfg = (g.dfg ??= known ?? dfgOf(log, ctx.size));
  if (g.cut === undefined) g.cut = findCut(dfg) ?? null;
  if (g.cut) {
    const cut = g.cut;
    return node(cut.operator, splitOf(g, log, cut, ctx.size).map((l) => mine(l, ctx)));
  }
  if (ctx.noise > 0) {
    let cut = g.filtered.get(ctx.noise);
    if (cut === undefined) g.filtered.set(ctx.noise, (cut = findCut(filterDfg(dfg, ctx.noise)) ?? null));
    if (cut) return node(cut.operator, splitOf(g, log, cut, ctx.size).map((l) => mine(l, ctx)));
  }
  const fall = (g.fall ??= fallThrough(log, dfg, ctx.size));
  switch (fall.kind) {
    case 'split':
      return node('parallel', [mine(fall.only, ctx), mine(fall.rest, ctx, fall.restDfg)]);
    case 'loop':
      return node('loop', [mine(fall.log, ctx), tau()]);
    case 'flower':
      return node('loop', [tau(), node('xor', fall.acts.map((a) => leaf(String(a))))]);
  }
}

function splitOf(g: Facts, log: VariantLog, cut: Cut, size: number): VariantLog[] {
  const key = `${cut.operator}:${cut.groups.map((x) => x.join(',')).join('|')}`;
  let split = g.splits.get(key);
  if (!split) g.splits.set(key, (split = splitLog(log, cut, size)));
  return split;
}

function filterTraces(log: VariantLog, keep: (t: number[]) => boolean): VariantLog {
  const out: VariantLog = { traces: [], counts: [] };
  log.traces.forEach((t, v) => {
    if (keep(t)) {
      out.traces.push(t);
      out.counts.push(log.counts[v]!);
    }
  });
  return out;
}

function filterDfg(dfg: Dfg, noise: number): Dfg {
  const maxOut = new Map<number, number>();
  for (const [a, n] of dfg.end) maxOut.set(a, n);
  for (const [key, n] of dfg.edges) {
    const a = Math.floor(key / K);
    maxOut.set(a, Math.max(maxOut.get(a) ?? 0, n));
  }
  const out = emptyDfg();
  out.activities = dfg.activities;
  for (const [key, n] of dfg.edges) {
    const a = Math.floor(key / K);
    if (n > noise * maxOut.get(a)!) addEdge(out, a, key % K, n);
  }
  let maxStart = 0;
  for (const n of dfg.start.values()) maxStart = Math.max(maxStart, n);
  for (const [a, n] of dfg.start) if (n >= noise * maxStart) out.start.set(a, n);
  for (const [a, n] of dfg.end) out.end.set(a, n);
  return out;
}

/** Above this many activities in a sublog the activity-concurrent fall-through is not tried (its cost grows with the cube of activities). */
export const MAX_CONCURRENT_SEARCH = 100;

/** The fall-throughs of pm4py's IM, in its order; which one applies does not depend on the noise threshold. */
function fallThrough(log: VariantLog, dfg: Dfg, size: number): Fall {
  const acts = dfg.activities;
  if (acts.length > 1) {
    const bridges = bridgesOf(log, acts, size);
    // Activity once per trace: it runs in parallel with the rest.
    const once = oncePerTrace(log, acts, size);
    if (once.length) return splitOff(log, once[0]!, dfgWithout(dfg, once[0]!, bridges));
    // Activity concurrent: leaving it out lets a cut hold. Each candidate costs a cut search, and a
    // chain of such peels a search per level, so above MAX_CONCURRENT_SEARCH activities this is skipped.
    for (const a of acts.length <= MAX_CONCURRENT_SEARCH ? acts : []) {
      const rest = dfgWithout(dfg, a, bridges);
      if (findCut(rest)) return splitOff(log, a, rest);
    }
  }
  // Strict tau loop, then tau loop: cut traces where a start activity follows (an end activity).
  const isStart = new Uint8Array(size);
  const isEnd = new Uint8Array(size);
  for (const a of dfg.start.keys()) isStart[a] = 1;
  for (const a of dfg.end.keys()) isEnd[a] = 1;
  const anyOf = new Uint8Array(size).fill(1);
  for (const strict of [true, false]) {
    // Cut before position i when a start activity is there (strict: right after an end activity).
    const ok = strict ? isEnd : anyOf;
    // Only whether any cut point exists matters (counts are positive): the scan stops at the first.
    let cuts = false;
    for (let v = 0; v < log.traces.length && !cuts; v++) {
      const t = log.traces[v]!;
      for (let i = 1; i < t.length; i++) {
        if (isStart[t[i]!] === 1 && ok[t[i - 1]!] === 1) {
          cuts = true;
          break;
        }
      }
    }
    if (!cuts) continue;
    const b = new LogBuilder();
    log.traces.forEach((t, v) => {
      let from = 0;
      for (let i = 1; i < t.length; i++) {
        if (isStart[t[i]!] === 1 && ok[t[i - 1]!] === 1) {
          addRange(b, t, from, i, log.counts[v]!);
          from = i;
        }
      }
      addRange(b, t, from, t.length, log.counts[v]!);
    });
    return { kind: 'loop', log: b.log };
  }
  // Flower: anything in any order.
  return { kind: 'flower', acts: [...acts] };
}

function splitOff(log: VariantLog, a: number, restDfg: Dfg): Fall {
  const only = new LogBuilder();
  const rest = new LogBuilder();
  // A projected trace is built only when it is new.
  log.traces.forEach((t, v) => addSplit(only, rest, t, a, log.counts[v]!));
  return { kind: 'split', a, only: only.log, rest: rest.log, restDfg };
}

/** Activities that occur exactly once in every trace, ascending. */
function oncePerTrace(log: VariantLog, acts: readonly number[], size: number): number[] {
  // Typed counters per trace; `alive` marks the candidates left.
  const alive = new Uint8Array(size);
  for (const a of acts) alive[a] = 1;
  let left = acts.length;
  const seen = new Int32Array(size);
  for (const t of log.traces) {
    for (const a of t) if (alive[a]) seen[a]! += 1;
    for (const a of acts) {
      if (!alive[a]) continue;
      if (seen[a] !== 1) {
        alive[a] = 0;
        left--;
      }
      seen[a] = 0;
    }
    if (left === 0) return [];
  }
  return acts.filter((a) => alive[a] === 1).sort((x, y) => x - y);
}
