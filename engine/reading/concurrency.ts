import { cmp } from '../event.js';
import { END, START } from '../tally.js';
import type { ProcessTree } from '../mining/tree.js';
import type { SequenceRule } from '../document/types.js';
import { pct, q, ratio, type Facts } from './facts.js';
import { behaviourCounts } from './paths.js';
import type { TreeFacts } from './tree-facts.js';

/**
 * Concurrency and loops, as the reading takes them from the mined process tree and checks them on the log.
 *
 * Two activities of one case run concurrently when neither waits for the other: the log then shows them in both
 * orders, each directly following the other in a share of the cases, with no causal dependency between them. The
 * mined tree's parallel operator +() says the same, but the inductive miner's fall-throughs put steps in a parallel
 * block that the log always does in one order (a repair that always comes before its test). So the reading takes a
 * pair as concurrent only when both hold: the tree's lowest common block of the two is parallel AND each directly
 * follows the other, the rarer direction in at least MINORITY of the cases taking either hand-off. One predicate,
 * used for edge kinds, stages, timing policies, sequence rules and the variants' behaviours alike.
 *
 * A loop of the tree, *(body, redo), repeats its body after its redo part: the hand-offs from the body into the redo
 * part and from the redo part back into the body are the loop's way back (rework), and a repeat of a step of the
 * loop that comes after the other part of the loop is a turn of the loop, not an exception.
 */

/** The rarer direction of a concurrent pair's hand-offs is at least this share of both (a sequence with noise is not). */
export const MINORITY = 0.1;
/** Two steps are alternatives when at most this share of the cases with either has both... */
export const ALTERNATIVE_OVERLAP = 0.05;
/** ...and each is done by at least this share of all cases. */
const ALTERNATIVE_SHARE = 0.05;
/** A repeat is a turn of a tree loop when at least this share of the repeating cases go through the loop's other part in between. */
export const LOOP_TURN = 0.9;

export interface ConcurrentPair {
  a: string;
  b: string;
  /** Cases with the direct hand-off a -> b, and b -> a. */
  ab: number;
  ba: number;
}

/** A loop of the tree with an activity in its body and in its redo part. */
export interface TreeLoop {
  body: Set<string>;
  redo: Set<string>;
}

export interface Concurrency {
  pairs: ConcurrentPair[];
  concurrent(a: string, b: string): boolean;
  /** The pair's record (either order), if concurrent. */
  pair(a: string, b: string): ConcurrentPair | undefined;
  /** The innermost tree loop where a -> b goes from its body into its redo part or back (the loop's way back). */
  loopBack(a: string, b: string): TreeLoop | undefined;
  /** The innermost tree loop holding a (in its body or its redo part). */
  loopOf(a: string): TreeLoop | undefined;
  /** Every loop with an activity in its body and its redo part, outermost last. */
  loops: TreeLoop[];
  method: string;
}

