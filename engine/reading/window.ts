import { cmp } from '../event.js';
import { splitKey } from '../tally.js';
import { HOUR_MS } from '../time.js';
import type { Plain, Policy, SequenceRule, SuccessCriterion } from '../document/types.js';
import { pct, q, ratio, type Facts } from './facts.js';

/**
 * The log's observation window: how the extract was cut shapes what its cases
 * can show, before anything they say about the process.
 *
 * Right-censoring: an extract cut at a date holds cases begun shortly before
 * the cut that had no time to finish. If cases stopped outside an ending were
 * abandoned or stuck, they would have begun whenever finished cases began; in
 * progress at the cut, they began late. So the window is read from when cases
 * began (the `began` counters: last activity by the hour of the first event):
 * the final stretch is where the latest quarter of the finished cases began,
 * and when at least three quarters of the unfinished cases began in it (three
 * times what a spread like the finished cases' would put there), those begun
 * in it are open (censored) whatever their idle gap.
 *
 * Selection on the ending: an extract of closed cases keeps the cases that
 * ended in a window. Case ends then bunch in a stretch much shorter than the
 * time their starts spread over; in a log cut by date, starts and ends spread
 * over about the same time, shifted by the durations.
 */

/** The final stretch of the window is where this latest share of the finished cases began. */
const LATE_FINISHED = 0.25;
/** Unfinished cases cluster at the end when at least this share of them began in the final stretch. */
const CLUSTERED = 0.75;
/** Fewer unfinished cases than this say nothing about where they began. */
const MIN_UNFINISHED = 5;
/** Fewer finished cases than this give no final stretch. */
const MIN_FINISHED = 20;
/** The central share of starts and of ends compared. */
const CENTRAL = 0.9;
/** Ends are bunched when their central 90% lie within at most this share of the time the central 90% of starts spread over. */
const BUNCHED = 0.25;
/** One ending this share of the cases end with leaves no outcome to vary. */
const ONE_ENDING = 0.99;
/** Cut-off cases at least this share of all cases could move a service level's stated share by more than a point: none is read. */
export const CENSORED_DURATIONS = 0.01;
/** Fewer cases than this say nothing about how they were selected. */
const MIN_CASES = 20;

export interface Censoring {
  /** The final stretch begins at this hour since the epoch: the latest LATE_FINISHED of the finished cases began at or after it. */
  fromHour: number;
  finished: number;
  finishedInStretch: number;
  unfinished: number;
  /** Unfinished cases begun in the final stretch: open, censored by the cut. */
  censored: number;
  /** The censored cases by the activity they stop at. */
  byActivity: Map<string, number>;
  /** The activities the unfinished cases stop at, sorted. */
  stopsAt: string[];
}

export interface Selection {
  /** The ending at least ONE_ENDING of the cases end with, if one is. */
  ending: string | undefined;
  endingCases: number;
  /** The central 90% of case ends and of case starts, hours since the epoch (first and last hour). */
  ends: [number, number];
  starts: [number, number];
}

/** Cases by the hour their first (began) or last event lies in, per last activity. */
function byHour(counter: ReadonlyMap<string, number>, keep: (activity: string) => boolean): [number, number][] {
  const hours = new Map<number, number>();
  for (const [key, n] of counter) {
    const [activity, hour] = splitKey(key);
    if (keep(activity)) hours.set(Number(hour), (hours.get(Number(hour)) ?? 0) + n);
  }
  return [...hours].sort((a, b) => a[0] - b[0]);
}

/** The first hour by which at least share of the cases are counted (hours sorted). */
function hourAt(hours: readonly [number, number][], total: number, share: number): number {
  let seen = 0;
  for (const [h, n] of hours) {
    seen += n;
    if (seen >= share * total) return h;
  }
  return hours[hours.length - 1]![0];
}

const sum = (hours: readonly [number, number][], from = -Infinity) => hours.reduce((s, [h, n]) => s + (h >= from ? n : 0), 0);

