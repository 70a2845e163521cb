import { cmp } from '../event.js';
import { sketchCount, quantile, ZERO_BUCKET } from '../sketch.js';
import { splitKey, splitProfileKey, type Tally } from '../tally.js';
import { STANDARD_TRANSITIONS as STANDARD_LIFECYCLE } from '../lifecycle.js';
import { hoursText, pct, q, ratio } from './facts.js';
import { isPlaceholder, wordsOf } from './words.js';

/**
 * What the data is, before what it says (issue 31): read once from the profile's counters (Tally.profile,
 * Tally.serviceTime; engine/profile-fold.ts) and used by every rule of the reading. Each fact is a rule about how
 * event data is made, never about a named log:
 * - resolution: times written by the day (nearly every event at one or two minutes of the day) or by the minute
 *   say nothing of order or waits below that; claims there are at most weak, or not made;
 * - lifecycle: transitions counted as steps, or a transition column holding something else (statuses);
 * - snapshots: a log of record updates (a status column as the activity, end values copied onto every row) where
 *   a repeat of one state is an update, not rework and not a decision;
 * - leaked attributes: a value on the first event that foretells where the case ends, and attributes constant from
 *   the first event (written once per case, e.g. at extraction), whose time of setting the data does not show;
 * - outcome attributes: a recorded verdict (an SLA flag) the endings' names do not give.
 */

/** A grouping attribute has at least this many values, at most GROUP_SHARE values per case and GROUP_SIZE cases per value. */
const GROUP_MIN = 20;
const GROUP_SHARE = 0.9;
const GROUP_SIZE = 5;
/** Share of events at the one or two commonest minutes of the day from which times are day-level. */
const DAY_LEVEL = 0.95;
/** Share of events at whole minutes from which times are minute-level. */
const MINUTE_LEVEL = 0.95;
/** A first-event value foretells the ending when it does so for at least this share of the cases with it. */
export const LEAK_SHARE = 0.95;
/** ...and at least this many points above always guessing the commonest ending. */
const LEAK_LIFT = 0.05;
/** ...or one value does: on at least this share of the cases, for an ending at most RARE_ENDING of all cases reach, VALUE_LIFT above it. */
const VALUE_SHARE = 0.05;
const RARE_ENDING = 0.85;
const VALUE_LIFT = 0.2;
/** ...or one value keeps a sizeable part of the cases (at most 1% of them) from an ending at least this share of the other cases reach. */
const EXCLUDED_ELSEWHERE = 0.5;
/** An attribute is constant from the first event when it is there and unchanged in at least this share of the cases with it. */
const CONSTANT_SHARE = 0.99;
/** A date-valued attribute lies in the case's future in at least this share of the cases with it: an end value copied onto every row. */
const FUTURE_SHARE = 0.5;
/** Transitions outside the standard model on at least this share of the events carrying one: the column holds something else. */
const NON_STANDARD = 0.5;
/** Words of an attribute name that make it a recorded outcome, read when its final value is a boolean. */
const TRUE = ['b:true', 's:true', 's:TRUE', 's:True', 's:yes', 's:Yes', 'n:1'];
const FALSE = ['b:false', 's:false', 's:FALSE', 's:False', 's:no', 's:No', 'n:0'];
/** An outcome written as words has at most this many values. */
const MAX_CATEGORIES = 12;
const OUTCOME_WORDS = new Set(['sla', 'outcome', 'result', 'success', 'successful', 'ontime', 'late', 'breach', 'breached', 'compliant', 'compliance', 'met']);

export interface AttributeProfile {
  present: number;
  atFirst: number;
  changed: number;
  future: number;
}

