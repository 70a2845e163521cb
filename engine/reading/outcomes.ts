import { cmp } from '../event.js';
import { isPlaceholderStep } from './placeholder-steps.js';
import { sketchCount } from '../sketch.js';
import { splitKey } from '../tally.js';
import { DAY_MS, HOUR_MS } from '../time.js';
import type { Outcome } from '../document/types.js';
import type { Backbone } from './backbone.js';
import { pct, q, quantile, ratio, slug, uniqueIds, type Facts } from './facts.js';
import { readStatusSet, type StatusSet } from './statuses.js';
import { FAILURE_WORDS, isFinalName, nameVerdict, SUCCESS_WORDS } from './words.js';
import { readCensoring, type Censoring } from './window.js';

/** An activity is an ending when at least this share of the cases doing it stop right after it. */
export const ENDING_SHARE = 0.5;
/** An activity whose name reads as a success or failure is an ending when at least this share of the cases doing it stop there. */
export const NAMED_ENDING_SHARE = 0.2;
/** A stopped case is recent when its last event is no older than this quantile of its activity's time to the next step. */
export const OPEN_QUANTILE = 0.95;
/** Fewer observed waits after an activity than this say nothing about what is recent there. */
const MIN_WAITS = 5;
/** Case ends this far after nearly all others are outliers (reported, and not used as "now"). */
const OUTLIER_GAP_MS = 30 * DAY_MS;

/** A success-named ending is a step on the way to another when at least this share of its cases do the other after it. */
const ON_THE_WAY = 0.5;
/** A success-named ending this share of all cases end with tells no case from another: it marks the process's end. */
const EVERY_CASE = 0.99;
/** A failure-named step is a part's (an offer withdrawn), not the case's, when at least this share of its cases reach a success or a status. */
const PART_SHARE = 0.5;

export interface EndReading {
  outcomes: Outcome[];
  /** Endings (activities after which cases usually stop) with their kind. */
  ends: Map<string, Outcome['kind']>;
  successEnds: string[];
  failureEnds: string[];
  /** Cases whose last event is each activity. */
  stops: Map<string, number>;
  openCases: number;
  stalledCases: number;
  /** Cases whose last event lies far after the rest, and the time taken as the log's end instead of the period end. */
  lateOutliers: { cases: number; logEnd: number | undefined };
  /** The time "recent" is counted back from (ms): the period's end, or the end before late outliers. */
  logEnd: number;
  /** Where a stopped case may be open (not an ending, no failure in the name): the oldest age (ms) of its last event's hour still recent there. */
  openCut: Map<string, number>;
  /** Where the outcome is the status a case reached, not its last step (statuses.ts). */
  status: StatusSet | undefined;
  /** Failure-named steps most of whose cases reach a success or a status: failures of a part of the case, no ending. */
  partFailures: string[];
  /** Cases stopped outside an ending that began in the log's final stretch, in progress at the cut (window.ts); not read where the outcome is a status. */
  censoring: Censoring | undefined;
  method: string;
}

/**
 * Where cases stop, and what that means. An ending is an activity after which
 * most cases doing it stop (a fifth when its name says success or failure, or
 * it is the backbone's last step: trailing steps may follow), judged on the
 * cases that stopped there long enough ago unless the name says the case is
 * over; every case stopping at an ending is finished, however recent.
 *
 * Success and failure are claimed only where the data records a verdict: the
 * ending's own name (whole words). Where cases stop, or how many stop there,
 * says that a case is over, not how it went: such an ending is `other`, and
 * the document says the log records no outcome. A case whose last step
 * names a failure ended so, ending or not. A verdict is never passed on to a
 * later step: what follows a refusal may be closing work or a second try, and
 * what follows an approval may be more work (a gate on the way). Any other
 * case is open when its last event is recent for that activity (within
 * the OPEN_QUANTILE of the time from it to the next step, counted back from
 * the log's end), else it stalled (`other`). Never from the commonest
 * variant, which on varied logs speaks for a few cases.
 */
