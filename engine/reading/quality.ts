import { quantile, ZERO_BUCKET, sketchCount } from '../sketch.js';
import { cmp } from '../event.js';
import { splitChoiceKey, splitKey } from '../tally.js';
import { DAY_MS, HOUR_MS } from '../time.js';
import type { Plain } from '../document/types.js';
import { pct, q, ratio, type Facts } from './facts.js';
import type { EndReading } from './outcomes.js';
import { isPlaceholder } from './words.js';
import { tiedWaits } from './ties.js';
import { readingTraitsOf } from './traits.js';

/** Consecutive steps at one timestamp above this share make the order within a case partly file order. */
const SAME_TIME_NOTE = 0.05;
/** Variants per case above this make path frequencies say little. */
const MANY_VARIANTS = 0.5;

/**
 * What an agent should know about the data before trusting the reading, each
 * figure counted from the state: steps sharing a timestamp, the zone of
 * zone-less times, far outlier case ends, placeholder values, logs where
 * nearly every case is its own path, and for OCEL the case notion and the
 * events it leaves out.
 */
/** The end of 1970: times before it count from the Unix epoch. */
const EPOCH_YEAR_END = Date.UTC(1971, 0, 1);

export function readQuality(
  f: Facts,
  meta: Readonly<Record<string, string>>,
  ends: EndReading,
  periodStart: number | undefined,
  /** Nearly every case has a path of its own: the variants assumption says so, with its figures (engine/reading/paths.ts). */
  distinctPaths = false,
): { assumptions: Plain[]; open_questions: Plain[] } {
  const assumptions: Plain[] = [];
  const open_questions: Plain[] = [];
  const traits = readingTraitsOf(meta);

  const waits = sketchCount(f.handoffs);
  // Hand-offs at one timestamp, per hop (a wait of 0 into a step whose start is recorded is no tie: see tiedWaits).
  let same = 0;
  for (const list of f.out.values()) for (const e of list) same += tiedWaits(f, e.to, e.wait.get(ZERO_BUCKET) ?? 0);
  same = Math.round(same);
  if (waits > 0 && same === 0) assumptions.push(`Data quality: no two consecutive steps of a case share a timestamp (${waits} hand-offs), so the order within cases is the order in time.`);
  if (waits > 0 && same > 0) {
    const share = ratio(same, waits);
    assumptions.push(
      `Data quality: ${pct(share)} of consecutive steps in a case (${same} of ${waits}) share one timestamp; their order is the file's order (event id), not time` +
        (share >= SAME_TIME_NOTE ? ', so directly-follows counts, variants and the order of those steps partly reflect how the log was written.' : '.'),
    );
  }
  // A log whose times begin at the Unix epoch (1970-01-01) was written by a simulator or with times relative to some
  // start: its durations hold, its dates, weekdays and hours of the day do not.
  if (periodStart !== undefined && periodStart < EPOCH_YEAR_END) {
    assumptions.push(`Data quality: the first event is at ${new Date(periodStart).toISOString()}, in the first year of the Unix epoch: times are relative or simulated, so durations and waits hold but dates, weekdays and hours of the day say nothing.`);
  }
  const split = Number(meta.split_cases ?? 0);
  if (split > 0) {
    assumptions.push(
      `Data quality: ${split} cases have events in more than one partition of a stream source (its topic is not keyed by case id); each partition's part of such a case is counted as a case of its own, so these cases, their paths and their waits are split. Key the topic by case id to count them whole.`,
    );
  }
  const late = Number(meta.late_unsequenced ?? 0);
  if (late > 0) {
    assumptions.push(
      `Data quality: ${late} ${late === 1 ? 'event' : 'events'} arrived for cases whose older events had been pruned (raw events older than the project's retention window are deleted, their counts kept) and were not later than the case's latest pruned event; each was counted after the case's pruned events without re-sequencing them (the kept events of a case stay in time order among themselves), so for those cases hand-offs, waits, paths and durations follow arrival, not time. Events older than the window can no longer be recognised as duplicates: one sent again is counted again (and among these); stream and file sources still skip what their stored positions cover.`,
    );
  }
  const partial = Number(meta.profile_partial ?? 0);
  if (partial > 0) {
    assumptions.push(
      `Data quality: the log profile (time resolution, lifecycle, attribute signals) leaves out ${partial} ${partial === 1 ? 'case' : 'cases'} whose older events were pruned before this version of pcg counted it; their counts, paths and waits are kept, only what the profile says of them is missing.`,
    );
  }
  if (traits?.zonelessTimes) {
    assumptions.push(`Data quality: times written without a zone were read in ${q(meta.timezone ?? 'UTC')}; times with a zone or offset keep it.`);
  }
  if (ends.lateOutliers.cases > 0) {
    open_questions.push({
      question: `${ends.lateOutliers.cases === 1 ? '1 case ends' : `${ends.lateOutliers.cases} cases end`} more than 30 days after nearly all others (all but the latest 0.1%, at least one, end by ${new Date(ends.lateOutliers.logEnd!).toISOString()}): are their times typing errors? They are counted, but not used to decide which cases are still open.`,
      evidence: { cases: ends.lateOutliers.cases, share: ratio(ends.lateOutliers.cases, f.cases), method: 'case ends by hour (last-event counters)' },
    });
  }
  const early = earlyOutlier(f, periodStart);
  if (early) open_questions.push(early);
  const placeholders = new Map<string, Set<string>>();
  for (const key of f.tally.choices.keys()) {
    const c = splitChoiceKey(key);
    if (c.attribute === '' || !c.value.startsWith('s:') || !isPlaceholder(c.value.slice(2))) continue;
    let s = placeholders.get(c.attribute);
    if (!s) placeholders.set(c.attribute, (s = new Set()));
    s.add(c.value.slice(2));
  }
  if (placeholders.size) {
    const listed = [...placeholders].sort((a, b) => (a[0] < b[0] ? -1 : 1)).slice(0, 10);
    assumptions.push(
      `Data quality: placeholder values stand for a missing value in ${placeholders.size} attributes (${listed.map(([a, v]) => `${q(a)}: ${[...v].sort(cmp).map(q).join(', ')}`).join('; ')}); decision rules treat them as missing.`,
    );
  }
  const variants = f.variants.length;
  if (f.cases >= 20 && variants >= MANY_VARIANTS * f.cases && !distinctPaths) {
    let covered = 0;
    let k = 0;
    while (k < variants && covered < 0.8 * f.cases) covered += f.variants[k++]!.count;
    assumptions.push(
      `Data quality: ${variants} variants for ${f.cases} cases (${pct(ratio(variants, f.cases))}); ${k} variants cover 80% of the cases. Nearly every case follows its own path, so path frequencies and the commonest variant say little; the backbone, edges and counts per activity carry the process.`,
    );
  }
  if (traits?.objectCentric) {
    const left = Number(meta.events_without_case_object ?? 0);
    assumptions.push(
      `Object-centric log: the case notion is the object type ${q(meta.case_notion ?? '')} (${meta.case_notion_reason}); ${left} events relate to no object of that type and are left out; an event related to several objects of the type counts once per object.`,
    );
  }
  return { assumptions, open_questions };
}