export interface LogProfile {
  events: number;
  /** Hours below which the times say nothing: 24 for day-level data, 1/60 for whole minutes, else 0. */
  resolutionHours: number;
  dayLevel: boolean;
  /**
   * Nearly every event at one minute of its hour (not :00) while the hours vary: times generated as an hour count with
   * a fixed offset, not recorded as the work happened; no timing claim is read from them.
   */
  generatedTimes: { minute: number; share: number } | undefined;
  /**
   * Every case begins and ends at one instant while cases have several events (one placeholder time for the whole
   * log, or one per case): the log records the order of steps only. Waits and durations are not measured, and
   * equal timestamps say nothing (no entry is "written twice" because its time repeats).
   */
  frozenClock: boolean;
  /** Per attribute followed: cases with it, with it on the first event, with its value changing, with a later date. */
  attributes: Map<string, AttributeProfile>;
  /** Attributes whose first-event value foretells the case's ending, with the figure that says so. */
  leaks: Map<string, string>;
  /** Attributes on the first event and unchanged in (nearly) every case with them: when they were set, the data does not say. */
  constant: Set<string>;
  /** Attributes whose values lie in the case's future (end values copied onto every row). */
  future: string[];
  /** Signals of a log of record updates (a status as the activity): a repeat of one state is an update. */
  snapshot: string[];
  /** Lifecycle transitions counted as steps (a start not folded into its execution), and a column of non-standard values. */
  lifecycle: { starts: number; transitions: number; nonStandard: boolean };
  /**
   * Case attributes that group cases (several cases share a value, as offers share their application): constant
   * per case, at least GROUP_MIN values, a few cases per value. With their first-event values: value -> ending -> cases.
   */
  groupings: { attribute: string; cases: number; values: number; byValue: Map<string, Map<string, number>> }[];
  /** Boolean attributes whose name reads as an outcome, with the cases ending true and false. */
  outcomes: { attribute: string; yes: number; no: number }[];
  /** Attributes whose name reads as an outcome holding a few text values at the end of the cases: value -> cases, most first. */
  categories: { attribute: string; values: [string, number][] }[];
  /** Activities with service times (a start per execution), and how many executions carry one. */
  serviced: { activities: number; executions: number; longest: [string, number][] };
  assumptions(): string[];
}

const attributeOf = (m: Map<string, AttributeProfile>, a: string) => {
  let p = m.get(a);
  if (!p) m.set(a, (p = { present: 0, atFirst: 0, changed: 0, future: 0 }));
  return p;
};