export function readEnds(
  f: Facts,
  backbone: Backbone,
  periodEnd: number | undefined,
  outcomeRecorded = false,
  /** The log records order only (LogProfile.frozenClock): no case's age can be read, so none is recent. */
  frozenClock = false,
): EndReading {
  const stops = new Map<string, number>();
  const hours: [number, number][] = [];
  for (const [key, n] of f.tally.lastEvents) {
    const [activity, hourText] = splitKey(key);
    stops.set(activity, (stops.get(activity) ?? 0) + n);
    hours.push([Number(hourText), n]);
  }
  const lateOutliers = outliers(hours, periodEnd);
  const logEnd = lateOutliers.logEnd ?? periodEnd ?? 0;
  const cut = new Map<string, number>();
  const recent = new Map<string, number>();
  // An activity nobody (or hardly anybody) has gone on from yet has no wait of its own: the process's hand-off waits stand in.
  const pooledCut = sketchCount(f.handoffs) > 0 ? quantile(f.handoffs, OPEN_QUANTILE) : 0;
  for (const [key, n] of f.tally.lastEvents) {
    const [activity, hourText] = splitKey(key);
    if (!cut.has(activity)) {
      const next = f.tally.activities.get(activity)?.timeToNext;
      cut.set(activity, next && sketchCount(next) >= MIN_WAITS ? quantile(next, OPEN_QUANTILE) : pooledCut);
    }
    const age = logEnd - (Number(hourText) + 1) * HOUR_MS;
    // Without times every case sits at one instant, which would make every case recent, hence open, and no
    // activity an ending: with nothing to tell open from stopped, where cases stop is read from the counts alone.
    if (!frozenClock && age <= cut.get(activity)!) recent.set(activity, (recent.get(activity) ?? 0) + n);
  }
  const sorted = [...stops].sort((a, b) => cmp(a[0], b[0]));
  const status = readStatusSet(f, [...recent.values()].reduce((s, x) => s + x, 0));
  if (status) return byStatus(f, status, stops, recent, cut, lateOutliers, logEnd);
  const last = backbone.steps[backbone.steps.length - 1];
  const ends = new Map<string, Outcome['kind']>();
  /** Endings whose kind their own name gives: what came before does not change it. */
  const byName = new Set<string>();
  /** Success-named steps most of whose cases go on to another success ending. */
  const onTheWay: string[] = [];
  for (const [x, n] of sorted) {
    // A placeholder ('Unmatched') is where an extraction failed, not how a case ended (placeholder-steps.ts).
    if (isPlaceholderStep(x)) continue;
    // Whether cases stop at x is judged on those that stopped there long enough ago: a case that reached x
    // recently may still go on (in a young stream, every case is such a case), unless x's name says the
    // case is over ("Close Order", "Cancelled"; not a gate such as "Auto Approval").
    const old = isFinalName(x) ? n : n - Math.min(n, recent.get(x) ?? 0);
    const withX = (f.activityCases.get(x) ?? n) - (n - old);
    const verdict = nameVerdict(x);
    // Trailing steps (a work item closed after the decision) keep some named endings, and the last backbone step, below half.
    const named = verdict !== undefined || (x === last && backbone.steps.length > 1);
    if (old > 0 && (old >= ENDING_SHARE * withX || (named && old >= NAMED_ENDING_SHARE * withX))) {
      // Where the log records the outcome in an attribute, a success-named step every case ends with ('Close Claim'
      // after claims paid, rejected or found not liable alike) marks the end of the process, not how a case went.
      ends.set(x, outcomeRecorded && verdict === 'success' && n >= EVERY_CASE * f.cases ? 'other' : (verdict ?? 'other'));
      if (verdict) byName.add(x);
    }
  }

  // Two success-named endings where most cases of one go on to the other ('Confirm Payment', then 'Make Delivery') are
  // one outcome on its way, not two successes: the earlier is a step towards the later, and a case stopped there is
  // read as any case stopped outside an ending (open or stalled), never as a second kind of success.
  for (const x of [...byName]) {
    if (ends.get(x) !== 'success') continue;
    const own = f.activityCases.get(x) ?? 0;
    const onTo = [...ends].some(([y, k]) => y !== x && k === 'success' && f.order(x, y).aFirst >= ON_THE_WAY * own);
    if (onTo) {
      ends.delete(x);
      byName.delete(x);
      onTheWay.push(x);
    }
  }

  // A failure-named step most of whose stopping cases had already reached a success ending ended a part of the case
  // (an offer withdrawn after another was accepted), not the case: no ending, and a case stopping there is read as
  // any case stopped outside one. A step most cases go on from to a success (a rejected submission, resubmitted)
  // still ends the cases that stop there so.
  const successIds = [...ends].filter(([, k]) => k === 'success').map(([a]) => f.idOf.get(a)!);
  const partFailures = successIds.length ? failedParts(f, (v) => successIds.some((k) => v.distinct.includes(k)), true) : [];
  for (const x of partFailures) {
    ends.delete(x);
    byName.delete(x);
  }

  // Cases stopped outside an ending that began where only the latest finished cases did were cut off, not stopped (window.ts).
  const unfinished = (x: string) => !ends.has(x) && (nameVerdict(x) !== 'failure' || partFailures.includes(x));
  const censoring = readCensoring(f, unfinished, (x) => !unfinished(x));
  const out = new Stops(f.cases, cut, recent, [], censoring?.byActivity);
  const push = out.push;
  for (const [x, n] of sorted) {
    const kind = ends.get(x);
    if (byName.has(x)) {
      push(kind!, x, n);
      continue;
    }
    const rest = n;
    if (kind !== undefined) {
      push(kind, x, rest);
      continue;
    }
    // A success-named step most cases go on from is a step on the way ('Complete application' as a work item): a
    // case stopping there may be in progress.
    out.unended(x, rest, partFailures);
  }
  const { items, openCut, openCases, stalledCases } = out.sorted();
  const successEnds = [...ends].filter(([, k]) => k === 'success').map(([a]) => a).sort(cmp);
  const failureEnds = [...ends].filter(([, k]) => k === 'failure').map(([a]) => a).sort(cmp);
  const recorded = successEnds.length + failureEnds.length > 0;
  const method =
    `an ending is an activity after which at least ${ENDING_SHARE * 100}% of the cases doing it stop (${NAMED_ENDING_SHARE * 100}% when its name reads as a success or failure, or it is the backbone's last step), counting only cases that are not recent there (see open below) unless its name says the case is over (a failure, or a success that is not a gate such as approve or accept); cases stopping at an ending are finished. ` +
    `Success and failure only where the data records a verdict: an ending is a failure when a whole word of its name is one of [${FAILURE_WORDS.join(', ')}], a success when one is of [${SUCCESS_WORDS.join(', ')}] (unless the name also says it is pending or negated); ${outcomeRecorded ? `a success-named ending at least ${EVERY_CASE * 100}% of all cases end with marks the end of the process and is other, since an attribute records the outcome; ` : ''}any other ending is other, however many cases stop there${recorded ? '' : ' (no ending of this log names a verdict: the log does not record how cases went)'}. ` +
    `A case whose last step names a failure ended so, ending or not. ` +
    `A success-named ending at least ${ON_THE_WAY * 100}% of whose cases go on to another success ending is a step on the way to it, not an outcome of its own${onTheWay.length ? ` (here ${onTheWay.map(q).join(', ')})` : ''}. ` +
    partNote(partFailures, `at least ${PART_SHARE * 100}% of whose cases stopping there had reached a success ending before`) +
    `No verdict is passed on to a later step: a case's outcome is that of the step it ends with. ` +
    `Any other case stopping outside an ending is open when its last event is no older than the ${OPEN_QUANTILE * 100}th percentile of the time from that activity to the next step (with fewer than ${MIN_WAITS} waits seen there, of all hand-offs), counted back from the log's end` +
    `${lateOutliers.cases ? ` (taken as the end of nearly all cases, ${lateOutliers.cases} case ends lying more than 30 days later are outliers)` : ''}` +
    (censoring ? `, or when it began in the log's final stretch, where only the latest finished cases began (the larger of the two counts; see the observation window assumption)` : '') +
    `, else stalled (other); the open count is at most the recent cases stopping there${censoring ? ' or those begun in the final stretch' : ''}`;
  return { outcomes: uniqueIds(items), ends, successEnds, failureEnds, stops, openCases, stalledCases, lateOutliers, logEnd, openCut, status: undefined, partFailures, censoring, method };
}

