import type { Decision, GraphDocument, Plain } from '../../engine/document/types.js';
import { choiceValue } from '../../engine/tally.js';
import { idleWait, quoted, q, ratio, withinHours, type CaseFacts, type Findings } from './audit.js';

/**
 * The audit of the reading's counted figures (see audit.ts): success
 * criteria, policies, exceptions and decisions, each recomputed from the
 * cases by the definitions the rewritten reading follows. Items are found by
 * the activity names their text quotes ('X'), with the id's slugs deciding
 * an order the words leave open; anything that cannot be resolved is listed
 * in `skipped`, never guessed.
 */
export function auditReading(doc: GraphDocument, cases: readonly CaseFacts[], f: Findings, clock: boolean): void {
  const labels = new Set<string>();
  for (const c of cases) for (const a of c.first.keys()) labels.add(a);
  auditCriteria(doc, cases, labels, f);
  auditPolicies(doc, cases, labels, f, clock);
  auditExceptions(doc, cases, labels, f);
  doc.decisions.forEach((d, i) => auditDecision(d, `/decisions/${i}`, cases, labels, f));
  doc.sequence_rules.forEach((r, i) => {
    if (r.id.startsWith('later-turn-')) auditLaterTurn(r.statement, r.activities.map(String), r.evidence.cases, `/sequence_rules/${i}`, cases, f);
    else auditQuantifier(r.statement, r.holds, `/sequence_rules/${i}`, f);
    if (r.id.startsWith('chain_response-')) auditChain(r.activities.map(String), r.holds, r.evidence.of_cases, `/sequence_rules/${i}`, cases, f);
  });
  auditPaths(doc, cases, f);
}

const pctText = (x: number): string => `${(Math.round(x * 1000) / 10).toString()}%`;

/**
 * A rule's words match its share: "always", "never", "only after" and "at most once in a case" stand alone only at
 * 100%; below it the statement carries the share (never printed as 100%).
 */
function auditQuantifier(statement: string, holds: number, path: string, f: Findings): void {
  if (holds >= 1) return;
  const shown = pctText(holds) === '100%' ? '99.9%' : pctText(holds);
  if (!statement.includes(` ${shown} of the cases with `)) f.problem(`${path}/statement`, `holds ${holds} but the statement does not give ${shown}: ${statement}`);
  if (/\b(always|never)\b/.test(statement)) f.problem(`${path}/statement`, `an absolute word at ${shown}: ${statement}`);
}

/** chain_response a -> b: the cases with a where every a is directly followed by b, among the cases with a. */
function auditChain(activities: string[], holds: number, of: number, path: string, all: readonly CaseFacts[], f: Findings): void {
  const [a, b] = activities as [string, string];
  let withA = 0;
  let held = 0;
  for (const c of all) {
    if (!c.first.has(a)) continue;
    withA++;
    if (c.acts.every((x, i) => x !== a || c.acts[i + 1] === b)) held++;
  }
  f.same(`${path}/evidence/of_cases`, of, withA);
  f.near(`${path}/holds`, holds, ratio(held, withA));
}

/**
 * Whether the log has a main path (engine/reading/paths.ts, recomputed here from the cases by its definition):
 * none where variants reach 90% of the cases (distinct paths) or where the commonest leads the next by less than
 * 2·√(top + next) (a tie); the variants assumption's figures are read back.
 */
