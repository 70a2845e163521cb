import { cmp } from '../event.js';
import { END, FOLDS, splitChoiceKey } from '../tally.js';
import type { Decision, Plain, Rule } from '../document/types.js';
import { atMostWeak, evidence, parallel, pct, q, ratio, slug, strengthOf, type Facts } from './facts.js';
import { END_STEP, laterTurnsNote, type Turns } from './loops.js';
import type { LogProfile } from './profile.js';
import type { TreeFacts } from './tree-facts.js';
import { isIdName, isPersonalTrait, isPlaceholder, isVariantName } from './words.js';

export const BRANCH_MIN_SHARE = 0.05;
/** A decision point is read when at least max(5, this share of all cases) reach it. */
export const MIN_POINT_SHARE = 0.01;
export const EXPLAINED_MARGIN = 0.1;
/** Rules must rest on at least this many cases, together, to explain a decision. */
export const EXPLAINED_MIN_CASES = 20;
/**
 * Where the branches at a point hold fewer than EXPLAINED_MIN_CASES cases, no rule could explain the choice, so "no
 * attribute predicts it" would be a finding the data cannot make (the textbook example's 6 cases): say too few.
 */
export const tooFewToTell = (cases: number): string =>
  `too few cases (${cases}) to tell whether any attribute decides the branch: a rule needs at least ${EXPLAINED_MIN_CASES}`;
/** A rule resting on fewer cases is not shown. */
const RULE_MIN_CASES = 5;
/** Nor one holding less than this many points above its branch's share of the cases at the point. */
const RULE_MIN_LIFT = 0.02;
/** A string attribute with more distinct values at a point than this cannot make a rule a person could read. */
const MAX_STRING_VALUES = 30;
/** Steps concurrent in the mined tree interleave only when they meet in at least this share of the rarer one's cases. */
const MEET_SHARE = 0.2;
/** The label a branch to the end node carries: the case stops there. */
export const END_LABEL = 'end';

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
      // A placeholder ('?', 'MISSING', ...) is no value: its cases count with those lacking the attribute.
      if (c.value.startsWith('s:') && isPlaceholder(c.value.slice(2))) continue;
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
 * Decisions: where cases split after the first visit of an activity, counted
 * from the first-visit choice counters, so branches and shares are in cases
 * and cover every case reaching the point, stopping (to `end`) included. A
 * branch has real volume with at least 5% of those cases and two; a branch
 * concurrent with the activity or with a larger branch (by the counts, see
 * facts.parallel, or in a parallel block of the mined tree) is an
 * interleaving of concurrent work, not a choice.
 * Rules: 1R (one attribute per decision; numbers split at one 1-2-5 bin
 * boundary, other values grouped by their commonest branch) over every
 * attribute known at the first visit except identifiers (named so, or about
 * one value per case), placeholders and strings of too many values; trained
 * on four hash folds of the case id and scored on the fifth, all five in turn.
 * Explained needs ten points over the commonest branch and 20 cases under its rules.
 */
