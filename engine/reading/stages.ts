import { cmp } from '../event.js';
import { parseTree, safeLabel, type ProcessTree } from '../mining/tree.js';
import { quantile } from '../sketch.js';
import { edgeKey } from '../tally.js';
import type { Stage } from '../document/types.js';
import type { Facts } from './facts.js';

export interface StageReading {
  stages: Stage[];
  stageOf: Map<string, string>;
  /** Stage index per activity (0-based, in case order). */
  index: Map<string, number>;
  method: string;
}

/**
 * Stages are consecutive pieces of the main path (the distinct activities of
 * the commonest variant). The path is cut only between children of the
 * process tree's sequences (a cut never splits a loop or parallel block), at the boundaries with the longest median wait, into
 * about one stage per four activities (at most six). Every other activity
 * joins the stage of the first main-path step that usually (in at least half
 * the cases with both) comes after it, else of the last one usually before it.
 */
const MIN_STAGE_STEPS = 2;

export function readStages(f: Facts, processTree: string): StageReading {
  const main = f.mainPath;
  if (main.length === 0) return { stages: [], stageOf: new Map(), index: new Map(), method: 'no cases: no stages' };
  const chains = treeChains(processTree);
  const allowed: number[] = [];
  for (let i = 0; i + 1 < main.length; i++) {
    if (chains.size === 0 || cuttable(chains.get(safeLabel(main[i]!)), chains.get(safeLabel(main[i + 1]!)))) allowed.push(i);
  }
  const wanted = Math.min(6, Math.max(1, Math.round(f.activities.length / 4)));
  const gap = (i: number) => {
    const e = f.tally.edges.get(edgeKey(main[i]!, main[i + 1]!));
    return e && e.wait.size ? quantile(e.wait, 0.5) : 0;
  };
  // Greedy by gap: a cut is taken unless it leaves a stage with a single main-path step.
  const cuts: number[] = [];
  for (const c of allowed.map((i) => ({ i, gap: gap(i) })).sort((a, b) => b.gap - a.gap || a.i - b.i)) {
    if (cuts.length >= wanted - 1) break;
    const bounds = [-1, ...cuts, c.i, main.length - 1].sort((a, b) => a - b);
    if (bounds.every((b, k) => k === 0 || b - bounds[k - 1]! >= MIN_STAGE_STEPS)) cuts.push(c.i);
  }
  cuts.sort((a, b) => a - b);
  const mainStage = new Map<string, number>();
  let s = 0;
  main.forEach((a, i) => {
    mainStage.set(a, s);
    if (cuts.includes(i)) s++;
  });
  const index = new Map(mainStage);
  const tree = treeOf(processTree);
  for (const a of f.activities) {
    if (index.has(a)) continue;
    const block = tree ? mainInSmallestBlock(tree, safeLabel(a), new Set(main.map(safeLabel))) : undefined;
    const blockStages = new Set((block ?? []).map((m) => mainStage.get(main.find((x) => safeLabel(x) === m)!)!));
    if (blockStages.size === 1) {
      index.set(a, [...blockStages][0]!);
      continue;
    }
    const after = main.find((m) => usuallyBefore(f, a, m));
    const before = [...main].reverse().find((m) => usuallyBefore(f, m, a));
    index.set(a, after !== undefined ? mainStage.get(after)! : before !== undefined ? mainStage.get(before)! : 0);
  }
  const meanFirst = meanFirstPosition(f);
  const stages: Stage[] = [];
  const stageOf = new Map<string, string>();
  for (let k = 0; k <= s; k++) {
    const members = [...index.entries()].filter(([, i]) => i === k).map(([a]) => a);
    members.sort((x, y) => (meanFirst.get(x) ?? 0) - (meanFirst.get(y) ?? 0) || cmp(x, y));
    const onMain = main.filter((m) => mainStage.get(m) === k);
    const name = onMain.length === 1 ? onMain[0]! : `${onMain[0]} to ${onMain[onMain.length - 1]}`;
    const id = `stage-${k + 1}`;
    stages.push({ id, name, activities: members });
    for (const m of members) stageOf.set(m, id);
  }
  const method =
    `main path of ${main.length} steps cut at ${cuts.length} of ${allowed.length} allowed boundaries (between two children of a sequence of the process tree, never inside a loop or parallel block${chains.size ? '' : '; the tree could not be read, so every boundary is allowed'}) with the longest median wait, aiming at one stage per four activities (at most six); ` +
    `each stage holds at least ${MIN_STAGE_STEPS} main-path steps; an activity off the main path joins the stage of the main-path steps in the smallest tree block holding both (when they share one stage), else of the first main-path step that usually follows it, else of the last one that usually precedes it; a stage is named by its first and last main-path step`;
  return { stages, stageOf, index, method };
}

