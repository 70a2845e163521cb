import { cmp } from '../event.js';
import { FOLDS, splitChoiceKey } from '../tally.js';
import type { Decision, Plain, Rule } from '../document/types.js';
import { evidence, parallel, pct, q, ratio, slug, strengthOf, successors, type Facts } from './facts.js';

export const BRANCH_MIN_SHARE = 0.05;
export const EXPLAINED_MARGIN = 0.1;

type Folds = number[];
const zeros = (): Folds => new Array<number>(FOLDS).fill(0);
const sum = (x: Folds): number => x.reduce((a, b) => a + b, 0);

interface Point {
  base: Map<string, Folds>;
  /** attribute -> value -> branch -> folds */
  attrs: Map<string, Map<string, Map<string, Folds>>>;
}

/** The choice counters regrouped by decision point. */
function pointsOf(choices: Map<string, number>): Map<string, Point> {
  const points = new Map<string, Point>();
  for (const [key, n] of choices) {
    const c = splitChoiceKey(key);
    let p = points.get(c.at);
    if (!p) points.set(c.at, (p = { base: new Map(), attrs: new Map() }));
    if (c.attribute === '') {
      get(p.base, c.next, zeros)[c.fold]! += n;
    } else {
      const byValue = get(p.attrs, c.attribute, () => new Map<string, Map<string, Folds>>());
      get(get(byValue, c.value, () => new Map<string, Folds>()), c.next, zeros)[c.fold]! += n;
    }
  }
  return points;
}

function get<K, V>(m: Map<K, V>, k: K, make: () => V): V {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = make()));
  return v;
}

/** A learned one-attribute rule: predicts a branch from a value group. */
interface Model {
  predict(value: string | undefined): string;
  /** Groups shown as rules: condition -> predicted branch. */
  groups(): { when: Plain; values: (string | undefined)[]; then: string }[];
}

/**
 * Decisions: where the hand-offs out of an activity split. A branch has real
 * volume with at least 5% of the departures and two cases; a branch parallel (see facts.parallel) to the activity or to a larger
 * branch is an interleaving of concurrent work, not a choice.
 * Rules learn from each activity's first visit and the step right after it
 * (the counters keep no later visits): 1R (one attribute per decision; numbers split at one 1-2-5 bin
 * boundary, other values grouped by their commonest branch) trained on four
 * hash folds of the case id and scored on the fifth, all five in turn.
 */