export function readDecisions(f: Facts, tree: TreeFacts, profile: LogProfile, turns: Turns = new Map()): { decisions: Decision[]; method: string; pathNames: string[]; leads: Map<string, string> } {
  // Concurrent work interleaves: by the counts (see facts.parallel) or by the mined tree's parallel blocks.
  // Two steps that meet in fewer than a fifth of the rarer one's cases interleave in few cases, whatever the tree says
  // (a parallel block also holds optional parts, which may exclude each other: one repair or the other).
  const meet = (a: string, b: string) => f.order(a, b).both >= MEET_SHARE * Math.min(f.activityCases.get(a) ?? 0, f.activityCases.get(b) ?? 0);
  const together = (a: string, b: string) => parallel(f, a, b) || (tree.concurrent(a, b) && meet(a, b));
  // Side work is done whichever way the case goes: by at least half of the cases going from the point to the other
  // alternative too (before or after), counted over the variants, only for the few steps the cheaper tests leave.
  const doneWith = (at: string, s: string, c: string) => {
    const [ia, is, ic] = [f.idOf.get(at), f.idOf.get(s), f.idOf.get(c)];
    let taking = 0;
    let with_ = 0;
    for (const v of f.variants) {
      const i = ia === undefined ? -1 : v.ids.indexOf(ia);
      if (i < 0 || v.ids[i + 1] !== ic) continue;
      taking += v.count;
      if (is !== undefined && v.distinct.includes(is)) with_ += v.count;
    }
    return taking > 0 && with_ >= 0.5 * taking;
  };
  const points = pointsOf(f.tally.choices);
  const decisions: Decision[] = [];
  /** Per unexplained decision id: what the attributes left out say, for its open question. */
  const leads = new Map<string, string>();
  // An attribute that settles nearly every choice it is tried on names the path (a variant number, a field written
  // from the whole case): it restates the path, it causes none of it.
  const pathNames = namingThePath(f, points, together, profile, doneWith);
  for (const at of f.activities) {
    const p = points.get(at);
    if (!p) continue;
    const atPoint = [...p.base.values()].reduce((n, x) => n + sum(x), 0);
    const { branches: found, side } = branchesAt(p, at, atPoint, together, doneWith);
    let branches = found;
    // In a log of record updates, staying in a state is another update of the record, not a way the case goes.
    if (profile.snapshot.length) branches = branches.filter((b) => b.to !== at);
    // A point a handful of cases reach is anecdote, not a decision of the process.
    if (branches.length < 2 || atPoint < Math.max(5, MIN_POINT_SHARE * f.cases)) continue;
    const labels = branches.map((b) => b.to);
    const inBranches = branches.reduce((n, b) => n + b.cases, 0);
    const firstBaseline = branches[0]!.cases / inBranches;
    // Not causes of a choice on the way: an attribute naming the path, one whose first value foretells the ending, and
    // an attribute of the whole case (a trace attribute, written once per case, often when the log was extracted:
    // a total of what came later, the path's own number). The data cannot show any was known at this point.
    const tried = usableAttributes(p, atPoint);
    const wholeCase = (a: string) => a.startsWith('case:') && profile.constant.has(a);
    const usable = tried.filter((a) => !pathNames.has(a) && !profile.leaks.has(a) && !wholeCase(a));
    // Attributes of the whole case are not tried, but one that goes with very different branches is a lead to ask about.
    const untried = tried.filter((a) => wholeCase(a) && !pathNames.has(a) && !profile.leaks.has(a));
    const best = learn(p, labels, usable);
    const rules: Rule[] = [];
    const show = (l: string) => (l === END ? END_LABEL : l);
    if (best && best.accuracy > firstBaseline) {
      const caseAttribute = best.attribute.startsWith('case:');
      // A person's trait going with a branch is a correlation (bias, or a proxy of something else), never a policy.
      const trait = isPersonalTrait(best.attribute);
      for (const g of best.model.groups()) {
        let cases = 0;
        let hits = 0;
        for (const v of g.values) {
          const byBranch = p.attrs.get(best.attribute)?.get(v!);
          for (const l of labels) {
            const n = sum(byBranch?.get(l) ?? zeros());
            cases += n;
            if (l === g.then) hits += n;
          }
        }
        if (cases < RULE_MIN_CASES) continue;
        // A rule no better than the branch's own share at the point says nothing of the attribute.
        const base = ratio(branches.find((b) => b.to === g.then)?.cases ?? 0, inBranches);
        if (ratio(hits, cases) - base < RULE_MIN_LIFT) continue;
        const found = strengthOf(cases, ratio(hits, cases));
        const strength = caseAttribute && found === 'strong' ? 'moderate' : found;
        rules.push({
          id: `rule-${slug(at)}-${rules.length + 1}`,
          when: [g.when],
          then: show(g.then),
          cases,
          holds: ratio(hits, cases),
          evidence: evidence(
            hits,
            cases,
            ratio(hits, cases),
            trait ? atMostWeak(strength) : strength,
            `1R over the attributes known at the first visit of ${q(at)}: ${q(best.attribute)} is the best single attribute; held-out accuracy ${pct(best.accuracy)} over ${FOLDS} hash folds of the case id against the commonest-branch share ${pct(firstBaseline)}; ` +
              (caseAttribute
                ? `${q(best.attribute)} is a case attribute that changes within cases, assumed known from the start of the case (the log does not say when it was set), so the rule is at most moderate`
                : `${q(best.attribute)} was seen on an event of the case up to that first visit`) +
              (trait ? `; ${TRAIT_CAUTION(best.attribute)} (at most weak)` : ''),
          ),
        });
      }
    }
    const ruleCases = rules.reduce((n, r) => n + r.cases, 0);
    const explained = best !== undefined && best.accuracy - firstBaseline >= EXPLAINED_MARGIN && ruleCases >= EXPLAINED_MIN_CASES;
    if (!explained) for (const r of rules) r.evidence.strength = 'weak';
    if (!explained) {
      const lead = leadOf(p, labels, untried, atPoint);
      if (lead) leads.set(`decision-${slug(at)}`, lead);
      else if (untried.length) leads.set(`decision-${slug(at)}`, `attributes of the whole case (${untried.slice(0, 4).map(q).join(', ')}${untried.length > 4 ? ', ...' : ''}) were not tried: when they were set the log does not say`);
    }
    decisions.push({
      id: `decision-${slug(at)}`,
      at,
      branches: branches.map((b) => ({ to: show(b.to), cases: b.cases, share: ratio(b.cases, atPoint) })),
      baseline_share: ratio(branches[0]!.cases, atPoint),
      rules,
      explained,
      evidence: evidence(
        inBranches,
        atPoint,
        ratio(inBranches, atPoint),
        'counted',
        `branches: the step right after the first visit of ${q(at)} (${q(END_LABEL)}: the case stops there), in cases, over the ${atPoint} cases reaching it; ${inBranches} of them take the ${branches.length} branches of at least ${BRANCH_MIN_SHARE * 100}% (and 2 cases), the rest smaller steps or interleavings${side.length ? ` (${side.map((b) => `${q(b.to)}, next in ${b.cases} cases, is work concurrent with ${b.with.map(q).join(' and ')}, beside an alternative: side work projected out, its cases are not counted in the branches`).join('; ')})` : ''}; ` +
          (best && best.accuracy > firstBaseline
            ? `best attribute ${q(best.attribute)}: held-out accuracy ${pct(best.accuracy)} vs ${pct(firstBaseline)} for the commonest branch; explained when at least ${EXPLAINED_MARGIN * 100} points above with rules on at least ${EXPLAINED_MIN_CASES} cases (here ${ruleCases})`
            : inBranches < EXPLAINED_MIN_CASES
              ? tooFewToTell(inBranches)
              : untried.length
              ? `no attribute tried at that point predicts the branch better than always guessing the commonest one (${pct(firstBaseline)}); attributes of the whole case were not tried (${untried.slice(0, 4).map(q).join(', ')}${untried.length > 4 ? ', ...' : ''})`
              : `no attribute known at that point predicts the branch better than always guessing the commonest one (${pct(firstBaseline)}): the log does not record what decides`) +
          laterTurnsNote(f, turns, at, atPoint, (next) => (next === END_STEP ? END_LABEL : next)),
      ),
    });
  }
  const method =
    `decisions where at least max(5, ${MIN_POINT_SHARE * 100}% of all) cases reach an activity and the step right after its first visit (stopping included) splits into two or more branches of at least ${BRANCH_MIN_SHARE * 100}% of the cases there and 2 cases each, interleavings of concurrent work (by the counts or the mined tree's parallel blocks) left out: a step concurrent with the activity itself, a step concurrent with a larger branch,  and side work, projected out first (a step concurrent with a branch that another branch excludes, such as a notice sent while one of two alternative steps runs: the choice is between those, and the side step's cases are left out of the branches); shares and baseline_share are over all cases reaching the point; ` +
    `rules by 1R over every attribute known at that point (up to 100 names per case), leaving out identifiers (a name ending in id, number, code, key, ... or about one value per case), attributes named for the variant (a tool writes them from the whole path), placeholder values (?, MISSING, UNKNOWN, ...) and strings of more than ${MAX_STRING_VALUES} values; numbers in 1-2-5 bins, strings of up to 40 characters; ` +
    `scored on held-out hash folds of the case id; rules on fewer than ${RULE_MIN_CASES} cases, or holding less than ${RULE_MIN_LIFT * 100} points above their branch's share at the point, are not shown; explained when at least ${EXPLAINED_MARGIN * 100} points above the commonest-branch share with rules resting on at least ${EXPLAINED_MIN_CASES} cases; attributes of the whole case (trace attributes, constant from the first event: when they were set the log does not say), attributes whose value on the first event foretells the case's ending, and attributes that settle the choice at ${NAMING_POINTS} or more points (they name the path) are left out${pathNames.size ? ` (here naming the path: ${[...pathNames].sort(cmp).map(q).join(', ')})` : ''}` +
    (profile.snapshot.length ? '; staying in a state of a record is an update, not a branch' : '');
  return { decisions, method, pathNames: [...pathNames].sort(cmp), leads };
}

