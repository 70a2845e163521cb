import type { Plain, SequenceRule } from '../document/types.js';
import type { ProcessTree } from '../mining/tree.js';
import { cmp } from '../event.js';
import { q, type Facts } from './facts.js';

/**
 * What the reading takes from the mined process tree: the steps it requires
 * and which activities it runs concurrently. Both read the tree object, never
 * its printed text.
 */
export interface TreeFacts {
  /** Labels every trace of the tree contains (undefined without a tree). */
  required: Set<string> | undefined;
  /** Whether the tree runs a and b in parallel (their lowest common block is a parallel operator). */
  concurrent(a: string, b: string): boolean;
}

export function treeFacts(tree: ProcessTree | undefined): TreeFacts {
  // Per label, the chain of blocks above its first leaf: [block id, operator] from the root down.
  const chains = new Map<string, { id: number; kind: string }[]>();
  let ids = 0;
  const walk = (t: ProcessTree, chain: { id: number; kind: string }[]) => {
    if (t.kind === 'activity') {
      if (!chains.has(t.label)) chains.set(t.label, chain);
      return;
    }
    if (t.kind === 'tau') return;
    const here = [...chain, { id: ids++, kind: t.kind }];
    for (const c of t.children) walk(c, here);
  };
  if (tree) walk(tree, []);
  return {
    required: mandatoryLabels(tree),
    concurrent(a, b) {
      const ca = chains.get(a);
      const cb = chains.get(b);
      if (!ca || !cb || a === b) return false;
      let k = 0;
      while (k < ca.length && k < cb.length && ca[k]!.id === cb[k]!.id) k++;
      return k > 0 && ca[k - 1]!.kind === 'parallel';
    },
  };
}

/**
 * The labels every trace of the tree contains: a choice keeps what all its
 * branches share, a loop what its body holds, a sequence or parallel block
 * what any child holds. A step outside this set is optional in the model.
 */
export function mandatoryLabels(tree: ProcessTree | undefined): Set<string> | undefined {
  if (!tree) return undefined;
  const walk = (t: ProcessTree): Set<string> => {
    switch (t.kind) {
      case 'activity':
        return new Set([t.label]);
      case 'tau':
        return new Set();
      case 'xor': {
        const sets = t.children.map(walk);
        const [first, ...rest] = sets;
        return new Set([...(first ?? [])].filter((l) => rest.every((s) => s.has(l))));
      }
      case 'loop':
        return t.children.length ? walk(t.children[0]!) : new Set();
      default: {
        const out = new Set<string>();
        for (const c of t.children) for (const l of walk(c)) out.add(l);
        return out;
      }
    }
  };
  return walk(tree);
}

/** Tree-order questions asked one by one; the rest are named in one question. */
export const MAX_TREE_QUESTIONS = 3;
/** Sequence rule ids named in that question. */
const MAX_NAMED = 12;

/**
 * Where the mined tree and the counted order disagree: the tree runs a and b in parallel (+), yet a sequence rule
 * holding in every case says a comes first, and b never came before a in any case with both. Both cannot stand as
 * told: the tree (IMf cuts on the directly-follows graph, filtering infrequent hand-offs) allows an order the log
 * never shows. Not resolved here; each such pair becomes an open question, so neither is repeated silently.
 */
export function treeOrderConflicts(tree: TreeFacts, f: Facts, rules: readonly SequenceRule[]): Plain[] {
  const found: { a: string; b: string; both: number; rule: SequenceRule }[] = [];
  const seen = new Set<string>();
  for (const r of rules) {
    if ((r.type !== 'precedence' && r.type !== 'response') || r.holds < 1 || r.activities.length < 2) continue;
    const a = String(r.activities[0]);
    const b = String(r.activities[r.activities.length - 1]);
    const key = `${a}\u0000${b}`;
    if (seen.has(key) || !tree.concurrent(a, b)) continue;
    const o = f.order(a, b);
    if (o.both === 0 || o.aFirst < o.both) continue;
    seen.add(key);
    found.push({ a, b, both: o.both, rule: r });
  }
  // One question per pair repeats one doubt about one parallel block: the pairs covering most cases are asked, the
  // rest are named in one question pointing at their sequence rules.
  found.sort((x, y) => y.both - x.both || cmp(x.rule.id, y.rule.id));
  const out: Plain[] = found.slice(0, MAX_TREE_QUESTIONS).map(({ a, b, both, rule }) => ({
    question: `The mined process tree runs ${q(a)} and ${q(b)} in parallel, yet ${q(a)} came first in every one of the ${both} cases with both (sequence rule ${rule.id}): which holds? The tree allows an order the log never shows; the order is the counted one.`,
    evidence: { cases: both, share: 1, strength: rule.evidence.strength, method: `first occurrences of both activities counted over the variants, against the lowest common block of the two in the mined tree (parallel)` },
  }));
  const rest = found.slice(MAX_TREE_QUESTIONS);
  if (rest.length) {
    const ids = rest.map((x) => x.rule.id);
    out.push({
      question: `${rest.length} more pairs the mined process tree runs in parallel came in one order in every case with both, as above (from ${rest[0]!.both} cases down to ${rest[rest.length - 1]!.both}): the sequence rules ${ids.slice(0, MAX_NAMED).join(', ')}${ids.length > MAX_NAMED ? ` and ${ids.length - MAX_NAMED} more precedence and response rules holding in 100%` : ''}. Does the tree's parallel block hold for them?`,
      evidence: { cases: rest[0]!.both, share: 1, strength: rest[0]!.rule.evidence.strength, method: `the pair of these with the most cases; each counted as in the questions above` },
    });
  }
  return out;
}