export function readConcurrency(f: Facts, tree: ProcessTree | undefined, facts: TreeFacts): Concurrency {
  const pairs: ConcurrentPair[] = [];
  const byKey = new Map<string, ConcurrentPair>();
  for (const [from, list] of [...f.out].sort((x, y) => cmp(x[0], y[0]))) {
    if (from === START) continue;
    for (const e of list) {
      const to = e.to;
      if (to === END || to === from || cmp(from, to) > 0) continue;
      const back = f.out.get(to)?.find((x) => x.to === from);
      if (!back) continue;
      const minority = Math.min(e.cases, back.cases);
      if (minority < 1 || minority < MINORITY * (e.cases + back.cases) || !facts.concurrent(from, to)) continue;
      const p = { a: from, b: to, ab: e.cases, ba: back.cases };
      pairs.push(p);
      byKey.set(`${from}\u0000${to}`, p);
    }
  }
  const pair = (a: string, b: string) => byKey.get(cmp(a, b) < 0 ? `${a}\u0000${b}` : `${b}\u0000${a}`);
  // Per label, the tree loops holding it from the innermost out, and on which side (body or redo).
  const loops = new Map<string, { loop: TreeLoop; redo: boolean }[]>();
  const labels = (t: ProcessTree, into: Set<string>): Set<string> => {
    if (t.kind === 'activity') into.add(t.label);
    else if (t.kind !== 'tau') for (const c of t.children) labels(c, into);
    return into;
  };
  const walk = (t: ProcessTree) => {
    if (t.kind === 'activity' || t.kind === 'tau') return;
    for (const c of t.children) walk(c);
    if (t.kind !== 'loop' || t.children.length < 2) return;
    const body = labels(t.children[0]!, new Set());
    const redo = new Set<string>();
    for (const c of t.children.slice(1)) labels(c, redo);
    // A loop with a silent redo part (*(a, tau)) is a step repeated, which the repeat rules read; a flower (*(tau,
    // ...)) holds no body to come back to.
    if (!body.size || !redo.size) return;
    const loop = { body, redo };
    all.push(loop);
    for (const a of body) (loops.get(a) ?? loops.set(a, []).get(a)!).push({ loop, redo: false });
    for (const a of redo) (loops.get(a) ?? loops.set(a, []).get(a)!).push({ loop, redo: true });
  };
  const all: TreeLoop[] = [];
  if (tree) walk(tree);
  const method =
    pairs.length === 0
      ? 'no two activities run concurrently (the mined tree puts them in a parallel block and each directly follows the other)'
      : `two activities run concurrently when the mined process tree's lowest common block of the two is parallel (+) and each directly follows the other in the log, the rarer direction in at least ${MINORITY * 100}% of the cases taking either hand-off; here ${pairs.map((p) => `${q(p.a)} and ${q(p.b)} (${p.ab} ${p.ab === 1 ? 'case' : 'cases'} ${q(p.a)} -> ${q(p.b)}, ${p.ba} the other way)`).join('; ')}`;
  return {
    pairs,
    concurrent: (a, b) => a !== b && pair(a, b) !== undefined,
    pair,
    loopBack(a, b) {
      for (const x of loops.get(a) ?? []) {
        const y = (loops.get(b) ?? []).find((l) => l.loop === x.loop);
        if (y && y.redo !== x.redo) return x.loop;
      }
      return undefined;
    },
    loopOf: (a) => loops.get(a)?.[0]?.loop,
    loops: all,
    method,
  };
}

/** Sequence rules between two concurrent activities say an order the log does not keep: left out. */
export function withoutConcurrent(rules: SequenceRule[], c: Concurrency): { rules: SequenceRule[]; dropped: string[] } {
  const dropped: string[] = [];
  const kept = rules.filter((r) => {
    const acts = r.activities.map(String);
    const drop = acts.length === 2 && c.concurrent(acts[0]!, acts[1]!) && r.type !== 'other';
    if (drop) dropped.push(r.id);
    return !drop;
  });
  return { rules: kept, dropped };
}

/**
 * The alternatives of b: steps done instead of it (a simple or a complex repair), never with it in at least
 * 1 - ALTERNATIVE_OVERLAP of the cases with either, each done by at least ALTERNATIVE_SHARE of the cases, and
 * handing over to the same next step most often. Taken as one step when deciding whether a hand-off goes back.
 */
export function alternativesOf(f: Facts, b: string): string[] {
  const cases = (a: string) => f.activityCases.get(a) ?? 0;
  if (cases(b) < ALTERNATIVE_SHARE * f.cases) return [];
  const next = (a: string) => {
    let best: string | undefined;
    let most = 0;
    for (const e of f.out.get(a) ?? []) if (e.to !== END && e.to !== a && (e.cases > most || (e.cases === most && best !== undefined && cmp(e.to, best) < 0))) [best, most] = [e.to, e.cases];
    return best;
  };
  const nb = next(b);
  if (nb === undefined) return [];
  return f.activities.filter((x) => {
    if (x === b || cases(x) < ALTERNATIVE_SHARE * f.cases) return false;
    const both = f.order(b, x).both;
    return both <= ALTERNATIVE_OVERLAP * (cases(b) + cases(x) - both) && next(x) === nb;
  });
}

/**
 * Whether the first occurrence of any of `group` precedes the first `a` in at least `cut` of the cases with both
 * (the group taken as one step), counted over the variants; and the counts.
 */