export function profileOf(tally: Tally, toHours: (millis: number) => number): LogProfile {
  const tod = new Map<string, number>();
  const grain = new Map<string, number>();
  const transitions = new Map<string, number>();
  const attributes = new Map<string, AttributeProfile>();
  /** attribute -> value -> last activity -> cases */
  const first = new Map<string, Map<string, Map<string, number>>>();
  const finals = new Map<string, Map<string, number>>();
  // In key order: the counters' order in memory follows how they were loaded (a store, parts read on threads), and
  // ties below are broken by that order, so the same counts must give the same reading whatever loaded them.
  for (const [key, n] of [...tally.profile].sort((x, y) => cmp(x[0], y[0]))) {
    const { kind, a, b } = splitProfileKey(key);
    if (kind === 'tod') tod.set(a, (tod.get(a) ?? 0) + n);
    else if (kind === 'grain') grain.set(a, (grain.get(a) ?? 0) + n);
    else if (kind === 'lifecycle') transitions.set(a, (transitions.get(a) ?? 0) + n);
    else if (kind === 'present' || kind === 'atFirst' || kind === 'changed' || kind === 'future') attributeOf(attributes, a)[kind] += n;
    else if (kind === 'first') {
      const [attribute, value] = splitKey(a);
      let byValue = first.get(attribute);
      if (!byValue) first.set(attribute, (byValue = new Map()));
      let byEnd = byValue.get(value);
      if (!byEnd) byValue.set(value, (byEnd = new Map()));
      byEnd.set(b, (byEnd.get(b) ?? 0) + n);
    } else if (kind === 'final') {
      const [attribute, value] = splitKey(a);
      let byValue = finals.get(attribute);
      if (!byValue) finals.set(attribute, (byValue = new Map()));
      byValue.set(value, (byValue.get(value) ?? 0) + n);
    }
  }
  const events = [...grain.values()].reduce((s, n) => s + n, 0);
  const top2 = [...tod.values()].sort((x, y) => y - x).slice(0, 2).reduce((s, n) => s + n, 0);
  const dayLevel = events >= 20 && top2 >= DAY_LEVEL * events;
  const wholeMinutes = (grain.get('min') ?? 0) + (grain.get('h') ?? 0);
  const minuteLevel = !dayLevel && events >= 20 && wholeMinutes >= MINUTE_LEVEL * events;
  const resolutionHours = dayLevel ? 24 : minuteLevel ? 1 / 60 : 0;
  const generatedTimes = dayLevel ? undefined : generatedClock(tod, events);
  const frozenClock = tally.cases >= 2 && tally.events > tally.cases && [...tally.caseDuration.keys()].every((b) => b === ZERO_BUCKET);

  const leaks = new Map<string, string>();
  for (const [attribute, byValue] of first) {
    const endings = new Map<string, number>();
    let cases = 0;
    let foretold = 0;
    const values: { value: string; cases: number; end: string; most: number }[] = [];
    for (const [value, byEnd] of byValue) {
      // A placeholder is no value: what cases lacking one do says nothing of the attribute.
      if (value.startsWith('s:') && isPlaceholder(value.slice(2))) continue;
      let most = 0;
      let end = '';
      let n = 0;
      for (const [e, k] of byEnd) {
        endings.set(e, (endings.get(e) ?? 0) + k);
        n += k;
        if (k > most) [most, end] = [k, e];
      }
      cases += n;
      foretold += most;
      values.push({ value, cases: n, end, most });
    }
    const baseline = Math.max(0, ...endings.values()) / (cases || 1);
    const share = ratio(foretold, cases);
    // A value per case foretells everything and says nothing: such an attribute is an identifier, left out anyway.
    if (cases < 20 || byValue.size >= 0.5 * cases) continue;
    if (share >= LEAK_SHARE && share - baseline >= LEAK_LIFT) {
      leaks.set(attribute, `its value on the first event foretells the last activity in ${pct(share)} of ${cases} cases (always guessing the commonest ending: ${pct(baseline)})`);
      continue;
    }
    const why = tellingGroup(groupsOf(values, byValue), endings, cases);
    if (why) leaks.set(attribute, why);
  }
  const constant = new Set<string>();
  const future: string[] = [];
  for (const [a, p] of attributes) {
    if (p.present > 0 && p.atFirst >= CONSTANT_SHARE * p.present && p.changed <= (1 - CONSTANT_SHARE) * p.present) constant.add(a);
    if (p.present > 0 && p.future >= FUTURE_SHARE * p.present) future.push(a);
  }
  const groupings: LogProfile['groupings'] = [];
  for (const [attribute, byValue] of [...first].sort((x, y) => cmp(x[0], y[0]))) {
    if (!constant.has(attribute) || byValue.size < GROUP_MIN) continue;
    let cases = 0;
    for (const byEnd of byValue.values()) for (const k of byEnd.values()) cases += k;
    // Nearly a value per case is the case's own identifier; many cases per value is a category, not a larger thing.
    if (byValue.size > GROUP_SHARE * cases || cases > GROUP_SIZE * byValue.size) continue;
    groupings.push({ attribute, cases, values: byValue.size, byValue });
  }
  future.sort(cmp);
  const carrying = [...transitions.values()].reduce((s, n) => s + n, 0);
  const nonStandardEvents = [...transitions].filter(([t]) => !STANDARD_LIFECYCLE.has(t)).reduce((s, [, n]) => s + n, 0);
  const lifecycle = { starts: transitions.get('start') ?? 0, transitions: carrying, nonStandard: carrying > 0 && nonStandardEvents >= NON_STANDARD * carrying };
  const snapshot: string[] = [];
  if (lifecycle.nonStandard) snapshot.push(`the lifecycle:transition column holds values outside the lifecycle model on ${pct(ratio(nonStandardEvents, carrying))} of the events carrying one (statuses such as ${[...transitions].filter(([t]) => !STANDARD_LIFECYCLE.has(t)).sort((x, y) => y[1] - x[1] || cmp(x[0], y[0])).slice(0, 3).map(([t]) => q(t)).join(', ')})`);
  if (future.length) snapshot.push(`${future.map(q).join(', ')} ${future.length === 1 ? 'holds' : 'hold'} on its rows dates later than the row itself (values from the case's future copied onto every row)`);

  const outcomes: LogProfile['outcomes'] = [];
  for (const [attribute, byValue] of finals) {
    const words = wordsOf(attribute.replace(/^case:/, ''));
    if (!words.some((w) => OUTCOME_WORDS.has(w))) continue;
    // True and false as a boolean, as text or as 1 and 0 (a CSV column).
    const yes = TRUE.reduce((n, v) => n + (byValue.get(v) ?? 0), 0);
    const no = FALSE.reduce((n, v) => n + (byValue.get(v) ?? 0), 0);
    const all = [...byValue.values()].reduce((s, n) => s + n, 0);
    if (yes + no >= 0.9 * all && yes > 0 && no > 0) outcomes.push({ attribute, yes, no });
  }
  outcomes.sort((x, y) => cmp(x.attribute, y.attribute));
  // An outcome written as words ('processed', 'rejected', 'not liable'): the log records how cases went, though not
  // which values are successes.
  const categories: LogProfile['categories'] = [];
  // Several such names that differ only in their last word ('Result by Reviewer A', '... B') are the verdicts of
  // the parts of a case (each reviewer's), not the case's own.
  const stem = (a: string) => a.replace(/^case:/, '').replace(/[\s_:.-]*[^\s_:.-]+$/, '');
  const family = (a: string) => [...finals.keys()].filter((b) => b !== a && stem(b) !== '' && stem(b) === stem(a)).length > 0;
  for (const [attribute, byValue] of [...finals].sort((x, y) => cmp(x[0], y[0]))) {
    const words = wordsOf(attribute.replace(/^case:/, ''));
    if (!words.some((w) => OUTCOME_WORDS.has(w)) || outcomes.some((o) => o.attribute === attribute)) continue;
    const texts = [...byValue].filter(([v]) => v.startsWith('s:') && !isPlaceholder(v.slice(2)));
    const all = [...byValue.values()].reduce((n, k) => n + k, 0);
    const covered = texts.reduce((n, [, k]) => n + k, 0);
    if (texts.length >= 2 && texts.length <= MAX_CATEGORIES && covered >= 0.9 * all && covered >= 20 && !family(attribute)) {
      categories.push({ attribute, values: texts.map(([v, k]): [string, number] => [v.slice(2), k]).sort((x, y) => y[1] - x[1] || cmp(x[0], y[0])) });
    }
  }

  let executions = 0;
  const medians: [string, number][] = [];
  for (const [activity, s] of tally.serviceTime) {
    const n = sketchCount(s);
    executions += n;
    if (n > 0) medians.push([activity, toHours(quantile(s, 0.5))]);
  }
  medians.sort((x, y) => y[1] - x[1] || cmp(x[0], y[0]));
  const serviced = { activities: medians.length, executions, longest: medians.slice(0, 3) };

  return {
    events,
    resolutionHours,
    dayLevel,
    generatedTimes,
    frozenClock,
    attributes,
    leaks,
    constant,
    future,
    snapshot,
    lifecycle,
    groupings,
    outcomes,
    categories,
    serviced,
    assumptions() {
      const out: string[] = [];
      if (frozenClock) out.push(`Times: every case begins and ends at one instant (${tally.cases} cases, ${tally.events} events): the log records the order of the steps, not when they happened. Waits and durations are not measured (the 0 hours of the nodes, edges and variants mean not measured; no timing policy, service level, escalation or timeout is read; source.time_basis reads clock only because the contract has no value for a log without times), which of two steps came first is the file's order (every order claim is at most weak), and equal timestamps say nothing of entries written at once.`);
      else if (dayLevel) out.push(`Data resolution: times are day-level (${pct(ratio(top2, events))} of the events fall at one or two minutes of the day): the order of steps within a day is the file's, and waits under a day are not measured; claims resting on them are at most weak, and none is stated below 24 hours.`);
      else if (minuteLevel) out.push(`Data resolution: times are whole minutes (${pct(ratio(wholeMinutes, events))} of the events): no claim is stated below a minute.`);
      if (generatedTimes) out.push(`Times: ${pct(generatedTimes.share)} of the events fall at minute :${String(generatedTimes.minute).padStart(2, '0')} of their hour while the hours vary: the times were generated (an hour count with a fixed offset), not recorded as the work happened, so no timing policy, service level, escalation or timeout is read from them.`);
      if (lifecycle.starts > 0 && !lifecycle.nonStandard) {
        out.push(`Lifecycle: ${lifecycle.starts} events are start transitions counted as steps of their own (an execution begun and not completed in the log, or a log read with every transition as a step).`);
      }
      if (serviced.executions > 0) {
        out.push(`Executions: ${serviced.executions} events carry the start of their execution (a start and complete paired, or a start column), so service times are measured for ${serviced.activities} activities (longest median: ${serviced.longest.map(([a, h]) => `${q(a)} ${hoursText(h)} h`).join(', ')}); waits between steps run from one step's completion to the next one's start.`);
      }
      if (snapshot.length) out.push(`Record updates: the log reads as snapshots of records rather than steps of work (${snapshot.join('; ')}): a repeat of one state is an update of the record, not rework and not a branch of a decision.`);
      if (leaks.size) out.push(`Attributes that may encode the ending (written knowing it, or deciding it from the first event on: the log does not say which), left out of decision rules: ${[...leaks].map(([a, why]) => `${q(a)} (${why})`).join('; ')}.`);
      const constants = [...constant].filter((a) => a.startsWith('case:') && !leaks.has(a)).sort(cmp);
      if (constants.length) out.push(`Attributes of the whole case (${constants.slice(0, 8).map(q).join(', ')}${constants.length > 8 ? `, and ${constants.length - 8} more` : ''}) are written once per case, often when the log was extracted (a total of what came later, the path's own number): when they were set the log does not say, so they are left out of decision rules.`);
      for (const o of outcomes) out.push(`Outcome attribute: ${q(o.attribute)} ends true in ${o.yes} and false in ${o.no} cases: a verdict the log records.`);
      for (const c of categories) out.push(`Outcome attribute: ${q(c.attribute)} records how cases ended, in words: ${c.values.map(([v, n]) => `${q(v)} (${n})`).join(', ')}; which of these are successes the log does not say.`);
      return out;
    },
  };
}