/** The caution every claim on a personal trait carries. */
const TRAIT_CAUTION = (attribute: string) => `${q(attribute)} describes a personal trait: a correlation in the data, which may reflect a protected characteristic, not a policy`;

/** A value group must hold at least this share of the cases at the point (and 5 cases) to be compared. */
const LEAD_GROUP = 0.05;
/** A branch's share must differ by at least this between two values to be a lead. */
const LEAD_GAP = 0.1;

/**
 * The attribute of the whole case whose values go with the most different branch shares at a point (an applicant's
 * group and how often applications are rejected): a lead for the open question, not a rule, since when it was set
 * the log does not say. Values of at most 10 per attribute, each on LEAD_GROUP of the cases.
 */
function leadOf(p: Point, labels: string[], attributes: readonly string[], atPoint: number): string | undefined {
  let best: { gap: number; text: string } | undefined;
  for (const attribute of attributes) {
    const byValue = p.attrs.get(attribute);
    if (!byValue || byValue.size > 10) continue;
    const groups = [...byValue]
      .map(([value, byBranch]) => {
        const counts = new Map(labels.map((l) => [l, sum(byBranch.get(l) ?? zeros())]));
        return { value: value.slice(2), counts, cases: [...counts.values()].reduce((n, k) => n + k, 0) };
      })
      .filter((g) => g.cases >= Math.max(5, LEAD_GROUP * atPoint));
    for (const l of labels) {
      let hi: (typeof groups)[number] | undefined;
      let lo: (typeof groups)[number] | undefined;
      for (const g of groups) {
        const share = g.counts.get(l)! / g.cases;
        if (!hi || share > hi.counts.get(l)! / hi.cases) hi = g;
        if (!lo || share < lo.counts.get(l)! / lo.cases) lo = g;
      }
      if (!hi || !lo || hi === lo) continue;
      const gap = hi.counts.get(l)! / hi.cases - lo.counts.get(l)! / lo.cases;
      if (gap >= LEAD_GAP && (!best || gap > best.gap + 1e-12)) {
        const to = l === END ? 'stopping there' : q(l);
        best = {
          gap,
          text: `${q(attribute)}, an attribute of the whole case left out of rules (when it was set the log does not say), goes with ${to} in ${pct(hi.counts.get(l)! / hi.cases)} of the ${hi.cases} cases with ${hi.value} against ${pct(lo.counts.get(l)! / lo.cases)} of the ${lo.cases} with ${lo.value}` +
            (isPersonalTrait(attribute) ? `; ${TRAIT_CAUTION(attribute)}` : ''),
        };
      }
    }
  }
  return best?.text;
}

