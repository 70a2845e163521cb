import { cmp } from '../event.js';
import { START } from '../tally.js';
import type { ProcessPart, Strength, SuccessCriterion } from '../document/types.js';
import type { Backbone } from './backbone.js';
import { evidence, pct, q, ratio, type Facts } from './facts.js';
import type { EndReading } from './outcomes.js';
import type { LogProfile } from './profile.js';
import { nameVerdict, nounContexts, nounOfColumn, nounOfIds, objectOf } from './words.js';

/** The commonest ways cases start whose names are read for the case's noun (then the backbone's steps). */
const FIRST_STEPS = 3;
/** Activity names read as evidence for the case's noun: those of at least this share of the cases. */
const COMMON_NAME_SHARE = 0.2;

/**
 * The thing a case is about, from what a case is made of and the process's
 * own steps: the OCEL object type when the case notion is one; else the
 * word the case ids share ("declaration 86791"; never a code prefix such as
 * "INC" or a short abbreviation); else the object of a step that reads
 * "verb object" ("Create Fine" -> fine, "register request" -> request) and
 * speaks for most cases: the first step of at least half of them, or a step
 * half of them do (the phrase acted on in most ways); a noun counts when
 * activity names act on it in at least two ways, or it names how most cases
 * start; else a noun in the case column's name. Never a status, verb or
 * quality word, a word with no verb before it, or a word of a language the
 * vocabulary does not read: then "one case, identified by <column>". A
 * reading of words is a guess: `hypothesis`.
 */
export function caseNoun(f: Facts, backbone: Backbone, caseNotion: string | undefined, caseIds: readonly string[] = []): { noun: string; source: string; from: string } | undefined {
  const fromIds = nounOfIds(caseIds);
  if (fromIds) return { noun: fromIds, source: 'named by the case ids', from: `the case ids are ${q(fromIds)} and a number (e.g. ${caseIds.slice(0, 3).map(q).join(', ')})` };
  const starts = (f.out.get(START) ?? []).filter((e) => e.to !== '').sort((a, b) => b.cases - a.cases || cmp(a.to, b.to));
  const mainStart = starts[0] && starts[0].cases >= 0.5 * f.cases ? starts[0].to : undefined;
  // Ways of acting on a noun are counted among the activities a fifth of the cases do: a rare step's name is no evidence.
  const common = f.activities.filter((a) => (f.activityCases.get(a) ?? 0) >= COMMON_NAME_SHARE * f.cases);
  const support = (noun: string) => nounContexts(common, noun);
  // Only a step that speaks for most cases: the first step of half of them, or one half of them do.
  const speaks = (step: string) => step === mainStart || (f.activityCases.get(step) ?? 0) >= 0.5 * f.cases;
  const read = (step: string): { noun: string; names: number } | undefined => {
    if (!speaks(step)) return undefined;
    const noun = objectOf(step);
    if (noun === undefined) return undefined;
    const names = support(noun);
    // A phrase one name holds may still end in the noun others share ("W_Completeren aanvraag").
    if (names < 2 && noun.includes(' ')) {
      const head = noun.slice(noun.lastIndexOf(' ') + 1);
      const headNames = support(head);
      if (headNames >= 2) return { noun: head, names: headNames };
    }
    return names >= 2 || step === mainStart ? { noun, names } : undefined;
  };
  const said = (noun: string, names: number, step: string, how: string) => ({
    noun,
    source: 'a reading of activity names',
    from: `${q(noun)} is the object in the name of ${q(step)}, ${how}; ${names} activity names act on it in different ways (of the ${common.length} activities of at least ${COMMON_NAME_SHARE * 100}% of cases)`,
  });
  // The commonest way cases start names the object first ("Create Fine", "Create Purchase Order Item").
  for (const e of starts.slice(0, FIRST_STEPS)) {
    const r = read(e.to);
    if (r) return said(r.noun, r.names, e.to, `a step ${e.cases} cases start with`);
  }
  // Else the steps most cases do; the phrase the names act on in the most ways.
  const found = backbone.steps
    .map((step) => ({ step, r: read(step) }))
    .filter((x) => x.r !== undefined)
    .sort((a, b) => b.r!.names - a.r!.names)[0];
  if (found) return said(found.r!.noun, found.r!.names, found.step, 'a step most cases do');
  const column = caseNotion ? nounOfColumn(caseNotion) : undefined;
  if (column) return { noun: column, source: "a reading of the case column's name", from: `the case identifier's name ${q(caseNotion!)}` };
  return undefined;
}