/** The outcome items of where cases stop, and the open and stalled ones among the cases stopped outside an ending. */
class Stops {
  readonly openCut = new Map<string, number>();
  openCases = 0;
  stalledCases = 0;
  constructor(
    private readonly cases: number,
    private readonly cut: ReadonlyMap<string, number>,
    private readonly recent: ReadonlyMap<string, number>,
    readonly items: Outcome[] = [],
    /** Cases stopping at each activity that began in the log's final stretch (window.ts): open whatever their idle gap. */
    private readonly censored?: ReadonlyMap<string, number>,
  ) {}

  readonly push = (kind: Outcome['kind'], x: string, n: number): void => {
    if (n > 0) this.items.push({ id: `${kind}-${slug(x)}`, end_activity: x, kind, cases: n, share: ratio(n, this.cases) });
  };

  /**
   * n cases stopped at x, no ending: failed when x names a failure (an offer cancelled: the case ended so, even
   * where few of the cases doing x stop there) unless x ended a part of the case; else open when recent at x (the
   * recent count is over every case stopping there) or begun in the log's final stretch (the larger of the two:
   * which cases are both is not counted), else stalled.
   */
  unended(x: string, n: number, partFailures: readonly string[]): void {
    if (nameVerdict(x) === 'failure' && !partFailures.includes(x)) return this.push('failure', x, n);
    this.openCut.set(x, this.cut.get(x)!);
    const r = Math.min(n, Math.max(this.recent.get(x) ?? 0, this.censored?.get(x) ?? 0));
    this.push('open', x, r);
    this.push('other', x, n - r);
    this.openCases += r;
    this.stalledCases += n - r;
  }