/**
 * Attributes a rule may rest on at a point: not identifiers (by name, or with
 * distinct values for at least half of the cases carrying them), not strings
 * of more values than a person could read in a rule.
 */
/** Held-out accuracy from which an attribute settles a choice; at this many points it names the path. */
const SETTLES = 0.95;
const NAMING_POINTS = 3;

/**
 * Attributes that settle (held-out accuracy at least SETTLES, well above the commonest branch) the choice at
 * NAMING_POINTS or more decision points, and at most of the points where they are tried: an attribute causing one
 * choice rarely settles three; one written from the whole path settles them all.
 */
function namingThePath(f: Facts, points: Map<string, Point>, together: (a: string, b: string) => boolean, profile: LogProfile, doneWith: (at: string, s: string, c: string) => boolean): Set<string> {
  const settled = new Map<string, number>();
  const tried = new Map<string, number>();
  for (const at of f.activities) {
    const p = points.get(at);
    if (!p) continue;
    const atPoint = [...p.base.values()].reduce((n, x) => n + sum(x), 0);
    const { branches } = branchesAt(p, at, atPoint, together, doneWith);
    if (branches.length < 2 || atPoint < Math.max(5, MIN_POINT_SHARE * f.cases)) continue;
    const labels = branches.map((b) => b.to);
    const baseline = Math.max(...branches.map((b) => b.cases)) / branches.reduce((n, b) => n + b.cases, 0);
    for (const attribute of usableAttributes(p, atPoint)) {
      if (profile.leaks.has(attribute)) continue;
      tried.set(attribute, (tried.get(attribute) ?? 0) + 1);
      const r = learn(p, labels, [attribute]);
      if (r && r.accuracy >= SETTLES && r.accuracy - baseline >= EXPLAINED_MARGIN) settled.set(attribute, (settled.get(attribute) ?? 0) + 1);
    }
  }
  return new Set([...settled].filter(([a, n]) => n >= NAMING_POINTS && 2 * n > (tried.get(a) ?? 0)).map(([a]) => a));
}