export function readProcessPart(f: Facts, backbone: Backbone, caseNotion: string | undefined, objectTypes: string[], ends: EndReading, caseIds: readonly string[], outcomes: LogProfile['outcomes'] = [], categories: LogProfile['categories'] = []): ProcessPart {
  // XES says 'trace' (the trace's concept:name); wire events carry a case id.
  const notion = caseNotion === undefined || caseNotion === '' ? 'case id' : caseNotion === 'trace' ? 'concept:name' : caseNotion;
  const objectType = objectTypes.includes(notion) ? notion : undefined;
  const found = objectType ? undefined : caseNoun(f, backbone, caseNotion, caseIds);
  const thing = objectType ?? found?.noun;
  const represents = objectType
    ? `one ${objectType} object (the OCEL object type chosen as case notion), with the events of every ${objectType} object related to it`
    : found
      ? `one ${found.noun} (${found.source}), identified by ${q(notion)}`
      : `one case, identified by ${q(notion)}; the activity names do not say what it is`;
  const successCases = ends.outcomes.filter((o) => o.kind === 'success').reduce((n, o) => n + o.cases, 0);
  const words = categories.length ? ` The log also records ${categories.map((c) => `${q(c.attribute)} at the end (${c.values.slice(0, 6).map(([v, n]) => `${q(v)} ${n}`).join(', ')})`).join(' and ')}.` : '';
  const recorded = (outcomes.length ? ` The log records ${outcomes.map((o) => `${q(o.attribute)} (true at the end of ${o.yes} of ${o.yes + o.no} cases)`).join(' and ')} as an outcome.` : '') + words;
  // Verdicts recorded by steps cases pass rather than end with ('Application Approved' before a notification).
  const passed = verdictSteps(f, 'success');
  const objective = ends.status && ends.successEnds.length
    ? `to bring each ${thing ?? 'case'} to ${ends.successEnds.map((a) => q(a) + (ends.status!.twinOf.has(a) ? ` (recorded with ${q(ends.status!.twinOf.get(a)!)})` : '')).join(' or ')}, the outcome status whose name says success (a reading of words); cases go on after their status with trailing work, so the last step is not the outcome.${recorded}`
    : ends.successEnds.length
    ? `to bring each ${thing ?? 'case'} to ${ends.successEnds.map(q).join(' or ')} (the endings whose names say success${recorded ? '' : '; a reading of words: the log records no outcome'}).${recorded}`
    : passed.length
      ? `to reach ${passed.map(([a, n]) => `${q(a)} (${n} of ${f.cases} cases)`).join(' or ')}: the steps whose names say success, though cases go on after them.${recorded}`
      : outcomes.length
      ? `not named by an ending.${recorded}`
      : categories.length
      ? `recorded in ${categories.map((c) => `${q(c.attribute)} (${c.values.slice(0, 6).map(([v, n]) => `${q(v)} ${n}`).join(', ')})`).join(' and ')}, not by the endings' names: which of its values are successes the log does not say`
      : ends.failureEnds.length || verdictSteps(f, 'failure').length
      ? `not recorded as a success: the log names only failures (${[...new Set([...ends.failureEnds, ...verdictSteps(f, 'failure').map(([a]) => a)])].map(q).join(', ')}); what a successful ${thing ?? 'case'} looks like is not in the data${otherEndings(ends, f.cases)}`
      : `not recorded in the data: no ending names a verdict, so the log does not say how a ${thing ?? 'case'} went (where cases stop is not how they went)`;
  const strength: Strength = objectType ? 'counted' : 'hypothesis';
  // The evidence speaks of what the objective rests on: success endings, else the success-named steps cases pass.
  const fromSteps = !ends.successEnds.length && passed.length > 0;
  const reached = fromSteps ? passed[0]![1] : successCases;
  const method =
    (objectType ? `the case notion is the OCEL object type ${q(objectType)}` : found ? found.from : 'no step cases start with names an object, nor does the case identifier') +
    (fromSteps
      ? `; the objective is the success-named steps cases pass (${passed.map(([a]) => q(a)).join(', ')}), the commonest reached by ${reached} of ${f.cases} cases; no ending names a success`
      : `; the objective is the success endings (${ends.successEnds.length ? ends.successEnds.map(q).join(', ') : 'none'}), reached by ${successCases} of ${f.cases} cases`);
  return { case_represents: represents, objective, evidence: evidence(objectType ? f.cases : reached, f.cases, objectType ? 1 : ratio(reached, f.cases), strength, method) };
}