export function readDecisions(f: Facts): { decisions: Decision[]; method: string } {
  const points = pointsOf(f.tally.choices);
  const decisions: Decision[] = [];
  for (const at of f.activities) {
    const p = points.get(at) ?? { base: new Map(), attrs: new Map() };
    const out = successors(f, at);
    const departures = out.reduce((n, e) => n + e.events, 0);
    let branches = out
      .filter((e) => e.cases >= 2 && e.events >= BRANCH_MIN_SHARE * departures)
      .map((e) => ({ to: e.to, cases: e.cases, events: e.events }))
      .sort((a, b) => b.events - a.events || cmp(a.to, b.to));
    branches = branches.filter((b, i) => !parallel(f, at, b.to) && !branches.slice(0, i).some((big) => parallel(f, big.to, b.to)));
    if (branches.length < 2) continue;
    const total = branches.reduce((n, b) => n + b.events, 0);
    if (total < 5) continue;
    const labels = branches.map((b) => b.to);
    const baseline = branches[0]!.events / total;
    // The rules learn from first visits only; their baseline is the commonest branch there.
    const firstVisits = labels.map((l) => sum(p.base.get(l) ?? zeros()));
    const firstTotal = firstVisits.reduce((a, b) => a + b, 0);
    const firstBaseline = firstTotal ? Math.max(...firstVisits) / firstTotal : 0;
    const best = firstTotal ? learn(p, labels) : undefined;
    const explained = best !== undefined && best.accuracy - firstBaseline >= EXPLAINED_MARGIN;
    const rules: Rule[] = [];
    if (best && best.accuracy > firstBaseline) {
      for (const g of best.model.groups()) {
        let cases = 0;
        let hits = 0;
        for (const v of g.values) {
          const byBranch = v === undefined ? missing(p, best.attribute, labels) : p.attrs.get(best.attribute)?.get(v);
          for (const l of labels) {
            const n = sum(byBranch?.get(l) ?? zeros());
            cases += n;
            if (l === g.then) hits += n;
          }
        }
        if (!cases) continue;
        rules.push({
          id: `rule-${slug(at)}-${rules.length + 1}`,
          when: [g.when],
          then: g.then,
          cases,
          holds: ratio(hits, cases),
          evidence: evidence(
            hits,
            cases,
            ratio(hits, cases),
            explained ? strengthOf(cases, ratio(hits, cases)) : 'weak',
            `1R on the attributes known at the first visit of ${q(at)}: ${q(best.attribute)} is the best single attribute; held-out accuracy ${pct(best.accuracy)} over ${FOLDS} hash folds of the case id against the commonest-branch share ${pct(firstBaseline)} at first visits`,
          ),
        });
      }
    }
    decisions.push({
      id: `decision-${slug(at)}`,
      at,
      branches: branches.map((b) => ({ to: b.to, cases: b.cases, share: ratio(b.events, total) })),
      baseline_share: baseline,
      rules,
      explained,
      evidence: evidence(
        firstTotal,
        f.activityCases.get(at) ?? 0,
        ratio(firstTotal, f.activityCases.get(at) ?? 0),
        'counted',
        `branches: directly-follows counts out of ${q(at)} (cases with the hand-off; share of the ${total} departures into the ${branches.length} branches, each at least ${BRANCH_MIN_SHARE * 100}% of all departures); ` +
          `rules: ${firstTotal} cases whose first visit of ${q(at)} is followed by a branch; ` +
          (best
            ? `best attribute ${q(best.attribute)}: held-out accuracy ${pct(best.accuracy)} vs ${pct(firstBaseline)} for the commonest branch, explained when at least ${EXPLAINED_MARGIN * 100} points above`
            : 'no attribute known at that point'),
      ),
    });
  }
  const method =
    `decisions where the directly-follows counts out of an activity split into two or more branches with at least ${BRANCH_MIN_SHARE * 100}% of its departures and 2 cases each, parallel interleavings left out; baseline_share is the commonest branch's share of departures; ` +
    `rules by 1R, learned at each activity's first visit (the step directly after it), over case and event attributes known at that point (numbers in 1-2-5 bins, strings of up to 40 characters), scored on held-out hash folds of the case id; explained when at least ${EXPLAINED_MARGIN * 100} points above the commonest-branch share`;
  return { decisions, method };
}


/** Cases without a value of the attribute, per branch. */
function missing(p: Point, attribute: string, labels: string[]): Map<string, Folds> {
  const out = new Map<string, Folds>();
  const values = p.attrs.get(attribute);
  for (const l of labels) {
    const m = [...(p.base.get(l) ?? zeros())];
    for (const byBranch of values?.values() ?? []) {
      const x = byBranch.get(l);
      if (x) for (let k = 0; k < FOLDS; k++) m[k]! -= x[k]!;
    }
    out.set(l, m);
  }
  return out;
}

interface Table {
  numeric: boolean;
  /** value (undefined = missing) -> branch -> folds, values in order (numbers ascending). */
  rows: { value: string | undefined; counts: Map<string, Folds> }[];
}

function tableOf(p: Point, attribute: string, labels: string[]): Table {
  const values = p.attrs.get(attribute)!;
  const keys = [...values.keys()];
  const numeric = keys.every((k) => k.startsWith('n:'));
  keys.sort(numeric ? (a, b) => Number(a.slice(2)) - Number(b.slice(2)) : cmp);
  const rows: Table['rows'] = keys.map((value) => ({ value, counts: values.get(value)! }));
  rows.push({ value: undefined, counts: missing(p, attribute, labels) });
  return { numeric, rows };
}

function learn(p: Point, labels: string[]): { attribute: string; accuracy: number; model: Model } | undefined {
  let best: { attribute: string; accuracy: number; model: Model } | undefined;
  for (const attribute of [...p.attrs.keys()].sort(cmp)) {
    const table = tableOf(p, attribute, labels);
    let correct = 0;
    let total = 0;
    for (let k = 0; k < FOLDS; k++) {
      const model = fit(table, labels, attribute, (fold) => fold !== k);
      for (const r of table.rows) {
        const guess = model.predict(r.value);
        for (const l of labels) {
          const n = r.counts.get(l)?.[k] ?? 0;
          total += n;
          if (l === guess) correct += n;
        }
      }
    }
    const accuracy = total ? correct / total : 0;
    if (!best || accuracy > best.accuracy + 1e-12) best = { attribute, accuracy, model: fit(table, labels, attribute, () => true) };
  }
  return best;
}