/**
 * The branches at a point: steps right after the first visit with real volume (BRANCH_MIN_SHARE and 2 cases), most
 * cases first, without interleavings of concurrent work. Side work is projected out first: a step S running beside one
 * of two alternatives, i.e. concurrent with a branch b that another branch c excludes (b and c not concurrent with
 * each other, neither concurrent with the activity), S done in at least half of the cases going from the activity
 * straight to c too, before or after (done whichever way the case goes; a step done only on b's way is part of it,
 * and b with it is the branch): a notice sent to the customer while one of two repairs runs, or
 * while the loop a failed test sends the case back to runs, is no alternative to either; the choice is read between
 * the others over the cases that went to one of them directly (the counters keep the next step only, so the side
 * step's cases are not counted in the branches). Then, as always, a step concurrent with the activity itself or with
 * a larger branch interleaves with it and is no branch.
 */
function branchesAt(p: Point, at: string, atPoint: number, together: (a: string, b: string) => boolean, doneWith: (at: string, s: string, c: string) => boolean): { branches: { to: string; cases: number }[]; side: { to: string; cases: number; with: string[] }[] } {
  const volume = [...p.base.entries()]
    .map(([to, folds]) => ({ to, cases: sum(folds) }))
    .filter((b) => b.cases >= 2 && b.cases >= BRANCH_MIN_SHARE * atPoint)
    .sort((a, b) => b.cases - a.cases || cmp(a.to, b.to));
  const real = volume.filter((b) => b.to !== END && !together(at, b.to));
  const side: { to: string; cases: number; with: string[] }[] = [];
  for (const s of volume) {
    if (s.to === END) continue;
    const beside = real.filter((b) => b !== s && together(s.to, b.to) && real.some((c) => c !== s && c !== b && !together(b.to, c.to) && doneWith(at, s.to, c.to)));
    if (beside.length) side.push({ ...s, with: beside.map((b) => b.to) });
  }
  const rest = volume.filter((b) => !side.some((x) => x.to === b.to));
  return { branches: rest.filter((b, i) => b.to === END || (!together(at, b.to) && !rest.slice(0, i).some((big) => big.to !== END && together(big.to, b.to)))), side };
}

function usableAttributes(p: Point, atPoint: number): string[] {
  const out: string[] = [];
  for (const [attribute, byValue] of p.attrs) {
    if (isIdName(attribute) || isVariantName(attribute)) continue;
    let carrying = 0;
    for (const byBranch of byValue.values()) for (const folds of byBranch.values()) carrying += sum(folds);
    const distinct = byValue.size;
    // One value on every case at the point (an attribute the step itself writes, such as its kind of action)
    // restates where the case is: it can tell no branch from another.
    if (distinct === 1 && carrying >= atPoint) continue;
    if (distinct > 10 && distinct >= 0.5 * Math.min(carrying, atPoint)) continue;
    const numeric = [...byValue.keys()].every((k) => k.startsWith('n:'));
    if (!numeric && distinct > MAX_STRING_VALUES) continue;
    out.push(attribute);
  }
  return out.sort(cmp);
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

function learn(p: Point, labels: string[], attributes: readonly string[]): { attribute: string; accuracy: number; model: Model } | undefined {
  let best: { attribute: string; accuracy: number; model: Model } | undefined;
  for (const attribute of attributes) {
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
