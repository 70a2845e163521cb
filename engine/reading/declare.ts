import { cmp } from '../event.js';
import type { SequenceRule } from '../document/types.js';
import { atMostWeak, evidence, pct, q, ratio, slug, strengthOf, type Facts } from './facts.js';
import { orderFragile, type Ties } from './ties.js';

export const RULE_HOLDS = 0.95;
const MIN_ACTIVITY_SHARE = 0.05;
const MAX_ACTIVITIES = 30;

/**
 * A rule's quantifier matches its share: the absolute word ("always", "only", "never", "a case") stands alone only
 * where the rule holds in every activating case; below that the sentence carries the share ("in 95.1% of the cases
 * with 'a'"), the same figure as the rule's `holds` (test/document/audit-reading.ts reads it back).
 */
const inShare = (holds: number, of: number, all: string, some: string): string => (holds === of ? all : `${partShare(holds, of)} of ${some}`);
const tail = (holds: number, of: number, some: string): string => (holds === of ? '' : ` in ${partShare(holds, of)} of ${some}`);
/** A share below 1 never printed as 100% (99.96% reads 99.9%): the figure must not say "all" either. */
const partShare = (holds: number, of: number): string => (holds < of && pct(ratio(holds, of)) === '100%' ? '99.9%' : pct(ratio(holds, of)));

/**
 * Declare constraints counted over the variants, each with the share of the
 * cases that activate it (contain its first activity; both for not
 * co-existence) where it holds. Kept when it holds in at least 95% of at least
 * max(5, 5% of all) activating cases. Activities of fewer than 5% of cases
 * (at most the 30 commonest) are left out; response and precedence are
 * pruned transitively (a->c is dropped when a->b and b->c are kept).
 */
interface PairGroup {
  /** Present activities in first-occurrence order, and in last-occurrence order backwards. */
  present: number[];
  lastRev: number[];
  /** Per index into present, its rank in last-occurrence order. */
  lastRank: number[];
  count: number;
}

