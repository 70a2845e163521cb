import { cmp } from '../event.js';
import type { SequenceRule } from '../document/types.js';
import { evidence, pct, q, ratio, slug, strengthOf, type Facts } from './facts.js';

export const RULE_HOLDS = 0.95;
const MIN_ACTIVITY_SHARE = 0.05;
const MAX_ACTIVITIES = 30;

/**
 * Declare constraints counted over the variants, each with the share of the
 * cases that activate it (contain its first activity; both for not
 * co-existence) where it holds. Kept when it holds in at least 95% of at least
 * max(5, 5% of all) activating cases. Activities of fewer than 5% of cases
 * (at most the 30 commonest) are left out; response and precedence are
 * pruned transitively (a->c is dropped when a->b and b->c are kept).
 */
export function readSequenceRules(f: Facts): { rules: SequenceRule[]; method: string } {
  const acts = f.activities
    .filter((a) => (f.activityCases.get(a) ?? 0) >= MIN_ACTIVITY_SHARE * f.cases)
    .sort((a, b) => (f.activityCases.get(b) ?? 0) - (f.activityCases.get(a) ?? 0) || cmp(a, b))
    .slice(0, MAX_ACTIVITIES)
    .sort(cmp);
  const minActivations = Math.max(5, Math.ceil(0.05 * f.cases));
  const n = acts.length;
  const idx = new Map(acts.map((a, i) => [a, i]));
  const z = () => Array.from({ length: n * n }, () => 0);
  const resp = z(), respAct = z(), prec = z(), precAct = z(), chain = z(), chainAct = z(), coex = z(), either = z();
  const once = new Array<number>(n).fill(0);
  const onceAct = new Array<number>(n).fill(0);
  for (const v of f.variants) {
    const first = new Array<number>(n).fill(-1);
    const last = new Array<number>(n).fill(-1);
    v.path.forEach((a, i) => {
      const k = idx.get(a);
      if (k === undefined) return;
      if (first[k] === -1) first[k] = i;
      last[k] = i;
    });
    for (let a = 0; a < n; a++) {
      if (first[a] === -1) continue;
      onceAct[a]! += v.count;
      if ((v.times.get(acts[a]!) ?? 0) === 1) once[a]! += v.count;
      // Chain response: every a is immediately followed by b.
      const nexts = new Set<number>();
      let allFollowed = true;
      v.path.forEach((x, i) => {
        if (x !== acts[a]) return;
        const k = idx.get(v.path[i + 1] ?? '');
        if (k === undefined) allFollowed = false;
        else nexts.add(k);
      });
      for (let b = 0; b < n; b++) {
        if (a === b) continue;
        const ab = a * n + b;
        respAct[ab]! += v.count;
        if (first[b] !== -1 && last[b]! > last[a]!) resp[ab]! += v.count;
        chainAct[ab]! += v.count;
        if (allFollowed && nexts.size === 1 && nexts.has(b)) chain[ab]! += v.count;
      }
    }
    for (let b = 0; b < n; b++) {
      if (first[b] === -1) continue;
      for (let a = 0; a < n; a++) {
        if (a === b) continue;
        precAct[a * n + b]! += v.count;
        if (first[a] !== -1 && first[a]! < first[b]!) prec[a * n + b]! += v.count;
      }
    }
    for (let a = 0; a < n; a++) {
      for (let b = a + 1; b < n; b++) {
        if (first[a] === -1 && first[b] === -1) continue;
        either[a * n + b]! += v.count;
        if (first[a] === -1 || first[b] === -1) coex[a * n + b]! += v.count;
      }
    }
  }
  const keep = (holds: number, of: number) => of >= minActivations && holds >= RULE_HOLDS * of;
  const rules: SequenceRule[] = [];
  const add = (type: SequenceRule['type'], name: string, statement: string, activities: string[], holds: number, of: number) =>
    rules.push({
      id: `${name}-${activities.map(slug).join('-')}`,
      type,
      statement,
      activities,
      holds: ratio(holds, of),
      evidence: evidence(holds, of, ratio(holds, of), strengthOf(of, ratio(holds, of)), `${name} counted over the variants: holds in ${holds} of the ${of} cases that activate it (${pct(ratio(holds, of))}); kept at >= ${RULE_HOLDS * 100}%`),
    });
  for (let a = 0; a < n; a++) if (keep(once[a]!, onceAct[a]!)) add('at_most_once', 'at_most_once', `${q(acts[a]!)} happens at most once in a case.`, [acts[a]!], once[a]!, onceAct[a]!);
  const kept = (m: number[], act: number[], a: number, b: number) => a !== b && keep(m[a * n + b]!, act[a * n + b]!);
  const reduced = (m: number[], act: number[], a: number, b: number) => {
    for (let c = 0; c < n; c++) if (c !== a && c !== b && kept(m, act, a, c) && kept(m, act, c, b)) return false;
    return true;
  };
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      if (kept(resp, respAct, a, b) && reduced(resp, respAct, a, b))
        add('response', 'response', `After ${q(acts[a]!)}, ${q(acts[b]!)} eventually follows.`, [acts[a]!, acts[b]!], resp[a * n + b]!, respAct[a * n + b]!);
      if (kept(prec, precAct, a, b) && reduced(prec, precAct, a, b))
        add('precedence', 'precedence', `${q(acts[b]!)} happens only after ${q(acts[a]!)}.`, [acts[a]!, acts[b]!], prec[a * n + b]!, precAct[a * n + b]!);
      if (kept(chain, chainAct, a, b))
        add('other', 'chain_response', `${q(acts[a]!)} is always directly followed by ${q(acts[b]!)}.`, [acts[a]!, acts[b]!], chain[a * n + b]!, chainAct[a * n + b]!);
      if (a < b && keep(coex[a * n + b]!, either[a * n + b]!))
        add('other', 'not_coexistence', `${q(acts[a]!)} and ${q(acts[b]!)} never occur in the same case.`, [acts[a]!, acts[b]!], coex[a * n + b]!, either[a * n + b]!);
    }
  }
  const method = `Declare constraints (at_most_once, response, precedence, chain_response and not_coexistence as other) counted over the variants on activities of at least ${MIN_ACTIVITY_SHARE * 100}% of cases (the ${MAX_ACTIVITIES} commonest at most); kept when they hold in at least ${RULE_HOLDS * 100}% of at least ${minActivations} activating cases; response and precedence pruned transitively`;
  return { rules, method };
}