/**
 * An earliest event far before nearly every case could have begun (a year
 * typed as 1948): more than a year before the 0.1% quantile of case ends less
 * the 99th percentile of case durations. Counted from the case-end and
 * duration counters; the cases holding it are not known from them.
 */
function earlyOutlier(f: Facts, periodStart: number | undefined): Plain | undefined {
  if (periodStart === undefined || f.cases < 100) return undefined;
  const hours: [number, number][] = [];
  for (const [key, n] of f.tally.lastEvents) hours.push([Number(splitKey(key)[1]), n]);
  hours.sort((a, b) => a[0] - b[0]);
  let seen = 0;
  let q001 = hours[0]![0];
  for (const [h, n] of hours) {
    seen += n;
    if (seen >= 0.001 * f.cases) {
      q001 = h;
      break;
    }
  }
  const longest = quantile(f.tally.caseDuration, 0.99);
  const earliestLikely = q001 * HOUR_MS - longest;
  if (periodStart >= earliestLikely - 365 * DAY_MS) return undefined;
  return {
    question: `The earliest event (${new Date(periodStart).toISOString()}) lies more than a year before nearly every case could have begun (99.9% of cases end after ${new Date(q001 * HOUR_MS).toISOString()}, and 99% run at most ${Math.round(longest / HOUR_MS)} hours): is its time a typing error? Durations that include it are counted as they are.`,
    evidence: { cases: 0, share: 0, method: 'period start against the case-end and case-duration counters' },
  };
}