export function readSequenceRules(f: Facts, ties: Ties, instead: ReadonlyMap<string, readonly string[]> = new Map()): { rules: SequenceRule[]; method: string } {
  const acts = f.activities
    .filter((a) => (f.activityCases.get(a) ?? 0) >= MIN_ACTIVITY_SHARE * f.cases)
    .sort((a, b) => (f.activityCases.get(b) ?? 0) - (f.activityCases.get(a) ?? 0) || cmp(a, b))
    .slice(0, MAX_ACTIVITIES)
    .sort(cmp);
  const minActivations = Math.max(5, Math.ceil(0.05 * f.cases));
  const n = acts.length;
  const idx = new Map(acts.map((a, i) => [a, i]));
  // Counted per variant over the activities it holds only (pairs of present activities); the
  // activation counts follow from the per-activity ones: every present a activates a->b for all b.
  const resp = new Float64Array(n * n), prec = new Float64Array(n * n), chain = new Float64Array(n * n), both = new Float64Array(n * n);
  const once = new Array<number>(n).fill(0);
  const onceAct = new Array<number>(n).fill(0);
  const first = new Int32Array(n).fill(-1);
  const times = new Int32Array(n);
  /** The only act that directly follows a, -1 none yet, -2 not a single act. */
  const next = new Int32Array(n);
  const atEnd = idx.get('') ?? -2;
  /** Facts.activities index -> index in acts, or -1. */
  const actIdx = Int32Array.from(f.activities, (a) => idx.get(a) ?? -1);
  const actOf = (x: number) => (x < 0 ? -1 : actIdx[x]!);
  const present: number[] = [];
  const lastRev: number[] = [];
  const rankOf = new Int32Array(n);
  const pairGroups = new Map<number, PairGroup[]>();
  for (const v of f.variants) {
    const ids = v.ids;
    const len = ids.length;
    present.length = 0;
    let k = len ? actOf(ids[0]!) : -1;
    for (let i = 0; i < len; i++) {
      const here = k;
      k = i + 1 < len ? actOf(ids[i + 1]!) : -1;
      if (here < 0) continue;
      if (first[here] === -1) {
        first[here] = i;
        times[here] = 0;
        next[here] = -1;
        present.push(here);
      }
      times[here]! += 1;
      const after = i + 1 < len ? k : atEnd;
      if (after < 0) next[here] = -2;
      else if (next[here] === -1) next[here] = after;
      else if (next[here] !== after) next[here] = -2;
    }
    const c = v.count;
    for (const a of present) {
      onceAct[a]! += c;
      if (times[a] === 1) once[a]! += c;
      if (next[a]! >= 0 && next[a] !== a) chain[a * n + next[a]!]! += c;
    }
    // The pair counts depend only on the order of first and of last occurrences of the present
    // activities: variants alike in both are merged (far fewer than variants) and counted after
    // the loop. Found by a numeric hash of the two orders (the last order read backwards).
    const m = present.length;
    lastRev.length = 0;
    for (let i = len - 1; i >= 0; i--) {
      const here = actOf(ids[i]!);
      if (here >= 0 && first[here] !== -1) {
        lastRev.push(here);
        first[here] = -1;
      }
    }
    let h = 0x811c9dc5;
    for (let i = 0; i < m; i++) h = Math.imul(h ^ present[i]!, 0x01000193);
    for (let i = 0; i < m; i++) h = Math.imul(h ^ lastRev[i]!, 0x01000193);
    const same = (g: PairGroup) => {
      if (g.present.length !== m) return false;
      for (let i = 0; i < m; i++) if (g.present[i] !== present[i] || g.lastRev[i] !== lastRev[i]) return false;
      return true;
    };
    const bucket = pairGroups.get(h);
    const g = bucket?.find(same);
    if (g) g.count += c;
    else {
      const made: PairGroup = { present: present.slice(), lastRev: lastRev.slice(), lastRank: present.slice(), count: c };
      // Rank in last-occurrence order, per index into present.
      for (let r = 0; r < m; r++) rankOf[lastRev[r]!] = m - 1 - r;
      for (let i = 0; i < m; i++) made.lastRank[i] = rankOf[present[i]!]!;
      if (bucket) bucket.push(made);
      else pairGroups.set(h, [made]);
    }
  }
  // Each unordered pair once: a and b have distinct first and last positions, so the pair's
  // counts in the other direction follow as both minus these (filled in after the loop).
  for (const bucket of pairGroups.values()) {
    for (const { present: p, lastRank: ls, count: c } of bucket) {
      const m = p.length;
      for (let i = 0; i < m; i++) {
        const a = p[i]!;
        const la = ls[i]!;
        for (let j = 0; j < m; j++) {
          const b = p[j]!;
          if (b <= a) continue;
          const ab = a * n + b;
          both[ab]! += c;
          if (ls[j]! > la) resp[ab]! += c;
          // present is in first-occurrence order.
          if (i < j) prec[ab]! += c;
        }
      }
    }
  }
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const ab = a * n + b;
      const ba = b * n + a;
      both[ba] = both[ab]!;
      resp[ba] = both[ab]! - resp[ab]!;
      prec[ba] = both[ab]! - prec[ab]!;
    }
  }
  const respAct = new Float64Array(n * n), chainAct = respAct, precAct = new Float64Array(n * n), coex = new Float64Array(n * n), either = new Float64Array(n * n);
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      if (a === b) continue;
      respAct[a * n + b] = onceAct[a]!;
      precAct[a * n + b] = onceAct[b]!;
      if (b > a) {
        either[a * n + b] = onceAct[a]! + onceAct[b]! - both[a * n + b]!;
        coex[a * n + b] = either[a * n + b]! - both[a * n + b]!;
      }
    }
  }
  const keep = (holds: number, of: number) => of >= minActivations && holds >= RULE_HOLDS * of;
  const rules: SequenceRule[] = [];
  const add = (type: SequenceRule['type'], name: string, statement: string, activities: string[], holds: number, of: number) => {
    // An order rule the file order of tied events could break (counted against it, they take it under the cut) is at most weak.
    const fragile = activities.length >= 2 && name !== 'not_coexistence' ? orderFragile(ties, activities[0]!, activities[activities.length - 1]!, holds, of, RULE_HOLDS) : undefined;
    const strength = strengthOf(of, ratio(holds, of));
    rules.push({
      id: `${name}-${activities.map(slug).join('-')}`,
      type,
      statement,
      activities,
      holds: ratio(holds, of),
      evidence: evidence(
        holds,
        of,
        ratio(holds, of),
        fragile !== undefined ? atMostWeak(strength) : strength,
        `${name} counted over the variants: holds in ${holds} of the ${of} cases that activate it (${pct(ratio(holds, of))}); kept at >= ${RULE_HOLDS * 100}%` +
          (fragile !== undefined ? `; ${fragile}: at most weak` : ''),
      ),
    });
  };
  for (let a = 0; a < n; a++) if (keep(once[a]!, onceAct[a]!)) add('at_most_once', 'at_most_once', `${q(acts[a]!)} happens at most once in ${inShare(once[a]!, onceAct[a]!, `a case`, `the cases with it`)}.`, [acts[a]!], once[a]!, onceAct[a]!);
  const kept = (m: Float64Array, act: Float64Array, a: number, b: number) => a !== b && keep(m[a * n + b]!, act[a * n + b]!);
  const reduced = (m: Float64Array, act: Float64Array, a: number, b: number) => {
    for (let c = 0; c < n; c++) if (c !== a && c !== b && kept(m, act, a, c) && kept(m, act, c, b)) return false;
    return true;
  };
  // Precedence on a step other steps are done instead of: counted over all of them too (b after a or any of its
  // channels), kept and pruned like the rest.
  const anyOf = new Map<number, { holds: number; of: number }>();
  for (let a = 0; a < n; a++) {
    const ways = instead.get(acts[a]!);
    if (!ways?.length) continue;
    // Only where no one of them alone precedes b: a step of one channel follows that channel, not "either".
    const targets = acts.filter((x, b) => a !== b && !ways.includes(x) && !ways.some((w) => idx.has(w) && kept(prec, precAct, idx.get(w)!, b)));
    for (const [b, counts] of precededByAny(f, [acts[a]!, ...ways], targets)) anyOf.set(a * n + idx.get(b)!, counts);
  }
  const keptPrec = (a: number, b: number) => {
    const either = anyOf.get(a * n + b);
    return kept(prec, precAct, a, b) || (either !== undefined && keep(either.holds, either.of));
  };
  const reducedPrec = (a: number, b: number) => {
    for (let c = 0; c < n; c++) if (c !== a && c !== b && keptPrec(a, c) && keptPrec(c, b)) return false;
    return true;
  };
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      if (kept(resp, respAct, a, b) && reduced(resp, respAct, a, b))
        add('response', 'response', `After ${q(acts[a]!)}, ${q(acts[b]!)} eventually follows${tail(resp[a * n + b]!, respAct[a * n + b]!, `the cases with ${q(acts[a]!)}`)}.`, [acts[a]!, acts[b]!], resp[a * n + b]!, respAct[a * n + b]!);
      if (keptPrec(a, b) && reducedPrec(a, b)) {
        // Where other steps are done instead of a (another channel for it), b may follow any of them: say so.
        const either = anyOf.get(a * n + b);
        if (either && either.holds * precAct[a * n + b]! > prec[a * n + b]! * either.of)
          add('precedence', 'precedence', `${q(acts[b]!)} happens only after ${[acts[a]!, ...instead.get(acts[a]!)!].map(q).join(' or ')}${tail(either.holds, either.of, `the cases with ${q(acts[b]!)}`)}.`, [acts[a]!, ...instead.get(acts[a]!)!, acts[b]!], either.holds, either.of);
        else add('precedence', 'precedence', `${q(acts[b]!)} happens only after ${q(acts[a]!)}${tail(prec[a * n + b]!, precAct[a * n + b]!, `the cases with ${q(acts[b]!)}`)}.`, [acts[a]!, acts[b]!], prec[a * n + b]!, precAct[a * n + b]!);
      }
      if (kept(chain, chainAct, a, b))
        add('other', 'chain_response', `${q(acts[a]!)} is ${chain[a * n + b]! === chainAct[a * n + b]! ? 'always ' : ''}directly followed by ${q(acts[b]!)}${tail(chain[a * n + b]!, chainAct[a * n + b]!, `the cases with ${q(acts[a]!)}`)}.`, [acts[a]!, acts[b]!], chain[a * n + b]!, chainAct[a * n + b]!);
      if (a < b && keep(coex[a * n + b]!, either[a * n + b]!))
        add('other', 'not_coexistence', coex[a * n + b]! === either[a * n + b]! ? `${q(acts[a]!)} and ${q(acts[b]!)} never occur in the same case.` : `${q(acts[a]!)} and ${q(acts[b]!)} do not occur together in ${inShare(coex[a * n + b]!, either[a * n + b]!, '', 'the cases with either')}.`, [acts[a]!, acts[b]!], coex[a * n + b]!, either[a * n + b]!);
    }
  }
  const method = `Declare constraints (at_most_once, response, precedence, chain_response and not_coexistence as other) counted over the variants on activities of at least ${MIN_ACTIVITY_SHARE * 100}% of cases (the ${MAX_ACTIVITIES} commonest at most); kept when they hold in at least ${RULE_HOLDS * 100}% of at least ${minActivations} activating cases; response and precedence pruned transitively; a precedence on a step other steps are done instead of names them all; an order rule that the file order of events at one timestamp could break is at most weak`;
  return { rules, method };
}

/** Per target b: the cases with b, and those whose first b comes after one of `before` (one pass over the variants). */
function precededByAny(f: Facts, before: readonly string[], targets: readonly string[]): Map<string, { holds: number; of: number }> {
  const ids = new Set(before.map((a) => f.idOf.get(a)));
  const wanted = new Map(targets.map((b) => [f.idOf.get(b)!, b]));
  const out = new Map(targets.map((b) => [b, { holds: 0, of: 0 }]));
  const seen = new Set<number>();
  for (const v of f.variants) {
    seen.clear();
    let after = false;
    for (const id of v.ids) {
      const b = wanted.get(id);
      if (b !== undefined && !seen.has(id)) {
        seen.add(id);
        const c = out.get(b)!;
        c.of += v.count;
        if (after) c.holds += v.count;
      }
      if (ids.has(id)) after = true;
    }
  }
  return out;
}
