import type { VariantLog } from './log.js';
import { EMPTY, Language } from './language.js';
import type { ProcessTree } from './tree.js';

export interface Replay {
  /** Cases whose trace is in the tree's language. */
  acceptedCases: number;
  cases: number;
  /** Per variant of the log, in its order: accepted or not. */
  accepted: boolean[];
  /** Escaping-edges precision (ETC) of the tree, and of a flower model over the same activities. */
  precision: number;
  flowerPrecision: number;
}

/**
 * Replays every variant once along the prefix tree. Precision follows
 * Muñoz-Gama and Carmona's escaping edges as pm4py's token-based ETC counts
 * them: for every prefix the model can replay, weighted by the cases that
 * continue after it, the activities the model allows next minus those the log
 * shows next; precision = 1 - escaping / allowed. Unlike token replay, the
 * model's state here is exact (all activities reachable through silent steps).
 */
export function replayVariants(tree: ProcessTree, log: VariantLog, labels: readonly string[]): Replay {
  const ids = new Map(labels.map((l, i) => [l, i]));
  const lang = new Language(tree, ids);
  const { order, lcp, A } = walkOf(log);

  // The open prefixes of the walk as a stack of typed columns (depth d: the prefix of length d).
  let maxLen = 0;
  for (const t of log.traces) if (t.length > maxLen) maxLen = t.length;
  const pState = new Int32Array(maxLen + 1);
  const pCount = new Float64Array(maxLen + 1);
  const pDistinct = new Float64Array(maxLen + 1);
  const pMatched = new Float64Array(maxLen + 1);
  let sp = 0;
  const push = (state: number) => {
    pState[sp] = state;
    pCount[sp] = 0;
    pDistinct[sp] = 0;
    pMatched[sp] = 0;
    sp++;
  };
  // Allowed and escaping counts of the tree and of the flower model, summed in a typed array: a
  // number variable changed inside the closure below would be boxed anew on every change.
  const sums = new Float64Array(4);
  const AT = 0;
  const EE = 1;
  const AT_FLOWER = 2;
  const EE_FLOWER = 3;
  const pop = () => {
    sp--;
    const count = pCount[sp]!;
    if (sp > 0) pCount[sp - 1]! += count;
    sums[AT_FLOWER]! += count * A;
    sums[EE_FLOWER]! += count * (A - pDistinct[sp]!);
    const state = pState[sp]!;
    if (state === EMPTY) return;
    const allowed = lang.allowedCount(state);
    sums[AT]! += count * allowed;
    sums[EE]! += count * (allowed - pMatched[sp]!);
  };

  const accepted = new Array<boolean>(log.traces.length).fill(false);
  let acceptedCases = 0;
  let cases = 0;
  let emptyCases = 0;
  const states = new Int32Array(maxLen + 1);
  states[0] = lang.root;
  for (let o = 0; o < order.length; o++) {
    const v = order[o]!;
    const t = log.traces[v]!;
    const n = log.counts[v]!;
    cases += n;
    const L = lcp[o]!;
    while (sp > L + 1) pop();
    // A trace's cases count for every prefix it passes; they are added at its deepest prefix
    // only and handed up to the parent when a prefix closes (pop), not walked per trace.
    for (let d = L; d < t.length; d++) {
      const state = states[d]!;
      const next = lang.step(state, t[d]!);
      states[d + 1] = next;
      if (sp <= d) push(state);
      pDistinct[d]! += 1;
      if (next !== EMPTY) pMatched[d]! += 1;
    }
    if (t.length > 0) pCount[t.length - 1]! += n;
    if (t.length === 0) emptyCases += n;
    if (lang.accepts(states[t.length]!)) {
      accepted[v] = true;
      acceptedCases += n;
    }
  }
  if (sp === 0) push(lang.root);
  pCount[0]! += emptyCases;
  while (sp > 0) pop();
  return {
    acceptedCases,
    cases,
    accepted,
    precision: sums[AT]! > 0 ? 1 - sums[EE]! / sums[AT]! : 1,
    flowerPrecision: sums[AT_FLOWER]! > 0 ? 1 - sums[EE_FLOWER]! / sums[AT_FLOWER]! : 1,
  };
}

/** The log's variants in prefix-tree order and its alphabet size: the same for every tree replayed on one log, so computed once per log. */
const walks = new WeakMap<VariantLog, { order: number[]; lcp: Int32Array; A: number }>();

/**
 * Logs whose traces already come in an order where traces sharing a prefix are adjacent (any
 * prefix-tree walk will do: the counts summed along it are whole numbers, exact in any order).
 * variantLog marks its log so when the JSON keys came sorted: traces sharing their first k labels
 * are exactly the keys sharing one string prefix, which sorted strings keep together.
 */
const prefixOrdered = new WeakSet<VariantLog>();
export function markPrefixOrdered(log: VariantLog): void {
  prefixOrdered.add(log);
}

function walkOf(log: VariantLog): { order: number[]; lcp: Int32Array; A: number } {
  let w = walks.get(log);
  if (w) return w;
  const order = log.traces.map((_, i) => i);
  if (!prefixOrdered.has(log)) order.sort((x, y) => compareTraces(log.traces[x]!, log.traces[y]!));
  // Per position in that order, the length of the prefix shared with the trace before it.
  const lcp = new Int32Array(order.length);
  for (let o = 1; o < order.length; o++) {
    const t = log.traces[order[o]!]!;
    const prev = log.traces[order[o - 1]!]!;
    let L = 0;
    while (L < t.length && L < prev.length && t[L] === prev[L]) L++;
    lcp[o] = L;
  }
  let max = -1;
  for (const t of log.traces) for (const a of t) if (a > max) max = a;
  const seen = new Uint8Array(max + 1);
  let A = 0;
  for (const t of log.traces) {
    for (const a of t) {
      if (seen[a]) continue;
      seen[a] = 1;
      A++;
    }
  }
  walks.set(log, (w = { order, lcp, A }));
  return w;
}

function compareTraces(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
