import { cmp } from '../event.js';
import { inductiveMiner, MinerMemo } from './inductive.js';
import { markPrefixOrdered, replayVariants } from './replay.js';
import type { VariantLog } from './log.js';
import { printTree, type ProcessTree } from './tree.js';

export { checkTree, foldTree, leaf, node, parseTree, printTree, safeLabel, tau, treeDefect, treeLabels, type Operator, type ProcessTree } from './tree.js';
export { inductiveMiner, MAX_CONCURRENT_SEARCH, MinerMemo } from './inductive.js';
export { Language } from './language.js';
export { replayVariants, type Replay } from './replay.js';
export type { VariantLog } from './log.js';

/** The noise thresholds tried, in order; 0 (the plain Inductive Miner, which accepts every case) only when none of them accepts MIN_ACCEPTANCE. */
export const NOISE_THRESHOLDS: readonly number[] = [0.1, 0.2, 0.3];
export const FALLBACK_THRESHOLD = 0;
/** A threshold is only chosen if its tree accepts at least this share of cases. */
export const MIN_ACCEPTANCE = 0.5;

export interface ModelTrial {
  noiseThreshold: number;
  acceptedShare: number;
  precision: number;
  score: number;
}

export interface MinedModel {
  tree: ProcessTree;
  /** pm4py's syntax (printTree). */
  text: string;
  noiseThreshold: number;
  acceptedCases: number;
  cases: number;
  /** Escaping-edges precision of the tree and of the flower model over the same activities. */
  precision: number;
  flowerPrecision: number;
  /** Per variant key (tally.variants' keys): does the tree accept it. */
  acceptedVariants: Map<string, boolean>;
  trials: ModelTrial[];
}

/**
 * Variant keys (JSON paths) with counts -> the miner's integer log, activity
 * ids in sorted label order. Keys stay in map order: nothing the miner or the
 * replay computes depends on the order of variants.
 */
export function variantLog(variants: ReadonlyMap<string, number>): { log: VariantLog; labels: string[]; keys: string[] } {
  const keys = [...variants.keys()];
  const first = new Map<string, number>();
  const idOf = (label: string) => {
    let id = first.get(label);
    if (id === undefined) first.set(label, (id = first.size));
    return id;
  };
  // Keys are parsed as the pieces between '","' when no backslash is in them (then no label holds
  // a quote or an escape), else by JSON.parse. Consecutive keys mostly share a long prefix (stores
  // keep them sorted), so the pieces wholly inside the prefix shared with the previous key are
  // taken over from it and only the rest is cut and looked up.
  let prevKey = '';
  // Keys in ascending order, none escaped: the traces then come in prefix-tree order (see markPrefixOrdered).
  let prefixOrder = true;
  let prevStarts: number[] = [];
  let prevTrace: number[] = [];
  const traces = keys.map((k) => {
    if (k.includes('\\') || !k.startsWith('["') || !k.endsWith('"]')) {
      prefixOrder = false;
      prevKey = '';
      prevStarts = [];
      prevTrace = [];
      return (JSON.parse(k) as string[]).map(idOf);
    }
    // Piece j is shared when the keys agree up to the start of piece j + 1 (its closing '","'
    // included); that holds for the first few pieces only, so a binary search finds how many.
    let shared = 0;
    let hi = prevStarts.length - 1;
    while (shared < hi) {
      const mid = (shared + hi + 1) >>> 1;
      const upTo = prevStarts[mid]!;
      if (upTo <= k.length && k.slice(0, upTo) === prevKey.slice(0, upTo)) shared = mid;
      else hi = mid - 1;
    }
    const t = prevTrace.slice(0, shared);
    const starts = prevStarts.slice(0, shared);
    const end = k.length - 2;
    let pos = shared > 0 ? prevStarts[shared]! : 2;
    for (;;) {
      let next = k.indexOf('","', pos);
      if (next < 0 || next > end) next = end;
      starts.push(pos);
      t.push(idOf(k.slice(pos, next)));
      if (next === end) break;
      pos = next + 3;
    }
    prevKey = k;
    prevStarts = starts;
    prevTrace = t;
    return t;
  });
  const labels = [...first.keys()].sort(cmp);
  const remap = new Int32Array(labels.length);
  labels.forEach((l, i) => (remap[first.get(l)!] = i));
  // The ids are remapped in place, and traces share no arrays (slice above), so each is remapped once.
  for (const t of traces) for (let i = 0; i < t.length; i++) t[i] = remap[t[i]!]!;
  const log: VariantLog = { traces, counts: keys.map((k) => variants.get(k)!) };
  for (let i = 1; i < keys.length && prefixOrder; i++) if (cmp(keys[i - 1]!, keys[i]!) >= 0) prefixOrder = false;
  if (prefixOrder) markPrefixOrdered(log);
  return { log, labels, keys };
}

export type PreparedLog = ReturnType<typeof variantLog>;

/**
 * Mines IMf trees for each threshold in NOISE_THRESHOLDS and keeps the one
 * with the best harmonic mean of accepted share and precision among those
 * accepting at least MIN_ACCEPTANCE of cases (ties: the earlier threshold);
 * when none does, the plain Inductive Miner's tree (threshold 0) joins the
 * trials, and the one accepting most wins. `prepared`: variantLog(variants)
 * when the caller has it already (the document builder shares it with the reading).
 */
export function discoverModel(variants: ReadonlyMap<string, number>, thresholds: readonly number[] = NOISE_THRESHOLDS, prepared: PreparedLog = variantLog(variants)): MinedModel {
  const { log, labels, keys } = prepared;
  let best: MinedModel | undefined;
  let bestScore = -1;
  const trials: ModelTrial[] = [];
  const seen = new Map<string, ModelTrial>();
  const memo = new MinerMemo();
  const trial = (noise: number) => {
    const tree = inductiveMiner(log, labels, noise, memo);
    const text = printTree(tree);
    const again = seen.get(text);
    if (again) {
      trials.push({ ...again, noiseThreshold: noise });
      return;
    }
    const r = replayVariants(tree, log, labels);
    const share = r.cases ? r.acceptedCases / r.cases : 1;
    const f = share + r.precision > 0 ? (2 * share * r.precision) / (share + r.precision) : 0;
    const score = share >= MIN_ACCEPTANCE ? 1 + f : share;
    const t = { noiseThreshold: noise, acceptedShare: share, precision: r.precision, score };
    trials.push(t);
    seen.set(text, t);
    if (score > bestScore) {
      bestScore = score;
      best = {
        tree,
        text,
        noiseThreshold: noise,
        acceptedCases: r.acceptedCases,
        cases: r.cases,
        precision: r.precision,
        flowerPrecision: r.flowerPrecision,
        acceptedVariants: new Map(keys.map((k, i) => [k, r.accepted[i]!])),
        trials,
      };
    }
  };
  for (const noise of thresholds) trial(noise);
  if (bestScore < 1 && !thresholds.includes(FALLBACK_THRESHOLD)) trial(FALLBACK_THRESHOLD);
  return best!;
}