interface ValueGroup {
  /** How the group reads: "6" or "< 200" (numbers split at one boundary). */
  label: string;
  cases: number;
  byEnd: Map<string, number>;
}

/**
 * The value groups a leak is looked for in: each value on its own, and for numbers each side of every boundary
 * between two counted values (a score computed only for the cases that end one way is 0 for all others, and its
 * positive values are spread over many bins, none of them large).
 */
function groupsOf(values: { value: string; cases: number }[], byValue: Map<string, Map<string, number>>): ValueGroup[] {
  const groups: ValueGroup[] = values.map((v) => ({ label: v.value.slice(2), cases: v.cases, byEnd: byValue.get(v.value)! }));
  if (values.length < 3 || !values.every((v) => v.value.startsWith('n:'))) return groups;
  const sorted = [...values].sort((x, y) => Number(x.value.slice(2)) - Number(y.value.slice(2)));
  const total = new Map<string, number>();
  for (const v of sorted) for (const [e, k] of byValue.get(v.value)!) total.set(e, (total.get(e) ?? 0) + k);
  const all = sorted.reduce((n, v) => n + v.cases, 0);
  const left = new Map<string, number>();
  let below = 0;
  for (let i = 0; i < sorted.length - 1; i++) {
    for (const [e, k] of byValue.get(sorted[i]!.value)!) left.set(e, (left.get(e) ?? 0) + k);
    below += sorted[i]!.cases;
    const t = sorted[i + 1]!.value.slice(2);
    const right = new Map([...total].map(([e, k]) => [e, k - (left.get(e) ?? 0)]));
    groups.push({ label: `< ${t}`, cases: below, byEnd: new Map(left) }, { label: `>= ${t}`, cases: all - below, byEnd: right });
  }
  return groups;
}