/** Activities whose names say success (or failure) that at least one case in a hundred passes, with their cases, most first. */
function verdictSteps(f: Facts, kind: 'success' | 'failure'): [string, number][] {
  return f.activities
    // A step (nearly) every case passes tells no case from another, whatever its name.
    .filter((a) => nameVerdict(a) === kind && (f.activityCases.get(a) ?? 0) >= Math.max(1, 0.01 * f.cases) && (f.activityCases.get(a) ?? 0) < 0.99 * f.cases)
    .map((a): [string, number] => [a, f.activityCases.get(a) ?? 0])
    .sort((x, y) => y[1] - x[1] || cmp(x[0], y[0]));
}

/** Statements with a test on the data and the counted share of cases meeting them. */
export function readSuccessCriteria(f: Facts, ends: EndReading, outcomes: LogProfile['outcomes'] = []): SuccessCriterion[] {
  const out: SuccessCriterion[] = [];
  const success = new Set(ends.successEnds);
  const passed = verdictSteps(f, 'success');
  if (!ends.successEnds.length && passed.length) {
    // Cases that pass a success-named step, counted over the variants (a case passing two counts once).
    const ids = new Set(passed.map(([a]) => f.idOf.get(a)!));
    let n = 0;
    for (const v of f.variants) if (v.distinct.some((k) => ids.has(k))) n += v.count;
    out.push({
      id: 'success-step',
      statement: `A case succeeds when it passes ${passed.map(([a]) => q(a)).join(' or ')}.`,
      test: `an event of [${passed.map(([a]) => q(a)).join(', ')}] in the case`,
      share_met: ratio(n, f.cases),
      evidence: evidence(n, f.cases, ratio(n, f.cases), 'hypothesis', 'cases with an event of a step whose name says success, counted over the variants; success read from the name (a hypothesis)'),
    });
  }
  const successIds = ends.successEnds.map((a) => f.idOf.get(a)!);
  const succeeded = ends.status ? (v: Facts['variants'][number]) => successIds.some((k) => v.distinct.includes(k)) : (v: Facts['variants'][number]) => v.end !== undefined && success.has(v.end);
  if (ends.status && ends.successEnds.length) {
    let n = 0;
    for (const v of f.variants) if (succeeded(v)) n += v.count;
    out.push({
      id: 'success-status',
      statement: `A case succeeds when it reaches ${ends.successEnds.map(q).join(' or ')}, whatever follows (an outcome status read from names: a hypothesis).`,
      test: `an event of [${ends.successEnds.map(q).join(', ')}] in the case`,
      share_met: ratio(n, f.cases),
      evidence: evidence(n, f.cases, ratio(n, f.cases), 'hypothesis', `cases with an event of the success status, over all cases (${pct(ratio(n, f.cases))}); the status set is read from the variants, its verdict from names (a hypothesis)`),
    });
  } else if (ends.successEnds.length) {
    const n = ends.successEnds.reduce((s, a) => s + (ends.stops.get(a) ?? 0), 0);
    // Which ending is a success is read from its name: the share is counted, the verdict is a guess, so the
    // criterion is a hypothesis (an agent repeating it must know it rests on words, not on a recorded outcome).
    const noOutcome = outcomes.length ? `; the outcome the log records in ${outcomes.map((o) => q(o.attribute)).join(', ')} is a criterion of its own` : ': the log records no outcome';
    out.push({
      id: 'success-ending',
      statement: `A case succeeds when it ends with ${ends.successEnds.map(q).join(' or ')} (read from the endings' names${noOutcome}).`,
      test: `last activity of the case in [${ends.successEnds.map(q).join(', ')}]`,
      share_met: ratio(n, f.cases),
      evidence: evidence(n, f.cases, ratio(n, f.cases), 'hypothesis', `cases whose last event is a success ending, over all cases (${pct(ratio(n, f.cases))}); which ending is a success is read from the endings' names, not from a recorded outcome (a hypothesis)`),
    });
  }
  // "Never passes through x" only for failure steps that successful cases (nearly) never pass: when most
  // cases passing x still end in success, x is a detour, not a failure.
  const failIds = new Uint8Array(f.activities.length);
  const kept: string[] = [];
  for (const x of ends.failureEnds) {
    const k = f.idOf.get(x);
    if (k === undefined) continue;
    let through = 0;
    let won = 0;
    for (const v of f.variants) {
      if (!v.distinct.includes(k)) continue;
      through += v.count;
      if (succeeded(v)) won += v.count;
    }
    if (through && won < 0.5 * through) {
      kept.push(x);
      failIds[k] = 1;
    }
  }
  if (kept.length && ends.successEnds.length) {
    let n = 0;
    // "Never" only where no case ending in success passed one of them; else the statement gives the count.
    let succeeded = 0;
    let succeededThrough = 0;
    for (const v of f.variants) {
      const through = v.distinct.some((k) => failIds[k] === 1);
      if (!through) n += v.count;
      if (v.end === undefined || !success.has(v.end)) continue;
      succeeded += v.count;
      if (through) succeededThrough += v.count;
    }
    out.push({
      id: 'no-failure-step',
      statement: succeededThrough
        ? `A successful case does not pass through ${kept.map(q).join(' or ')}: ${succeededThrough} of the ${succeeded} cases ending in success did.`
        : `A successful case never passes through ${kept.map(q).join(' or ')}.`,
      test: `no event of [${kept.map(q).join(', ')}] in the case`,
      share_met: ratio(n, f.cases),
      // Failure and success both come from names here: a hypothesis, however exact the count.
      evidence: evidence(n, f.cases, ratio(n, f.cases), 'hypothesis', 'cases without any event of these failure endings (each one most cases passing it do not end in success), counted over the variants; failure and success read from the names (a hypothesis)'),
    });
  }
  // A verdict the log records in an attribute (an SLA flag), by its value when the case ends.
  for (const o of outcomes) {
    const n = o.yes + o.no;
    out.push({
      id: `recorded-${o.attribute.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()}`,
      statement: `The log records whether a case met ${q(o.attribute)}: true when the case ends.`,
      test: `last value of ${q(o.attribute)} in the case is true`,
      share_met: ratio(o.yes, n),
      evidence: evidence(o.yes, n, ratio(o.yes, n), 'counted', `the value each case ends with (profile counters), over the ${n} cases carrying it; taken as a verdict because its values are true/false and its name reads as one (a hypothesis about the name)`),
    });
  }
  // No criterion rests on the case duration: an observed percentile is no target, and on a simulated or capped
  // clock not even a pace (the service-level policy states it as what it is).
  return out;
}

/** The endings with no verdict in their names that end at least 5% of the cases: they may be the successes. */
function otherEndings(ends: EndReading, cases: number): string {
  const other = ends.outcomes.filter((o) => o.kind === 'other' && ends.ends.has(o.end_activity) && o.cases >= 0.05 * cases).sort((x, y) => y.cases - x.cases || cmp(x.end_activity, y.end_activity));
  return other.length ? `, though cases also end at ${other.slice(0, 4).map((o) => `${q(o.end_activity)} (${o.cases})`).join(', ')}, which give no verdict in their names: whether those are successes the log does not say` : '';
}