function usuallyBefore(f: Facts, a: string, b: string): boolean {
  const o = f.order(a, b);
  return o.both > 0 && o.aFirst * 2 >= o.both;
}

function meanFirstPosition(f: Facts): Map<string, number> {
  // Per activity id, the sum of first positions weighted by cases, in variant order.
  const n = f.activities.length;
  const s = new Float64Array(n);
  const c = new Float64Array(n);
  const seen = new Int32Array(n).fill(-1);
  const met: number[] = [];
  f.variants.forEach((v, vi) => {
    const ids = v.ids;
    for (let i = 0; i < ids.length; i++) {
      const k = ids[i]!;
      if (k < 0 || seen[k] === vi) continue;
      if (seen[k] === -1) met.push(k);
      seen[k] = vi;
      s[k]! += i * v.count;
      c[k]! += v.count;
    }
  });
  // In order of first appearance over the variants, as a map filled variant by variant would be.
  return new Map(met.map((k) => [f.activities[k]!, c[k] ? s[k]! / c[k]! : 0]));
}

type Chain = { node: number; index: number }[];

/**
 * Per activity, its sequence ancestors in the process tree with the child
 * index it sits under (-1 under a loop or parallel block, which is never cut).
 * Choices are passed through, so the main branch of a top-level choice still
 * offers its own sequence boundaries.
 */
export function treeChains(processTree: string): Map<string, Chain> {
  const tree = treeOf(processTree);
  if (!tree) return new Map();
  const out = new Map<string, Chain>();
  let ids = 0;
  const walk = (t: ProcessTree, chain: Chain) => {
    if (t.kind === 'activity') {
      if (!out.has(t.label)) out.set(t.label, chain);
      return;
    }
    if (t.kind === 'tau') return;
    const id = ids++;
    t.children.forEach((c, i) => {
      if (t.kind === 'sequence') walk(c, [...chain, { node: id, index: i }]);
      else if (t.kind === 'xor') walk(c, chain);
      else walk(c, [...chain, { node: id, index: -1 }]);
    });
  };
  walk(tree, []);
  return out;
}

/** A stage boundary may fall between a and b when, at their deepest shared sequence, a's child comes before b's. */
function cuttable(a: Chain | undefined, b: Chain | undefined): boolean {
  if (!a || !b) return false;
  for (let k = 0; k < Math.min(a.length, b.length); k++) {
    if (a[k]!.node !== b[k]!.node || a[k]!.index === -1) return false;
    if (a[k]!.index !== b[k]!.index) return a[k]!.index < b[k]!.index;
  }
  return false;
}

function treeOf(text: string): ProcessTree | undefined {
  try {
    return parseTree(text);
  } catch {
    return undefined;
  }
}

/** The main-path labels in the smallest block of the tree that holds `label` and at least one of them. */
function mainInSmallestBlock(tree: ProcessTree, label: string, main: Set<string>): string[] | undefined {
  const labelsOf = (t: ProcessTree): string[] => (t.kind === 'activity' ? [t.label] : t.kind === 'tau' ? [] : t.children.flatMap(labelsOf));
  const path: ProcessTree[] = [];
  const find = (t: ProcessTree): boolean => {
    path.push(t);
    if (t.kind === 'activity' && t.label === label) return true;
    if (t.kind !== 'activity' && t.kind !== 'tau') for (const c of t.children) if (find(c)) return true;
    path.pop();
    return false;
  };
  if (!find(tree)) return undefined;
  for (let k = path.length - 2; k >= 0; k--) {
    const inMain = labelsOf(path[k]!).filter((l) => main.has(l));
    if (inMain.length) return inMain;
  }
  return undefined;
}
