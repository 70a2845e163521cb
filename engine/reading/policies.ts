import { bucketValue, quantile, sketchCount, type Sketch } from '../sketch.js';
import { pairKey } from '../tally.js';
import type { Policy } from '../document/types.js';
import type { Backbone } from './backbone.js';
import { earlier } from './edges.js';
import { atMostWeak, evidence, pct, q, ratio, slug, strengthOf, type Facts } from './facts.js';
import { orderFragile, TIE_DEPENDENT, type Ties } from './ties.js';
import { isPlaceholder, readsAsLabel } from './words.js';

export const SERVICE_QUANTILE = 0.9;
const MIN_CASES = 10;
/** Cases doing the later of two ordered steps without the earlier one, from which the order is no requirement. */
const OPTIONAL_SHARE = 0.05;
const SEPARATION_SAME_MAX = 0.02;
const SEPARATION_EXPECTED_MIN = 10;
/** "Done by different people" needs people: at least this many distinct resource values over the two steps... */
const PEOPLE_MIN = 5;
/** ...none doing more than this share of either step's events (a value doing most of a step is a queue, a team or a system). */
const PERSON_SHARE_MAX = 0.5;

/** Rounds hours up to two significant digits: a threshold a person would state. */
export function niceHours(h: number): number {
  if (h <= 0) return 0;
  const p = 10 ** (Math.floor(Math.log10(h)) - 1);
  return Number((Math.ceil(h / p - 1e-9) * p).toPrecision(12));
}

function shareWithin(f: Facts, s: Sketch, hours: number): number {
  const n = sketchCount(s);
  if (!n) return 0;
  let k = 0;
  for (const [b, c] of s) if (f.toHours(bucketValue(b)) <= hours + 1e-9) k += c;
  return k / n;
}

/** A hand-off whose 90th-percentile wait is under a minute is two records of one step, not a timing to keep. */
export const ONE_STEP_HOURS = 1 / 60;

/**
 * Limits most cases stay inside, inferred from timings and counts, never from
 * a policy document: the case duration's 90th percentile (rounded up to two
 * digits), the same for each direct hand-off between consecutive backbone
 * steps, backbone order, and separation of duties. Each is stated as what it
 * is: a share of cases (or hand-offs) observed within a limit, not a rule.
 */