/**
 * Whether the cases stopped outside an ending (`unfinished(activity)` for the activity they stop at) began in the
 * window's final stretch, where the latest quarter of the finished ones began (`finished(activity)`).
 */
export function readCensoring(f: Facts, unfinished: (activity: string) => boolean, finished: (activity: string) => boolean): Censoring | undefined {
  const begun = f.tally.firstEvents;
  if (!begun.size) return undefined;
  const done = byHour(begun, finished);
  const open = byHour(begun, unfinished);
  const nDone = sum(done);
  const nOpen = sum(open);
  if (nDone < MIN_FINISHED || nOpen < MIN_UNFINISHED) return undefined;
  // The first hour from which at most LATE_FINISHED of the finished cases began.
  let fromHour = done[done.length - 1]![0];
  let after = 0;
  for (let i = done.length - 1; i >= 0; i--) {
    if (after + done[i]![1] > LATE_FINISHED * nDone) break;
    after += done[i]![1];
    fromHour = done[i]![0];
  }
  if (after === 0) fromHour = done[done.length - 1]![0] + 1;
  const censored = sum(open, fromHour);
  if (censored < CLUSTERED * nOpen) return undefined;
  const byActivity = new Map<string, number>();
  const stopsAt = new Set<string>();
  for (const [key, n] of begun) {
    const [activity, hour] = splitKey(key);
    if (!unfinished(activity)) continue;
    stopsAt.add(activity);
    if (Number(hour) >= fromHour) byActivity.set(activity, (byActivity.get(activity) ?? 0) + n);
  }
  return { fromHour, finished: nDone, finishedInStretch: after, unfinished: nOpen, censored, byActivity, stopsAt: [...stopsAt].sort(cmp) };
}

/** Whether case ends bunch in a stretch far shorter than the time their starts spread over. */
export function readSelection(f: Facts): Selection | undefined {
  if (f.cases < MIN_CASES || !f.tally.firstEvents.size) return undefined;
  const all = () => true;
  const starts = byHour(f.tally.firstEvents, all);
  const ends = byHour(f.tally.lastEvents, all);
  const low = (1 - CENTRAL) / 2;
  const s: [number, number] = [hourAt(starts, f.cases, low), hourAt(starts, f.cases, 1 - low)];
  const e: [number, number] = [hourAt(ends, f.cases, low), hourAt(ends, f.cases, 1 - low)];
  const startSpan = s[1] - s[0] + 1;
  const endSpan = e[1] - e[0] + 1;
  if (endSpan > BUNCHED * startSpan) return undefined;
  const stops = new Map<string, number>();
  for (const [key, n] of f.tally.lastEvents) {
    const a = splitKey(key)[0];
    stops.set(a, (stops.get(a) ?? 0) + n);
  }
  const [ending, endingCases] = [...stops].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0]))[0] ?? ['', 0];
  return { ending: endingCases >= ONE_ENDING * f.cases ? ending : undefined, endingCases, ends: e, starts: s };
}

const day = (hour: number) => new Date(hour * HOUR_MS).toISOString().slice(0, 10);
const days = (hours: number) => (hours >= 48 ? `${Math.round(hours / 24)} days` : `${hours} hours`);

