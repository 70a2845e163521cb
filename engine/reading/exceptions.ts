import type { ExceptionItem } from '../document/types.js';
import { earlier, RARE_ACTIVITY_SHARE } from './edges.js';
import { evidence, parallel, pct, predecessors, q, ratio, slug, successors, type Facts } from './facts.js';

const MIN_SHARE = 0.01;
const SKIPPABLE_SHARE = 0.5;
const OUT_OF_ORDER = 0.8;

/**
 * What goes off the normal path, each counted: repeated steps, skipped
 * main-path steps (among cases reaching a success ending, not counting those
 * taking an exclusive alternative), steps done out of
 * the usual order, rare activities and failure endings. Kept when at least
 * max(2, 1% of cases) show it. Triggers and handling are the commonest
 * neighbours in the directly-follows counts.
 */
export function readExceptions(f: Facts, successEnds: readonly string[], failureEnds: readonly string[]): { exceptions: ExceptionItem[]; method: string } {
  const min = Math.max(2, Math.ceil(MIN_SHARE * f.cases));
  const out: ExceptionItem[] = [];
  const failure = new Set(failureEnds);
  const success = new Set(successEnds);
  const before = (a: string) => predecessors(f, a)[0];
  const after = (a: string) => successors(f, a)[0];
  const item = (id: string, name: string, trigger: string, detectedBy: string, handling: string[], cases: number, ofCases: number, method: string) =>
    out.push({ id, name, trigger, detected_by: detectedBy, handling, cases, evidence: evidence(cases, ofCases, ratio(cases, ofCases), 'counted', method) });

  for (const a of f.activities) {
    const t = f.tally.activities.get(a)!;
    if (t.casesRepeating < min) continue;
    const back = predecessors(f, a).find((e) => e.from === a || earlier(f, a, e.from)) ?? predecessors(f, a)[0];
    item(
      `repeated-${slug(a)}`,
      `${q(a)} repeated`,
      back ? (back.from === a ? `${q(a)} directly again` : `after ${q(back.from)} (${back.cases} cases)`) : 'not shown by the data',
      'an activity occurring more than once in a case (cases_repeating)',
      back && back.from !== a ? [back.from, a, `the case goes on from ${q(a)}`] : [a, `the case goes on from ${q(a)}`],
      t.casesRepeating,
      t.cases,
      `cases with more than one ${q(a)} among the ${t.cases} cases with it (${pct(ratio(t.casesRepeating, t.cases))})`,
    );
  }

  const finished = f.variants.filter((v) => v.end !== undefined && success.has(v.end));
  const finishedCases = finished.reduce((n, v) => n + v.count, 0);
  f.mainPath.forEach((b, i) => {
    if ((f.activityCases.get(b) ?? 0) < SKIPPABLE_SHARE * f.cases || success.has(b)) return;
    const prev = f.mainPath[i - 1];
    // An exclusive alternative taken instead (a next step of prev never seen with b) is a choice, not a skip.
    const alternatives = prev === undefined ? [] : successors(f, prev).map((e) => e.to).filter((x) => x !== b && f.order(b, x).both === 0);
    // Activity ids of b and its alternatives (-2 for a label no variant holds).
    const absent = [b, ...alternatives].map((x) => f.idOf.get(x) ?? -2);
    const without = finished.filter((v) => !absent.some((k) => v.distinct.includes(k))).reduce((n, v) => n + v.count, 0);
    if (without < min) return;
    const instead = prev !== undefined ? successors(f, prev).find((e) => e.to !== b) : undefined;
    item(
      `skipped-${slug(b)}`,
      `${q(b)} skipped`,
      prev !== undefined && instead ? `after ${q(prev)} the case goes to ${q(instead.to)} instead (${instead.cases} cases)` : 'not shown by the data',
      `a case reaching a success ending without ${q(b)}, a main-path step of ${pct(ratio(f.activityCases.get(b) ?? 0, f.cases))} of cases`,
      instead ? [instead.to, 'the case reaches its ending without it'] : ['the case reaches its ending without it'],
      without,
      finishedCases,
      `variants ending in a success ending without ${q(b)}, over all cases ending in success`,
    );
  });

  for (let i = 0; i + 1 < f.mainPath.length; i++) {
    const a = f.mainPath[i]!;
    const b = f.mainPath[i + 1]!;
    const o = f.order(a, b);
    const flipped = o.both - o.aFirst;
    if (o.both === 0 || o.aFirst < OUT_OF_ORDER * o.both || flipped < min || parallel(f, a, b)) continue;
    item(
      `out-of-order-${slug(b)}-${slug(a)}`,
      `${q(b)} before ${q(a)}`,
      'not shown by the data',
      `first ${q(b)} earlier than first ${q(a)}, against the order of the main path (which ${pct(ratio(o.aFirst, o.both))} of cases with both keep)`,
      [b, a],
      flipped,
      o.both,
      `cases with both where ${q(b)} comes first, counted over the variants`,
    );
  }

  for (const a of f.activities) {
    const n = f.activityCases.get(a) ?? 0;
    if (n === 0 || n >= RARE_ACTIVITY_SHARE * f.cases) continue;
    const p = before(a);
    const s = after(a);
    const isFailure = failure.has(a);
    const endHere = (f.out.get(a) ?? []).find((e) => e.to === '')?.cases ?? 0;
    item(
      `${isFailure ? 'failed-ending' : 'rare'}-${slug(a)}`,
      isFailure ? `ends with ${q(a)}` : `rare step ${q(a)}`,
      p ? `after ${q(p.from)} (${p.cases} of ${n} cases)` : 'at the start of the case',
      isFailure ? `a case whose last activity is the failure ending ${q(a)}` : `an activity of fewer than ${RARE_ACTIVITY_SHARE * 100}% of cases`,
      s && s.cases > endHere ? [a, s.to] : [a, 'the case ends'],
      n,
      f.cases,
      `cases with ${q(a)} among all cases`,
    );
  }
  for (const a of failureEnds) {
    const n = f.activityCases.get(a) ?? 0;
    if (n < RARE_ACTIVITY_SHARE * f.cases) continue;
    const p = before(a);
    item(`failed-ending-${slug(a)}`, `ends with ${q(a)}`, p ? `after ${q(p.from)} (${p.cases} of ${n} cases)` : 'at the start of the case', `a case whose last activity is the failure ending ${q(a)}`, [a, 'the case ends'], n, f.cases, `cases with ${q(a)} among all cases`);
  }
  const method = `exceptions: repeated steps, main-path steps (done by at least ${SKIPPABLE_SHARE * 100}% of cases) skipped by cases reaching a success ending, main-path pairs done in the other order (when at least ${OUT_OF_ORDER * 100}% keep it), activities of fewer than ${RARE_ACTIVITY_SHARE * 100}% of cases and failure endings; kept when at least ${min} cases show one`;
  return { exceptions: out, method };
}