export function readPolicies(
  f: Facts,
  backbone: Backbone,
  ties: Ties,
  quantized = false,
  /** Concurrent activities (engine/reading/concurrency.ts): no timing or order is a rule between them. */
  concurrent: (a: string, b: string) => boolean = () => false,
): { policies: Policy[]; method: string } {
  const policies: Policy[] = [];
  const durations = sketchCount(f.tally.caseDuration);
  // On a clock ticking in fixed steps the case duration is a sum of the clock's steps: no service level.
  if (durations >= MIN_CASES && !quantized) {
    const hours = niceHours(f.toHours(quantile(f.tally.caseDuration, SERVICE_QUANTILE)));
    const share = shareWithin(f, f.tally.caseDuration, hours);
    const method = `case duration sketch (first to last event, all cases including open ones, whose duration so far counts): its ${SERVICE_QUANTILE * 100}th percentile rounded up to two digits; share of cases at or under it`;
    policies.push({
      id: 'service-level-case',
      kind: 'service_level',
      statement: `${pct(share)} of cases run at most ${hours} hours from their first to their last event (the observed ${SERVICE_QUANTILE * 100}th percentile, rounded up; not a stated target).`,
      threshold_hours: hours,
      share_met: share,
      evidence: evidence(Math.round(share * durations), durations, share, strengthOf(durations, share), method),
    });
  }
  const main = backbone.steps;
  for (let i = 0; i + 1 < main.length; i++) {
    const a = main[i]!;
    const b = main[i + 1]!;
    // Between two concurrent steps the wait is the time between two branches, not a hand-off anyone keeps.
    if (concurrent(a, b)) continue;
    const e = f.tally.edges.get(pairKey(a, b));
    const n = e ? sketchCount(e.wait) : 0;
    if (!e || n < MIN_CASES) continue;
    const hours = niceHours(f.toHours(quantile(e.wait, SERVICE_QUANTILE)));
    // "Within 0 hours" says the two are written at one time, not how soon one follows the other; nor does a minute:
    // two records a system writes for one step (created, then recorded as created) are no hand-off between people.
    // Nothing is stated below the times' resolution (a day for day-level data) either.
    // On a clock ticking in fixed steps (a simulator's), a wait is the clock's step, not a timing anyone keeps.
    if (hours < ONE_STEP_HOURS || hours < ties.resolutionHours || quantized) continue;
    const share = shareWithin(f, e.wait, hours);
    const tied = ties.handoff(a, b);
    const strength = strengthOf(n, share);
    policies.push({
      id: `timing-${slug(a)}-${slug(b)}`,
      kind: 'timing',
      // Where the log records when b began (start/complete pairs), the wait runs to that start (see the edges).
      statement: f.tally.serviceTime.has(b)
        ? `When ${q(b)} directly follows ${q(a)}, it is started within ${hours} hours of ${q(a)} in ${pct(share)} of the hand-offs (the observed ${SERVICE_QUANTILE * 100}th percentile, rounded up; the wait runs to the recorded start where there is one).`
        : `When ${q(b)} directly follows ${q(a)}, it does so within ${hours} hours in ${pct(share)} of the hand-offs (the observed ${SERVICE_QUANTILE * 100}th percentile, rounded up).`,
      threshold_hours: hours,
      share_met: share,
      evidence: evidence(
        Math.round(share * n),
        n,
        share,
        tied >= TIE_DEPENDENT ? atMostWeak(strength) : strength,
        `wait sketch of the hand-off ${q(a)} -> ${q(b)} (${n} hand-offs): its ${SERVICE_QUANTILE * 100}th percentile rounded up to two digits` +
          (tied >= TIE_DEPENDENT ? `; ${pct(tied)} of the hand-offs share a timestamp (the file orders them), so at most weak` : ''),
      ),
    });
  }
  for (let i = 0; i + 1 < main.length; i++) {
    const a = main[i]!;
    const b = main[i + 1]!;
    const o = f.order(a, b);
    if (o.both < MIN_CASES || !earlier(f, a, b) || concurrent(a, b)) continue;
    const fragile = orderFragile(ties, a, b, o.aFirst, o.both, 0.95);
    // An order kept when both are done is no step required before the later one if many cases do that one alone
    // (a reviewer read "screen before reject, strong" while a third of the rejections had no screening): say so.
    const withB = f.activityCases.get(b) ?? o.both;
    const alone = withB - o.both;
    const optional = alone > OPTIONAL_SHARE * withB;
    const mined = strengthOf(o.both, ratio(o.aFirst, o.both));
    const strength = optional && (mined === 'counted' || mined === 'strong') ? 'moderate' : mined;
    policies.push({
      id: `sequence-${slug(a)}-${slug(b)}`,
      kind: 'sequence',
      statement:
        `${q(a)} comes before ${q(b)} in ${pct(ratio(o.aFirst, o.both))} of the cases with both.` +
        (optional ? ` ${alone} of the ${withB} cases with ${q(b)} (${pct(ratio(alone, withB))}) have no ${q(a)}: an order when both are done, not a step required before ${q(b)}.` : ''),
      threshold_hours: 0,
      share_met: ratio(o.aFirst, o.both),
      evidence: evidence(
        o.aFirst,
        o.both,
        ratio(o.aFirst, o.both),
        fragile !== undefined ? atMostWeak(strength) : strength,
        `cases with both backbone steps where the first ${q(a)} precedes the first ${q(b)}, counted over the variants (consecutive backbone steps)` +
          (fragile !== undefined ? `; ${fragile}: at most weak` : ''),
      ),
    });
  }
  policies.push(...separations(f));
  const method = `case duration and backbone hand-off waits at their ${SERVICE_QUANTILE * 100}th percentile (rounded up to two digits; none under a minute: that is two records of one step written at once; none between two concurrent steps, see the concurrency assumption), backbone order (none between concurrent steps) (at most weak where equal timestamps order the steps), and separation of duties (two activities whose every event has a resource, done by at least ${PEOPLE_MIN} resource values of which none does more than ${PERSON_SHARE_MAX * 100}% of either step and none reads as a role or group label such as Clerk, Team A or SYSTEM, sharing resources, done by one person in at most ${SEPARATION_SAME_MAX * 100}% of the cases with both and in at most a fifth of the cases chance would give, which must be at least ${SEPARATION_EXPECTED_MIN})`;
  return { policies, method };
}