function fit(table: Table, labels: string[], attribute: string, use: (fold: number) => boolean): Model {
  const count = (counts: Map<string, Folds>, l: string) => {
    const x = counts.get(l);
    let n = 0;
    if (x) for (let k = 0; k < FOLDS; k++) if (use(k)) n += x[k]!;
    return n;
  };
  const argmax = (score: (l: string) => number, fallback: string) => {
    let bestL = fallback;
    let bestN = score(fallback);
    for (const l of labels) if (score(l) > bestN) [bestL, bestN] = [l, score(l)];
    return bestL;
  };
  const overall = argmax((l) => table.rows.reduce((n, r) => n + count(r.counts, l), 0), labels[0]!);
  const missingRow = table.rows[table.rows.length - 1]!;
  const onMissing = argmax((l) => count(missingRow.counts, l), overall);
  const present = table.rows.slice(0, -1);
  const show = (v: string): Plain => (v.startsWith('n:') ? Number(v.slice(2)) : v === 'b:true' ? true : v === 'b:false' ? false : v.slice(2));
  if (!table.numeric) {
    const pick = new Map(present.map((r) => [r.value!, argmax((l) => count(r.counts, l), overall)]));
    return {
      predict: (v) => (v === undefined ? onMissing : (pick.get(v) ?? overall)),
      groups: () =>
        labels
          .map((l) => {
            const values = present.filter((r) => pick.get(r.value!) === l).map((r) => r.value!);
            return { when: { attribute, op: 'in', value: values.map(show) } as Plain, values: values as (string | undefined)[], then: l };
          })
          .filter((g) => g.values.length > 0),
    };
  }
  // One threshold at a bin boundary: left side < t, right side >= t. Per branch, the counts of
  // the rows left of each boundary are prefix sums (whole numbers, so exact in any order).
  const L = labels.length;
  const prefix = new Float64Array((present.length + 1) * L);
  present.forEach((r, i) => {
    for (let j = 0; j < L; j++) prefix[(i + 1) * L + j] = prefix[i * L + j]! + count(r.counts, labels[j]!);
  });
  const indexOf = new Map(labels.map((l, j) => [l, j]));
  const leftOf = (i: number, x: string) => {
    const j = indexOf.get(x);
    return j === undefined ? 0 : prefix[i * L + j]!;
  };
  const rightOf = (i: number, x: string) => {
    const j = indexOf.get(x);
    return j === undefined ? 0 : prefix[present.length * L + j]! - prefix[i * L + j]!;
  };
  let bestSplit = { at: 0, left: overall, right: overall, score: -1 };
  for (let i = 0; i <= present.length; i++) {
    const l = argmax((x) => leftOf(i, x), overall);
    const r = argmax((x) => rightOf(i, x), overall);
    const score = leftOf(i, l) + rightOf(i, r);
    if (score > bestSplit.score) bestSplit = { at: i, left: l, right: r, score };
  }
  const threshold = bestSplit.at < present.length ? Number(present[bestSplit.at]!.value!.slice(2)) : Infinity;
  const side = (v: string) => (Number(v.slice(2)) < threshold ? bestSplit.left : bestSplit.right);
  return {
    predict: (v) => (v === undefined ? onMissing : side(v)),
    groups: () => {
      const lows = present.filter((r) => Number(r.value!.slice(2)) < threshold).map((r) => r.value!);
      const highs = present.filter((r) => Number(r.value!.slice(2)) >= threshold).map((r) => r.value!);
      const out: { when: Plain; values: (string | undefined)[]; then: string }[] = [];
      if (lows.length && Number.isFinite(threshold)) out.push({ when: { attribute, op: '<', value: threshold }, values: lows, then: bestSplit.left });
      if (highs.length && Number.isFinite(threshold)) out.push({ when: { attribute, op: '>=', value: threshold }, values: highs, then: bestSplit.right });
      if (!Number.isFinite(threshold) && lows.length) out.push({ when: { attribute, op: 'any', value: 'any value' }, values: lows, then: bestSplit.left });
      return out;
    },
  };
}