  /** The items, most cases first. */
  sorted(): this {
    this.items.sort((a, b) => b.cases - a.cases || cmp(a.end_activity, b.end_activity) || cmp(a.kind, b.kind));
    return this;
  }
}

/**
 * Failure-named activities at least PART_SHARE of whose cases meet `reached`: over the cases doing them, or with
 * `stopping` over the cases whose last step they are (at least 2 either way).
 */
function failedParts(f: Facts, reached: (v: Facts['variants'][number]) => boolean, stopping = false): string[] {
  const named = f.activities.filter((a) => nameVerdict(a) === 'failure');
  if (!named.length) return [];
  const ids = new Map(named.map((a) => [f.idOf.get(a)!, a]));
  const hits = new Map<string, number>();
  const all = new Map<string, number>();
  const add = (m: Map<string, number>, a: string, n: number) => m.set(a, (m.get(a) ?? 0) + n);
  for (const v of f.variants) {
    const won = reached(v);
    const touched = stopping ? (v.end !== undefined && ids.has(f.idOf.get(v.end) ?? -1) ? [v.end] : []) : [...v.distinct].filter((k) => ids.has(k)).map((k) => ids.get(k)!);
    for (const a of touched) {
      add(all, a, v.count);
      if (won) add(hits, a, v.count);
    }
  }
  return named.filter((a) => (all.get(a) ?? 0) >= 2 && (hits.get(a) ?? 0) >= PART_SHARE * all.get(a)!);
}

function partNote(parts: string[], what: string): string {
  return parts.length
    ? `A failure-named step ${what} ends a part of the case (an item withdrawn or replaced), not the case: no ending, and a case stopping there is read as open or stalled (here ${parts.map(q).join(', ')}). `
    : '';
}

/**
 * The outcome of a case is the status it reached (statuses.ts): one outcome per status, with the verdict its name
 * (or its twin's) gives, `other` where none does. A case reaching no status has no recorded outcome: a failure-named
 * last step that is no part's ends it so; else it is open when recent where it stopped, else stalled.
 */