function auditPaths(doc: GraphDocument, cases: readonly CaseFacts[], f: Findings): void {
  const byPath = new Map<string, number>();
  for (const c of cases) byPath.set(JSON.stringify(c.acts), (byPath.get(JSON.stringify(c.acts)) ?? 0) + 1);
  const counts = [...byPath.values()].sort((x, y) => y - x);
  const [top = 0, next = 0] = counts;
  const near = (c: number) => top - c < 2 * Math.sqrt(top + c);
  const kind = counts.length >= 2 && counts.length >= 0.9 * cases.length ? 'distinct' : counts.length < 2 || !near(next) ? 'main' : 'tied';
  const mains = doc.variants.filter((v) => v.class === 'main');
  f.same('/variants (main path)/count of main', mains.length, kind === 'main' && cases.length > 0 ? 1 : 0);
  if (mains.length === 1) f.same('/variants (main path)/cases', mains[0]!.cases, top);
  const text = doc.assumptions.find((x): x is string => typeof x === 'string' && x.startsWith('Variants:'));
  if (!text || !cases.length) return f.skip('/variants (main path)/assumption', 'no variants assumption');
  const one = /here every case follows the one path \((\d+) cases\)/.exec(text);
  const main = /here the commonest path \((\d+) cases, ([\d.]+%)\) leads the next \((\d+) cases\)/.exec(text);
  const tied = /here no path is main: the commonest path \((\d+) cases\) and the next \((\d+) cases\) are within sampling noise of each other \((\d+) paths/.exec(text);
  const distinct = /here no path is main: (\d+) distinct paths for (\d+) cases \(([\d.]+%)\); the commonest has (\d+) cases?/.exec(text);
  const stated = one || main ? 'main' : tied ? 'tied' : distinct ? 'distinct' : 'none';
  f.same('/variants (main path)/assumption verdict', stated, kind);
  if (one) f.same('/variants (main path)/assumption top', Number(one[1]), top);
  if (main) {
    f.same('/variants (main path)/assumption top', Number(main[1]), top);
    f.same('/variants (main path)/assumption top share', main[2], pctText(ratio(top, cases.length)));
    f.same('/variants (main path)/assumption next', Number(main[3]), next);
  }
  if (tied) {
    f.same('/variants (main path)/assumption top', Number(tied[1]), top);
    f.same('/variants (main path)/assumption next', Number(tied[2]), next);
    f.same('/variants (main path)/assumption tied', Number(tied[3]), counts.filter(near).length);
  }
  if (distinct) {
    f.same('/variants (main path)/assumption variants', Number(distinct[1]), counts.length);
    f.same('/variants (main path)/assumption cases', Number(distinct[2]), cases.length);
    f.same('/variants (main path)/assumption share', distinct[3], pctText(ratio(counts.length, cases.length)));
    f.same('/variants (main path)/assumption top', Number(distinct[4]), top);
  }
}

/**
 * A step that follows an activity only from its k-th visit on (engine/reading/loops.ts): the cases where it
 * follows at all, none of them at an earlier visit, and how many of the k-th visits it follows.
 */
function auditLaterTurn(statement: string, activities: string[], cases: number, path: string, all: readonly CaseFacts[], f: Findings): void {
  const [a, b] = activities as [string, string];
  const stated = /only from a case's (\d)/.exec(statement);
  const atK = /after (\d+) of the (\d+) \d/.exec(statement);
  if (!stated || !atK) return f.skip(path, `unreadable statement: ${statement}`);
  const k0 = Number(stated[1]);
  // The 5th turn stands for the 5th and later ones: its visits are not one a case.
  if (k0 >= 5) return f.skip(path, 'a turn counted with the later ones');
  let withB = 0;
  let earliest = Infinity;
  let takenAtK = 0;
  let visitsAtK = 0;
  for (const c of all) {
    let k = 0;
    let taken = false;
    c.acts.forEach((x, i) => {
      if (x !== a) return;
      k++;
      if (k === k0) visitsAtK++;
      if (c.acts[i + 1] !== b) return;
      taken = true;
      earliest = Math.min(earliest, k);
      if (k === k0) takenAtK++;
    });
    if (taken) withB++;
  }
  f.same(`${path}/evidence/cases`, cases, withB);
  f.same(`${path}/statement (first turn)`, k0, earliest);
  f.same(`${path}/statement (taken at that turn)`, Number(atK[1]), takenAtK);
  f.same(`${path}/statement (visits of that turn)`, Number(atK[2]), visitsAtK);
}

const count = (cases: readonly CaseFacts[], test: (c: CaseFacts) => boolean): number => cases.reduce((n, c) => n + (test(c) ? 1 : 0), 0);

/** The reading's id fragment of a label, to tell which of two quoted names an id puts first. */
function slug(text: string): string {
  return text.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'x';
}

/**
 * The two activities an item is about, in its own order: by the id
 * (kind-slug(a)-slug(b)) when that tells, else by the text, where
 * "'b' follows 'a'" names the second first.
 */
function pairOf(id: string, text: string, labels: Set<string>): [string, string] | undefined {
  const named = quoted(text, labels);
  // One name is a pair only when written twice ('a' -> 'a'); else the other name is no activity of the events.
  if (named.length === 1) return text.split(q(named[0]!)).length > 2 ? [named[0]!, named[0]!] : undefined;
  if (named.length !== 2) return undefined;
  const [x, y] = named as [string, string];
  const byId = ([[x, y], [y, x]] as [string, string][]).filter(([a, b]) => id.includes(`${slug(a)}-${slug(b)}`));
  if (byId.length === 1) return byId[0];
  return / follows /.test(text.slice(text.indexOf(q(x)), text.lastIndexOf(q(y)))) ? [y, x] : [x, y];
}

/** The one activity an item names; several are narrowed by the id's slug. */
function subjectOf(id: string, text: string, labels: Set<string>): string | undefined {
  const named = quoted(text, labels);
  const byId = named.length > 1 ? named.filter((a) => id.includes(slug(a))) : named;
  return byId.length === 1 ? byId[0] : undefined;
}

function auditCriteria(doc: GraphDocument, cases: readonly CaseFacts[], labels: Set<string>, f: Findings): void {
  doc.success_criteria.forEach((c, i) => {
    const path = `/success_criteria/${i}`;
    if (c.id === 'success-ending') {
      // A recorded verdict (engine/reading/verdicts.ts): only the cases ending there with the attribute's last value true,
      // and the ending's outcome items split by that value.
      const verdict = / and last value of '(.+)' in the case is true$/.exec(c.test)?.[1];
      const ends = new Set(quoted(verdict === undefined ? c.test : c.test.slice(0, c.test.indexOf(' and last value of ')), labels));
      if (!ends.size) return f.skip(path, `its test names no activity: ${c.test}`);
      if (verdict !== undefined) {
        for (const x of ends) {
          const stopping = cases.filter((k) => k.last === x);
          for (const [kind, value] of [['success', true], ['failure', false]] as const) {
            const item = doc.outcomes.find((o) => o.end_activity === x && o.kind === kind);
            f.same(`/outcomes (${kind} at ${q(x)} by ${q(verdict)})`, item?.cases ?? 0, count(stopping, (k) => lastVerdict(k, verdict) === value));
          }
        }
        return f.near(`${path}/share_met`, c.share_met, ratio(count(cases, (x) => ends.has(x.last) && lastVerdict(x, verdict) === true), cases.length));
      }
      return f.near(`${path}/share_met`, c.share_met, ratio(count(cases, (x) => ends.has(x.last)), cases.length));
    }
    if (c.id === 'success-status') {
      // Cases with an event of a success status, whatever follows it.
      const reached = new Set(quoted(c.test, labels));
      if (!reached.size) return f.skip(path, `its test names no activity: ${c.test}`);
      return f.near(`${path}/share_met`, c.share_met, ratio(count(cases, (x) => x.acts.some((a) => reached.has(a))), cases.length));
    }
    if (c.id === 'success-step') {
      // Cases with an event of any step the test lists.
      const steps = new Set(quoted(c.test, labels));
      if (!steps.size) return f.skip(path, `its test names no activity: ${c.test}`);
      return f.near(`${path}/share_met`, c.share_met, ratio(count(cases, (x) => x.acts.some((a) => steps.has(a))), cases.length));
    }
    if (c.id.startsWith('recorded-')) {
      // The attribute's last value in the case, true or false in any of the spellings the profile accepts, over the
      // cases whose last value is one of them.
      const attribute = /last value of '(.+)' in the case/.exec(c.test)?.[1];
      if (attribute === undefined) return f.skip(path, `its test names no attribute: ${c.test}`);
      let yes = 0;
      let no = 0;
      for (const x of cases) {
        const verdict = lastVerdict(x, attribute);
        if (verdict === true) yes += 1;
        else if (verdict === false) no += 1;
      }
      return f.near(`${path}/share_met`, c.share_met, ratio(yes, yes + no));
    }
    if (c.id === 'no-failure-step') {
      // Cases with no event of any activity the test lists.
      const never = new Set(quoted(c.test, labels));
      if (!never.size) return f.skip(path, `its test names no activity: ${c.test}`);
      // "Never passes through" only where no case ending in success did; else the statement counts those that did.
      const successTest = doc.success_criteria.find((x) => x.id === 'success-ending')?.test;
      if (successTest !== undefined) {
        const success = new Set(quoted(successTest, labels));
        const succeeded = cases.filter((x) => success.has(x.last));
        const through = count(succeeded, (x) => x.acts.some((a) => never.has(a)));
        const said = /: (\d+) of the (\d+) cases ending in success did\.$/.exec(c.statement);
        if (!said) f.same(`${path}/statement (successful cases through them)`, c.statement.includes(' never passes through ') ? 0 : -1, through);
        else {
          f.same(`${path}/statement (successful cases through them)`, Number(said[1]), through);
          f.same(`${path}/statement (successful cases)`, Number(said[2]), succeeded.length);
        }
      }
      return f.near(`${path}/share_met`, c.share_met, ratio(count(cases, (x) => !x.acts.some((a) => never.has(a))), cases.length));
    }
    // A criterion the audit cannot recompute is a finding: every criterion the reading writes has a definition here.
    f.problem(path, `criterion ${c.id} has no audit definition`);
  });
}

const TRUE_TEXT = new Set(['true', 'TRUE', 'True', 'yes', 'Yes', '1']);
const FALSE_TEXT = new Set(['false', 'FALSE', 'False', 'no', 'No', '0']);

/** The case's last value of an attribute read as a verdict, undefined when it has none or another value. */
function lastVerdict(c: CaseFacts, attribute: string): boolean | undefined {
  const name = attribute.replace(/^case:/, '');
  for (let k = c.events.length - 1; k >= 0; k--) {
    const attrs = c.events[k]!.attributes;
    const value = attrs[attribute] ?? attrs[name];
    if (value === undefined || value === null) continue;
    const text = String(value);
    return TRUE_TEXT.has(text) ? true : FALSE_TEXT.has(text) ? false : undefined;
  }
  return undefined;
}

function auditPolicies(doc: GraphDocument, cases: readonly CaseFacts[], labels: Set<string>, f: Findings, clock: boolean): void {
  doc.policies.forEach((p, i) => {
    const path = `/policies/${i}`;
    if (p.kind === 'service_level') {
      if (!clock) return f.skip(path, 'working time basis');
      return f.near(`${path}/share_met`, p.share_met, ratio(count(cases, (c) => withinHours(c.duration, p.threshold_hours)), cases.length));
    }
    const pair = pairOf(p.id, p.statement, labels);
    if (!pair) return f.skip(path, `${p.id}: its statement does not name two activities: ${p.statement}`);
    const [a, b] = pair;
    if (p.kind === 'timing') {
      if (!clock) return f.skip(path, 'working time basis');
      let occurrences = 0;
      let met = 0;
      for (const c of cases) {
        for (let k = 0; k + 1 < c.acts.length; k++) {
          if (c.acts[k] !== a || c.acts[k + 1] !== b) continue;
          occurrences += 1;
          if (withinHours(idleWait(c.events[k]!, c.events[k + 1]!), p.threshold_hours)) met += 1;
        }
      }
      f.near(`${path}/share_met`, p.share_met, ratio(met, occurrences));
      return f.same(`${path}/evidence/of_cases`, p.evidence.of_cases, occurrences);
    }
    const both = cases.filter((c) => c.first.has(a) && c.first.has(b));
    if (p.kind === 'sequence') return f.near(`${path}/share_met`, p.share_met, ratio(count(both, (c) => c.first.get(a)! < c.first.get(b)!), both.length));
    // Separation: no one resource did both (events without a resource name nobody).
    const apart = count(both, (c) => {
      const byA = new Set(c.events.filter((e) => e.activity === a && e.resource !== undefined).map((e) => e.resource));
      return !c.events.some((e) => e.activity === b && e.resource !== undefined && byA.has(e.resource));
    });
    f.near(`${path}/share_met`, p.share_met, ratio(apart, both.length));
  });
}

const EXCEPTION_KINDS = ['failed-ending', 'out-of-order', 'repeated', 'skipped', 'rare'] as const;

function auditExceptions(doc: GraphDocument, cases: readonly CaseFacts[], labels: Set<string>, f: Findings): void {
  doc.exceptions.forEach((x, i) => {
    const path = `/exceptions/${i}`;
    if (x.cases > cases.length / 2) f.problem(`${path}/cases`, `${x.cases} cases, more than half of all ${cases.length}: not an exception`);
    const kind = EXCEPTION_KINDS.find((k) => x.id.startsWith(`${k}-`));
    if (!kind) return f.skip(path, `${x.id}: no audit definition for this kind`);
    const check = (n: number, of: number) => {
      f.same(`${path}/cases`, x.cases, n);
      if (of >= 0) f.same(`${path}/evidence/of_cases`, x.evidence.of_cases, of);
    };
    if (kind === 'out-of-order') {
      // The name puts the step that came first in these cases first: "'b' before 'a'".
      const pair = pairOf(x.id, x.name, labels);
      if (!pair) return f.skip(path, `${x.id}: its name does not name two activities: ${x.name}`);
      const [early, late] = pair;
      return check(count(cases, (c) => c.first.has(early) && c.first.has(late) && c.first.get(early)! < c.first.get(late)!), -1);
    }
    const a = subjectOf(x.id, x.name, labels);
    if (a === undefined) return f.skip(path, `${x.id}: its name does not name one activity: ${x.name}`);
    const has = (c: CaseFacts) => c.first.has(a);
    if (kind === 'repeated') {
      check(count(cases, (c) => (c.visits.get(a) ?? 0) > 1), count(cases, has));
      // A trigger in the attributes of a decision point (engine/reading/triggers.ts): the cases going from their first
      // P straight to b, those of them repeating it, and the repeating cases that went that way. The rule it names is
      // audited with its decision.
      const via = /^after '(.+?)' with .+?: (\d+) of the (\d+) cases that repeat it went from their first '.+?' straight to '(.+?)', and (\d+) of the (\d+) cases taking that way repeat it/s.exec(x.trigger);
      if (via) {
        const [, at, , , to] = via;
        const took = (c: CaseFacts) => c.first.has(at!) && c.acts[c.first.get(at!)! + 1] === to;
        const comesBack = (c: CaseFacts) => c.acts.indexOf(a) <= c.first.get(at!)! && c.acts.lastIndexOf(a) > c.first.get(at!)!;
        const repeating = cases.filter((c) => (c.visits.get(a) ?? 0) > 1);
        const taking = cases.filter(took);
        f.same(`${path}/trigger`, `${via[2]} of ${via[3]}; ${via[5]} of ${via[6]}`, `${count(repeating, took)} of ${repeating.length}; ${count(taking, (c) => c.first.has(a) && comesBack(c))} of ${taking.length}`);
        return;
      }
      // The trigger's count: the repeating cases whose second visit comes right after the step it names.
      const stated = statedCount(x.trigger);
      if (!stated) return;
      const named = namedIn(x.trigger, labels, [(l) => `after ${q(l)} (`, (l) => `visit, ${q(l)}, in`, (l) => (l === a ? `${q(l)} directly again (` : undefined)]);
      if (named === undefined) return f.skip(`${path}/trigger`, `${x.id}: the trigger names no one step: ${x.trigger}`);
      const repeating = cases.filter((c) => (c.visits.get(a) ?? 0) > 1);
      f.same(`${path}/trigger`, stated, `${count(repeating, (c) => c.acts[secondVisit(c.acts, a) - 1] === named)} of ${repeating.length}`);
      return;
    }
    if (kind === 'rare') {
      const withA = cases.filter(has);
      check(withA.length, cases.length);
      // The trigger's count: the cases with the step whose first visit comes at their start, or right after the step it names.
      const stated = statedCount(x.trigger);
      if (!stated) return;
      const first = (c: CaseFacts) => c.first.get(a)!;
      if (x.trigger.includes('the start of the case')) return f.same(`${path}/trigger`, stated, `${count(withA, (c) => first(c) === 0)} of ${withA.length}`);
      const named = namedIn(x.trigger, labels, [(l) => `after ${q(l)} (`, (l) => `before it, ${q(l)}, in`]);
      if (named === undefined) return f.skip(`${path}/trigger`, `${x.id}: the trigger names no one step: ${x.trigger}`);
      f.same(`${path}/trigger`, stated, `${count(withA, (c) => c.acts[first(c) - 1] === named)} of ${withA.length}`);
      return;
    }
    if (kind === 'failed-ending') {
      check(count(cases, (c) => c.last === a), cases.length);
      // The trigger's count: the cases ending there whose step right before the last is the one it names.
      const stated = statedCount(x.trigger);
      if (!stated) return;
      const named = namedIn(x.trigger, labels, [(l) => `after ${q(l)} (`, (l) => `before it, ${q(l)}, in`]);
      if (named === undefined) return f.skip(`${path}/trigger`, `${x.id}: the trigger names no one step: ${x.trigger}`);
      const ending = cases.filter((c) => c.last === a);
      f.same(`${path}/trigger`, stated, `${count(ending, (c) => c.acts[c.acts.length - 2] === named)} of ${ending.length}`);
      return;
    }
    const p = stepBefore(x.trigger, labels, a) ?? stepBefore(x.detected_by, labels, a);
    if (p === undefined) return f.skip(path, `${x.id}: neither trigger nor detected_by names the step before ${q(a)}: ${x.trigger} / ${x.detected_by}`);
    // The later steps a skipping case went on to, as detected_by lists them: "a later step of the backbone ('c', 'd')".
    const onward = /later step of the backbone \((.*?)\) without/.exec(x.detected_by)?.[1];
    if (onward === undefined) return f.skip(path, `${x.id}: detected_by names no later steps: ${x.detected_by}`);
    const later = new Set(quoted(onward, labels));
    const withP = cases.filter((c) => c.first.has(p));
    const skipping = withP.filter((c) => !has(c) && c.acts.some((s, j) => j > c.first.get(p)! && later.has(s)));
    check(skipping.length, withP.length);
    // The trigger's count: the skipping cases whose step right after their first p is the one it names.
    const stated = statedCount(x.trigger);
    if (!stated) return;
    const named = namedIn(x.trigger, labels, [(l) => `goes to ${q(l)} instead (`, (l) => `the commonest, ${q(l)}, in`]);
    if (named === undefined) return f.skip(`${path}/trigger`, `${x.id}: the trigger names no one step: ${x.trigger}`);
    f.same(`${path}/trigger`, stated, `${count(skipping, (c) => c.acts[c.first.get(p)! + 1] === named)} of ${skipping.length}`);
  });
}

/** The "n of the N cases" a trigger states, as "n of N". */
function statedCount(text: string): string | undefined {
  const m = /(\d+) of the (\d+) cases/.exec(text);
  return m ? `${m[1]} of ${m[2]}` : undefined;
}

/** The one label some pattern finds in the text (undefined for none or several). */
function namedIn(text: string, labels: Set<string>, patterns: ((label: string) => string | undefined)[]): string | undefined {
  const found = [...labels].filter((l) =>
    patterns.some((p) => {
      const needle = p(l);
      return needle !== undefined && text.includes(needle);
    }),
  );
  return found.length === 1 ? found[0] : undefined;
}

/** The index of an activity's second event in a case (-1 when it has none). */
function secondVisit(acts: readonly string[], a: string): number {
  const first = acts.indexOf(a);
  return first < 0 ? -1 : acts.indexOf(a, first + 1);
}

/** The activity a text names as the step before `x`: "after 'P'". */
function stepBefore(text: string, labels: Set<string>, x: string): string | undefined {
  const named = quoted(text, labels).filter((l) => l !== x && text.includes(`after ${q(l)}`));
  return named.length === 1 ? named[0] : undefined;
}

interface Condition {
  attribute: string;
  op: 'in' | '<' | '>=' | 'any';
  value: Plain;
}

function conditionsOf(when: Plain[]): Condition[] | undefined {
  const out: Condition[] = [];
  for (const w of when) {
    if (typeof w !== 'object' || w === null || Array.isArray(w)) return undefined;
    const { attribute, op, value } = w as Record<string, Plain>;
    if (typeof attribute !== 'string' || (op !== 'in' && op !== '<' && op !== '>=' && op !== 'any')) return undefined;
    if ((op === 'in' && !Array.isArray(value)) || ((op === '<' || op === '>=') && typeof value !== 'number')) return undefined;
    out.push({ attribute, op, value: value! });
  }
  return out;
}

/** A number as the counters read it: numbers, and decimal numbers written as text (choiceValue's rule). */
function numeric(v: string | number | boolean): number | undefined {
  if (typeof v === 'number') return v;
  return typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;
}

/** The counted label of a value listed in an 'in' rule: numbers and booleans are shown as their label's value. */
function listedLabel(v: Plain): string | undefined {
  if (typeof v === 'number') return `n:${v}`;
  if (typeof v === 'boolean') return `b:${v}`;
  return typeof v === 'string' ? choiceValue(v) : undefined;
}

function satisfies(c: Condition, raw: string | number | boolean | undefined): boolean {
  if (raw === undefined) return false;
  if (c.op === 'any') return choiceValue(raw) !== undefined;
  if (c.op === 'in') {
    const label = choiceValue(raw);
    return label !== undefined && (c.value as Plain[]).some((v) => listedLabel(v) === label);
  }
  // Thresholds are bin boundaries, so the raw number falls on the same side as its bin.
  const n = numeric(raw);
  return n !== undefined && (c.op === '<' ? n < (c.value as number) : n >= (c.value as number));
}

/**
 * A decision at A: each case's first visit of A and the step right after it
 * ('end' when the case stops there); a rule's attribute value is the latest
 * one carried by an event up to and including that visit.
 */
function auditDecision(d: Decision, path: string, cases: readonly CaseFacts[], labels: Set<string>, f: Findings): void {
  if (!labels.has(d.at)) return f.problem(`${path}/at`, `${q(d.at)} is no activity of the events`);
  const visits: { c: CaseFacts; k: number; next: string }[] = [];
  const taken = new Map<string, number>();
  for (const c of cases) {
    const k = c.first.get(d.at);
    if (k === undefined) continue;
    const next = k + 1 < c.acts.length ? c.acts[k + 1]! : 'end';
    visits.push({ c, k, next });
    taken.set(next, (taken.get(next) ?? 0) + 1);
  }
  let top = 0;
  d.branches.forEach((b, j) => {
    const n = taken.get(b.to) ?? 0;
    top = Math.max(top, ratio(n, visits.length));
    f.same(`${path}/branches/${j}/cases`, b.cases, n);
    f.near(`${path}/branches/${j}/share`, b.share, ratio(n, visits.length));
  });
  f.near(`${path}/baseline_share`, d.baseline_share, top);
  f.same(`${path}/evidence/of_cases`, d.evidence.of_cases, visits.length);
  const branches = new Set(d.branches.map((b) => b.to));
  const names = attributeNames(cases);
  d.rules.forEach((r, j) => {
    const conditions = conditionsOf(r.when);
    if (!conditions) return f.skip(`${path}/rules/${j}`, `unreadable when: ${JSON.stringify(r.when)}`);
    // Importers name case attributes case:X (XES, pm4py CSV) or carry them bare on the first event (simulator).
    const resolved = conditions.map((c) => ({ ...c, attribute: resolveName(c.attribute, names) }));
    let n = 0;
    let hits = 0;
    for (const v of visits) {
      if (!branches.has(v.next) || !resolved.every((c) => satisfies(c, known(v.c, v.k, c.attribute)))) continue;
      n += 1;
      if (v.next === r.then) hits += 1;
    }
    f.same(`${path}/rules/${j}/cases`, r.cases, n);
    f.near(`${path}/rules/${j}/holds`, r.holds, ratio(hits, n));
  });
}

function known(c: CaseFacts, k: number, attribute: string): string | number | boolean | undefined {
  for (let i = k; i >= 0; i--) {
    const attrs = c.events[i]!.attributes;
    if (Object.hasOwn(attrs, attribute)) return attrs[attribute];
  }
  return undefined;
}

const namesOf = new WeakMap<readonly CaseFacts[], Set<string>>();
function attributeNames(cases: readonly CaseFacts[]): Set<string> {
  let names = namesOf.get(cases);
  if (!names) {
    names = new Set();
    for (const c of cases) for (const e of c.events) for (const a in e.attributes) names.add(a);
    namesOf.set(cases, names);
  }
  return names;
}

/** The name as the events carry it; with or without a `case:` prefix only when the log has no attribute of the name as given. */
function resolveName(name: string, names: Set<string>): string {
  if (names.has(name)) return name;
  const other = name.startsWith('case:') ? name.slice(5) : `case:${name}`;
  return names.has(other) ? other : name;
}
