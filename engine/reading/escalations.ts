import { bucketValue, quantile, sketchCount, type Sketch } from '../sketch.js';
import type { Escalation } from '../document/types.js';
import { evidence, hoursText, pct, q, ratio, parallel, slug, strengthOf, successors, type Facts } from './facts.js';
import type { LogProfile } from './profile.js';
import type { TreeFacts } from './tree-facts.js';

export const ESCALATION_MIN_LIFT = 2;
export const ESCALATION_MIN_SHARE = 0.5;
/**
 * The other next steps must still be taken at this fraction of the long wait (their 90th percentile): a wait that
 * triggers a step is a race the other steps sometimes nearly win. When every other step comes in minutes and this
 * one after half a day, the choice was made before and the step is slow to start: no escalation.
 */
export const ESCALATION_RACE = 0.25;

/**
 * A step b after a is an escalation when it comes mainly after a long wait:
 * with X the 25th percentile of b's own wait after a, b is at least half of
 * the steps taken after a once X has passed, that is at least twice its
 * overall share of the steps after a (the lift), and X is above the 75th
 * percentile of the waits of a's other next steps and at least the median
 * hand-off wait of the whole process, while the other next steps' 90th
 * percentile still reaches a quarter of X (the wait is a race the step ends;
 * a step after hours where all others come in minutes was chosen before and
 * is slow to start). Steps concurrent with a
 * or with another next step (see facts.parallel) are interleavings, not
 * escalations; and b must be a detour (a next step of b also follows a
 * directly), else it is merely a slow step. Read from the edge wait
 * sketches: P(next = b | wait >= X) per from-activity.
 */
export function readEscalations(f: Facts, tree: TreeFacts, profile: Pick<LogProfile, 'resolutionHours'>): { escalations: Escalation[]; edges: Set<string>; method: string } {
  const together = (a: string, b: string) => parallel(f, a, b) || tree.concurrent(a, b);
  const escalations: Escalation[] = [];
  const edges = new Set<string>();
  // A long wait is at least the median hand-off wait of the whole process.
  const longWait = quantile(f.handoffs, 0.5);
  for (const a of f.activities) {
    const next = successors(f, a).filter((e) => e.wait.size > 0);
    if (next.length < 2) continue;
    const total = next.reduce((n, e) => n + sketchCount(e.wait), 0);
    // All next steps' waits once; each step's "others" is that minus its own (linear in next steps, not squared).
    const all: Sketch = new Map();
    for (const o of next) for (const [b, c] of o.wait) all.set(b, (all.get(b) ?? 0) + c);
    for (const e of next) {
      const own = sketchCount(e.wait);
      // The cheap cuts first: fewer than 3 hand-offs can never make the 3 long ones asked for below;
      // doing a step again after a wait is a repeat, not an escalation to someone or something else.
      if (own < 3 || own * 2 > total || e.to === a) continue;
      const x = quantile(e.wait, 0.25);
      // A wait at or below the times' resolution (a day, on day-level data) is no wait the data measures.
      if (x <= 0 || x < longWait || f.toHours(x) <= profile.resolutionHours) continue;
      const others: Sketch = new Map(all);
      for (const [b, c] of e.wait) {
        const left = others.get(b)! - c;
        if (left === 0) others.delete(b);
        else others.set(b, left);
      }
      if (quantile(others, 0.75) >= x || quantile(others, 0.9) < ESCALATION_RACE * x || together(a, e.to) || next.some((o) => together(o.to, e.to))) continue;
      const longOwn = atLeast(e.wait, x);
      const longAll = next.reduce((n, o) => n + atLeast(o.wait, x), 0);
      const pLong = ratio(longOwn, longAll);
      const lift = pLong / (own / total);
      if (pLong < ESCALATION_MIN_SHARE || lift < ESCALATION_MIN_LIFT || longOwn < 3) continue;
      // A detour, not just a slow step: what usually follows b also follows a directly.
      const rejoin = successors(f, e.to).find((s) => s.to !== a && next.some((o) => o.to === s.to));
      if (!rejoin) continue;
      const hours = hoursText(f.toHours(x));
      edges.add(`${a}\u0000${e.to}`);
      escalations.push({
        id: `escalation-${slug(a)}-${slug(e.to)}`,
        from: a,
        to: e.to,
        trigger: `the wait after ${q(a)} exceeds about ${hours} hours`,
        evidence: evidence(
          e.cases,
          f.activityCases.get(a) ?? 0,
          pLong,
          strengthOf(longAll, pLong),
          `after ${q(a)}, ${q(e.to)} is ${pct(pLong)} of the next steps taken once ${hours} h have passed (the 25th percentile of its own wait) against ${pct(own / total)} overall: lift ${Math.round(lift * 10) / 10}; ` +
            `edge wait sketches, cut: share >= ${ESCALATION_MIN_SHARE}, lift >= ${ESCALATION_MIN_LIFT}, the other next steps' 75th percentile below ${hours} h and their 90th at least ${ESCALATION_RACE * 100}% of it, and ${q(rejoin.to)} follows both`,
        ),
      });
    }
  }
  const method = `a next step taken mainly after a long wait (edge wait sketches; its 25th-percentile wait above the other next steps' 75th percentile and the process-wide median hand-off wait, with their 90th percentile at least ${ESCALATION_RACE * 100}% of it, at least ${ESCALATION_MIN_SHARE * 100}% of the steps after that wait, lift >= ${ESCALATION_MIN_LIFT}, a detour: a step after it also follows the from-activity directly; repeats of the step and steps concurrent with others, by the counts or the mined tree, are left out, and so are waits at or below the times' resolution)`;
  return { escalations, edges, method };
}

function atLeast(s: Sketch, x: number): number {
  let n = 0;
  for (const [b, c] of s) if (bucketValue(b) >= x) n += c;
  return n;
}