/**
 * Whether the resource values of two steps look like individuals, so that "the same person did both" means
 * something: at least PEOPLE_MIN values, none doing more than PERSON_SHARE_MAX of either step's events, and none
 * reading as a role or group label ('Clerk', 'Team A', 'SYSTEM'). Two teams handing over, or a handful of values
 * each doing a large share, are labels or queues as far as the log can tell: no separation is claimed for them.
 */
function looksLikePeople(ma: ReadonlyMap<string, number>, mb: ReadonlyMap<string, number>): boolean {
  const values = new Set([...ma.keys(), ...mb.keys()]);
  if (values.size < PEOPLE_MIN) return false;
  for (const m of [ma, mb]) {
    const n = [...m.values()].reduce((x, y) => x + y, 0);
    for (const k of m.values()) if (k > PERSON_SHARE_MAX * n) return false;
  }
  for (const v of values) if (readsAsLabel(v)) return false;
  return true;
}

/**
 * Two activities by the same pool of people, yet (almost) never by the same
 * person in one case. "By chance" is the share expected if each activity drew
 * its resource independently from its own event mix: sum over r of p_a(r)·p_b(r).
 */
function separations(f: Facts): Policy[] {
  const mix = new Map<string, Map<string, number>>();
  for (const [key, p] of f.tally.resources) {
    const i = key.indexOf('\u0000');
    const a = key.slice(0, i);
    const r = key.slice(i + 1);
    // A placeholder is a missing resource, not one person doing everything: its activities are then not fully resourced.
    if (isPlaceholder(r)) continue;
    let m = mix.get(a);
    if (!m) mix.set(a, (m = new Map()));
    m.set(r, p.events);
  }
  const full = [...mix.keys()].filter((a) => {
    const n = [...mix.get(a)!.values()].reduce((x, y) => x + y, 0);
    return n === f.tally.activities.get(a)?.events;
  }).sort();
  const out: Policy[] = [];
  for (let i = 0; i < full.length; i++) {
    for (let j = i + 1; j < full.length; j++) {
      const a = full[i]!;
      const b = full[j]!;
      const ma = mix.get(a)!;
      const mb = mix.get(b)!;
      const na = [...ma.values()].reduce((x, y) => x + y, 0);
      const nb = [...mb.values()].reduce((x, y) => x + y, 0);
      let expected = 0;
      for (const [r, n] of ma) expected += (n / na) * ((mb.get(r) ?? 0) / nb);
      if (!looksLikePeople(ma, mb)) continue;
      const rarer = Math.min(f.activityCases.get(a) ?? 0, f.activityCases.get(b) ?? 0);
      if (expected * rarer < SEPARATION_EXPECTED_MIN) continue;
      const both = f.order(a, b).both;
      if (both < MIN_CASES) continue;
      const same = f.tally.sameResource.get(pairKey(a, b)) ?? 0;
      if (same > SEPARATION_SAME_MAX * both || expected * both < SEPARATION_EXPECTED_MIN || same > 0.2 * expected * both) continue;
      const share = ratio(both - same, both);
      out.push({
        id: `separation-${slug(a)}-${slug(b)}`,
        kind: 'separation',
        statement: `${q(a)} and ${q(b)} are done by different people in a case.`,
        threshold_hours: 0,
        share_met: share,
        evidence: evidence(
          both - same,
          both,
          share,
          strengthOf(both, share),
          `one resource did both in ${same} of the ${both} cases with both, where independent draws from each activity's resource mix would give ${pct(expected)} (about ${Math.round(expected * both)} cases)`,
        ),
      });
    }
  }
  return out;
}