/**
 * A group of first-event values that tells the ending where the attribute as a whole does not: a sizeable group
 * (VALUE_SHARE of the cases) sent to an ending most cases do not reach (isClosed = false on the first event of 8% of
 * the bills, nearly all of them deleted; a score above 0 only on accepted offers), or kept from an ending most of
 * the other cases reach (an offer not picked by the customer is never accepted). Either way the value was written
 * knowing the ending.
 */
function tellingGroup(all: ValueGroup[], endings: Map<string, number>, cases: number): string | undefined {
  // The largest telling group says the most (a score above 0, not one of its bins).
  const groups = [...all].sort((x, y) => y.cases - x.cases);
  for (const g of groups) {
    if (g.cases < VALUE_SHARE * cases || g.cases < 20) continue;
    let most = 0;
    let end = '';
    for (const [e, k] of g.byEnd) if (k > most || (k === most && cmp(e, end) < 0)) [most, end] = [k, e];
    const endShare = (endings.get(end) ?? 0) / cases;
    if (most >= LEAK_SHARE * g.cases && endShare <= RARE_ENDING && most / g.cases - endShare >= VALUE_LIFT) {
      return `its value ${g.label} on the first event of ${g.cases} cases foretells ${q(end)} as their last activity in ${pct(most / g.cases)} of them (${pct(endShare)} of all cases end there)`;
    }
  }
  for (const g of groups) {
    if (g.cases < VALUE_SHARE * cases || g.cases < 20 || cases - g.cases < 20) continue;
    for (const [e, k] of [...endings].sort((x, y) => y[1] - x[1] || cmp(x[0], y[0]))) {
      const own = g.byEnd.get(e) ?? 0;
      const others = (k - own) / (cases - g.cases);
      if (own <= (1 - LEAK_SHARE) * 0.2 * g.cases && others >= EXCLUDED_ELSEWHERE) {
        return `its value ${g.label} on the first event of ${g.cases} cases keeps them from ${q(e)}: ${own} of them end there, against ${pct(others)} of the other cases`;
      }
    }
  }
  return undefined;
}

/** Share of the events at one minute of the hour from which times read as generated; over at least this many events and hours. */
const GENERATED_SHARE = 0.9;
const GENERATED_MIN_EVENTS = 50;
const GENERATED_MIN_HOURS = 3;

/** The `tod` counters (minute of the UTC day) folded to the minute of the hour: one minute (not :00, whole hours are a resolution) holding nearly all. */
function generatedClock(tod: Map<string, number>, events: number): LogProfile['generatedTimes'] {
  if (events < GENERATED_MIN_EVENTS) return undefined;
  const byMinute = new Map<number, number>();
  const hours = new Set<number>();
  for (const [m, n] of tod) {
    byMinute.set(Number(m) % 60, (byMinute.get(Number(m) % 60) ?? 0) + n);
    hours.add(Math.floor(Number(m) / 60));
  }
  let best: [number, number] = [0, 0];
  for (const e of byMinute) if (e[1] > best[1]) best = e;
  const [minute, n] = best;
  if (minute === 0 || hours.size < GENERATED_MIN_HOURS || n < GENERATED_SHARE * events) return undefined;
  return { minute, share: n / events };
}