function byStatus(
  f: Facts,
  status: StatusSet,
  stops: Map<string, number>,
  recent: Map<string, number>,
  cut: Map<string, number>,
  lateOutliers: EndReading['lateOutliers'],
  logEnd: number,
): EndReading {
  const members = new Set(status.members);
  const ends = new Map<string, Outcome['kind']>();
  const items: Outcome[] = [];
  for (const m of status.members) {
    const kind = status.verdict.get(m) ?? 'other';
    ends.set(m, kind);
    const n = status.reached.get(m) ?? 0;
    if (n > 0) items.push({ id: `${kind}-reached-${slug(m)}`, end_activity: m, kind, cases: n, share: ratio(n, f.cases) });
  }
  const memberIds = status.members.map((m) => f.idOf.get(m)!);
  const partFailures = failedParts(f, (v) => memberIds.some((k) => v.distinct.includes(k))).filter((a) => !members.has(a));
  // The recent count is over every case stopping at x, those that reached a status included: an upper bound.
  const out = new Stops(f.cases, cut, recent, items);
  for (const [x, n] of [...status.noneStops].sort((a, b) => cmp(a[0], b[0]))) out.unended(x, n, partFailures);
  const { openCut, openCases, stalledCases } = out.sorted();
  const successEnds = status.members.filter((m) => ends.get(m) === 'success').sort(cmp);
  const failureEnds = status.members.filter((m) => ends.get(m) === 'failure').sort(cmp);
  const verdicts = successEnds.length + failureEnds.length > 0;
  const lent = [...status.twinOf].map(([m, t]) => `${q(m)} from ${q(t)}`);
  const method =
    `outcome statuses: ${status.statement}. ` +
    (verdicts
      ? `A status is a success or failure by a whole word of its name (the lexicon below)${lent.length ? `, or of the name of the activity done in exactly its cases (${lent.join(', ')})` : ''}; any other status is other (a hypothesis, like every verdict read from words). `
      : `No status names a verdict: they are reported as the cases' endings (other), a hypothesis about what they are; the log does not say which is a success. `) +
    `Steps after the status are trailing work, never endings. ` +
    partNote(partFailures, `at least ${PART_SHARE * 100}% of whose cases reach a status`) +
    `A case reaching no status has no recorded outcome: one whose last step names a failure (a word of [${FAILURE_WORDS.join(', ')}]) ended so; any other is open when its last event is no older than the ${OPEN_QUANTILE * 100}th percentile of the time from that activity to the next step, counted back from the log's end, else stalled (other); the open count is at most the recent cases stopping there. ` +
    `Success words: [${SUCCESS_WORDS.join(', ')}]`;
  return { outcomes: uniqueIds(items), ends, successEnds, failureEnds, stops, openCases, stalledCases, lateOutliers, logEnd, openCut, status, partFailures, censoring: undefined, method };
}

/**
 * Case ends far after nearly all others (a date typed years ahead) would make
 * every other case look old: the log's end is taken at the end of all but the
 * latest 0.1% of cases (at least one) when the latest lies more than
 * OUTLIER_GAP_MS after it.
 */
function outliers(hours: [number, number][], periodEnd: number | undefined): { cases: number; logEnd: number | undefined } {
  if (periodEnd === undefined || hours.length === 0) return { cases: 0, logEnd: undefined };
  hours.sort((a, b) => a[0] - b[0]);
  const total = hours.reduce((s, [, n]) => s + n, 0);
  if (total < 20) return { cases: 0, logEnd: undefined };
  // The end of all but the latest 0.1% of cases (at least one case left out, so a small log can show one outlier).
  const rank = total - Math.max(1, Math.floor(0.001 * total));
  let seen = 0;
  let q999 = hours[hours.length - 1]![0];
  for (const [h, n] of hours) {
    seen += n;
    if (seen >= rank) {
      q999 = h;
      break;
    }
  }
  const end = (q999 + 1) * HOUR_MS;
  if (periodEnd - end <= OUTLIER_GAP_MS) return { cases: 0, logEnd: undefined };
  const cases = hours.filter(([h]) => h * HOUR_MS > end + OUTLIER_GAP_MS).reduce((s, [, n]) => s + n, 0);
  return cases ? { cases, logEnd: end } : { cases: 0, logEnd: undefined };
}

export function describeOpenCut(f: Facts, ends: EndReading): string {
  const total = ends.openCases + ends.stalledCases;
  return `${ends.openCases} cases (${pct(ratio(ends.openCases, f.cases))}) are open and ${ends.stalledCases} stalled among ${total} that stopped outside an ending`;
}

export { q };