export function groupFirst(f: Facts, group: readonly string[], a: string): { both: number; first: number } {
  const ids = new Set(group.map((g) => f.idOf.get(g)).filter((k): k is number => k !== undefined));
  const ia = f.idOf.get(a);
  let both = 0;
  let first = 0;
  if (ia === undefined) return { both, first };
  for (const v of f.variants) {
    let g = -1;
    let at = -1;
    for (let i = 0; i < v.distinct.length; i++) {
      const k = v.distinct[i]!;
      if (g < 0 && ids.has(k)) g = i;
      if (k === ia) at = i;
    }
    if (g < 0 || at < 0) continue;
    both += v.count;
    if (g < at) first += v.count;
  }
  return { both, first };
}

/**
 * Repeats of a step of a tree loop: the cases that visit a more than once, and those of them that go through the
 * loop's other part (its redo part, for a step of the body; its body, for a redo step) between their first and
 * second visit; the step of that part taken last before the second visit, commonest first.
 */
export function loopTurns(f: Facts, a: string, loop: TreeLoop): { repeating: number; through: number; via: string | undefined; viaCases: number } {
  const ia = f.idOf.get(a);
  const other = new Set([...(loop.body.has(a) ? loop.redo : loop.body)].map((x) => f.idOf.get(x)).filter((k): k is number => k !== undefined));
  let repeating = 0;
  let through = 0;
  const last = new Map<number, number>();
  for (const v of f.variants) {
    const first = v.ids.indexOf(ia ?? -3);
    if (first < 0) continue;
    const second = v.ids.indexOf(ia!, first + 1);
    if (second < 0) continue;
    repeating += v.count;
    let seen = -1;
    for (let i = first + 1; i < second; i++) if (other.has(v.ids[i]!)) seen = v.ids[i]!;
    if (seen < 0) continue;
    through += v.count;
    last.set(seen, (last.get(seen) ?? 0) + v.count);
  }
  let via: string | undefined;
  let viaCases = 0;
  for (const [k, n] of last) {
    const label = f.activities[k]!;
    if (n > viaCases || (n === viaCases && via !== undefined && cmp(label, via) < 0)) [via, viaCases] = [label, n];
  }
  return { repeating, through, via, viaCases };
}

/** The turn of a repeat in words, with its counts (test/document/audit-reading.ts reads them back). */
export function loopTurnText(a: string, loop: TreeLoop, t: ReturnType<typeof loopTurns>): string {
  const part = loop.body.has(a) ? "the loop's redo step" : "the loop's body";
  return `${q(a)} again after ${part} ${q(t.via ?? '')} (through that part of the mined tree's loop between the 1st and 2nd visit in ${t.through} of the ${t.repeating} cases that repeat it, ${pct(ratio(t.through, t.repeating))})`;
}

/**
 * The concurrency assumption: the pairs, what the reading does with them, the variants as behaviours (the figures
 * test/document/audit-reading.ts recomputes) and the tree's loops.
 */
export function concurrencyText(f: Facts, c: Concurrency, dropped: readonly string[], loops: readonly TreeLoop[]): string {
  let text = `Concurrency: ${c.method}.`;
  if (c.pairs.length) {
    const involved = new Set(c.pairs.flatMap((p) => [f.idOf.get(p.a)!, f.idOf.get(p.b)!]));
    const b = behaviourCounts(f.variants, (x, y) => c.concurrent(f.activities[x]!, f.activities[y]!), involved);
    let top = { count: 0, variants: 0 };
    for (const x of b.values()) if (x.count > top.count || (x.count === top.count && x.variants > top.variants)) top = x;
    text +=
      ` Concurrent activities are not sequenced against each other: the hand-offs between them are interleavings (kind allowed, the method says so), no timing policy or sequence rule is read between them${dropped.length ? ` (sequence rules left out: ${dropped.join(', ')})` : ''}, and a stage keeps them together; the backbone lists them in their typical order only.` +
      ` Variants that differ only in the order of concurrent activities are one behaviour: the ${f.variants.length} variants make ${b.size} behaviours, the commonest of ${top.count} cases (${pct(ratio(top.count, f.cases))}) in ${top.variants} variants; the variants below and the main path are listed as recorded.`;
  }
  if (loops.length) {
    text += ` Loops of the mined process tree with a redo step (their way back is rework; a repeat through the loop's other part is a turn of the loop, not an exception): ${loops.map((l) => `body ${[...l.body].map(q).join(', ')}, redo ${[...l.redo].map(q).join(', ')}`).join('; ')}.`;
  }
  return text;
}