/** The observation window's assumption (once), or none when the window shows neither bias. */
export function windowAssumption(f: Facts, censoring: Censoring | undefined, selection: Selection | undefined): Plain[] {
  const out: Plain[] = [];
  if (censoring) {
    const c = censoring;
    out.push(
      `Observation window: the log was cut while cases ran. The latest ${LATE_FINISHED * 100}% of the finished cases (stopped at an ending) began from ${new Date(c.fromHour * HOUR_MS).toISOString()} on (${c.finishedInStretch} of ${c.finished}), but ${c.censored} of the ${c.unfinished} cases stopped outside an ending (at ${c.stopsAt.slice(0, 12).map(q).join(', ')}${c.stopsAt.length > 12 ? ` and ${c.stopsAt.length - 12} more` : ''}; ${pct(ratio(c.censored, c.unfinished))}) began then: ` +
        `stopped cases that were abandoned or stuck would have begun whenever finished ones did, so these were in progress when the log was cut (censored), whatever their idle gap. ` +
        `They are counted as open, not stalled or abandoned; their last steps are no skips to the end and their paths no exceptions` +
        (c.censored >= CENSORED_DURATIONS * f.cases
          ? `, and no service level is read from case durations (theirs are durations so far, and they are ${pct(ratio(c.censored, f.cases))} of the cases, at least ${CENSORED_DURATIONS * 100}%). `
          : ` (they are ${pct(ratio(c.censored, f.cases))} of the cases, under ${CENSORED_DURATIONS * 100}%: the service level counts their durations so far). `) +
        `Rule: when at least ${CLUSTERED * 100}% of the cases stopped outside an ending began in the stretch where the latest ${LATE_FINISHED * 100}% of the finished cases began (at least ${MIN_UNFINISHED} and ${MIN_FINISHED} cases), those begun there are open.`,
    );
  }
  if (selection) {
    const s = selection;
    const endSpan = s.ends[1] - s.ends[0] + 1;
    const startSpan = s.starts[1] - s.starts[0] + 1;
    out.push(
      `Observation window: the log looks selected on its ending. The middle ${CENTRAL * 100}% of the cases end within ${days(endSpan)} (${day(s.ends[0])} to ${day(s.ends[1])}) while their starts spread over ${days(startSpan)} (${day(s.starts[0])} to ${day(s.starts[1])}): the ends are ${pct(ratio(endSpan, startSpan))} as spread as the starts (the cut is ${BUNCHED * 100}%; a log cut by date spreads both over about the same time). ` +
        `The cases were kept because they ended in that window (a log of closed cases), so case durations lean towards cases that stayed open long: no service level is read from them.` +
        (s.ending
          ? ` ${pct(ratio(s.endingCases, f.cases))} of the cases end with ${q(s.ending)}: that is the filter, not a result, so no success share is given, and rules that ${q(s.ending)} eventually follows hold by selection.`
          : ''),
    );
  }
  return out;
}

/** Whether case durations are biased by the window: selected on the ending, or at least CENSORED_DURATIONS of the cases cut off. */
export function biasedDurations(f: Facts, censoring: Censoring | undefined, selection: Selection | undefined): boolean {
  return selection !== undefined || (censoring !== undefined && censoring.censored >= CENSORED_DURATIONS * f.cases);
}

/** Leaves out the service level (from case durations) when the window biases them, and says why in the method. */
export function windowPolicies(f: Facts, policies: Policy[], censoring: Censoring | undefined, selection: Selection | undefined): Policy[] {
  if (!biasedDurations(f, censoring, selection)) return policies;
  return policies.filter((p) => p.kind !== 'service_level');
}

/** Rules that the selected ending eventually follows hold by selection: their statement says so. */
export function windowRules(rules: SequenceRule[], selection: Selection | undefined): SequenceRule[] {
  const ending = selection?.ending;
  if (ending === undefined) return rules;
  return rules.map((r) =>
    r.type === 'response' && r.activities[r.activities.length - 1] === ending
      ? { ...r, statement: `${r.statement.replace(/\.$/, '')} (by selection: the log keeps only cases that ended with ${q(ending)}, see the observation window assumption).` }
      : r,
  );
}

/** With one ending selected on, a success share would be the filter's: the criteria keep their test, not a share. */
export function windowCriteria(criteria: SuccessCriterion[], selection: Selection | undefined): SuccessCriterion[] {
  const ending = selection?.ending;
  if (ending === undefined) return criteria;
  return criteria.filter((c) => !c.test.includes(q(ending)));
}
