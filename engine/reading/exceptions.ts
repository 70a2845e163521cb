import type { ExceptionItem } from '../document/types.js';
import type { Backbone } from './backbone.js';
import { earlier, RARE_ACTIVITY_SHARE } from './edges.js';
import { evidence, parallel, pct, predecessors, q, ratio, slug, successors, type Facts } from './facts.js';

const MIN_SHARE = 0.01;
const OUT_OF_ORDER = 0.8;
/** A repeat made by at least this share of the cases reaching the activity is its normal loop, not an exception. */
export const LOOP_SHARE = 0.5;
/** No exception may cover more than this share of all cases: what most cases do is the process. */
export const MAX_EXCEPTION_SHARE = 0.5;
/**
 * A step leading back to a repeated activity is named its trigger only when at least this share of the cases
 * repeating it take that step: the commonest way back taken by 1 of 139 cases says nothing about the other 138.
 */
export const TRIGGER_SHARE = 0.25;
/** Rare steps listed at most (the commonest first); the rest are counted in the method. */
const MAX_RARE = 25;

/**
 * What goes off the normal path, each counted exactly over the variants:
 * repeats that most cases reaching the step do not make, backbone steps the
 * mined model requires yet cases went on without, backbone steps done in the
 * other order, rare activities and failure endings. Kept when at least
 * max(2, 1% of cases) show it and at most half of all cases do.
 */
export function readExceptions(
  f: Facts,
  backbone: Backbone,
  required: ReadonlySet<string> | undefined,
  ends: ReadonlyMap<string, string>,
  stops: ReadonlyMap<string, number>,
): { exceptions: ExceptionItem[]; loops: string[]; method: string } {
  const min = Math.max(2, Math.ceil(MIN_SHARE * f.cases));
  const out: ExceptionItem[] = [];
  const loops: string[] = [];
  const failureEnds = [...ends].filter(([, k]) => k === 'failure').map(([a]) => a);
  const failure = new Set(failureEnds);
  const item = (id: string, name: string, trigger: string, detectedBy: string, handling: string[], cases: number, ofCases: number, method: string) => {
    if (cases < min || cases > MAX_EXCEPTION_SHARE * f.cases) return;
    out.push({ id, name, trigger, detected_by: detectedBy, handling, cases, evidence: evidence(cases, ofCases, ratio(cases, ofCases), 'counted', method) });
  };

  for (const a of f.activities) {
    const t = f.tally.activities.get(a)!;
    if (t.casesRepeating < min) continue;
    if (t.casesRepeating >= LOOP_SHARE * t.cases) {
      loops.push(`${q(a)} (${pct(ratio(t.casesRepeating, t.cases))} of the ${t.cases} cases with it repeat it)`);
      continue;
    }
    // The commonest step back: the activity again, or one that usually comes after it. Its usual step before is no
    // step back (most cases take it once, before their only visit), so it is never named the trigger.
    const stepBack = predecessors(f, a).find((e) => e.from === a || earlier(f, a, e.from));
    const before = predecessors(f, a)[0];
    const back = stepBack && stepBack.cases >= TRIGGER_SHARE * t.casesRepeating ? stepBack : undefined;
    const trigger = back
      ? back.from === a
        ? `${q(a)} directly again`
        : `after ${q(back.from)} (${back.cases} cases)`
      : stepBack
        ? `not shown by the data: the commonest step back to it, from ${q(stepBack.from)}, is in ${stepBack.cases} of the ${t.casesRepeating} cases that repeat it`
        : before
          ? `not shown by the data: no step that usually comes after it leads back to it (${q(before.from)}, its commonest step before, is directly before it in ${before.cases} cases)`
          : 'not shown by the data';
    item(
      `repeated-${slug(a)}`,
      `${q(a)} repeated`,
      trigger,
      'an activity occurring more than once in a case, where most cases with it do it once',
      back && back.from !== a ? [back.from, a, `the case goes on from ${q(a)}`] : [a, `the case goes on from ${q(a)}`],
      t.casesRepeating,
      t.cases,
      `cases with more than one ${q(a)} among the ${t.cases} cases with it (${pct(ratio(t.casesRepeating, t.cases))})`,
    );
  }

  // Skipped: a required backbone step x after step p; cases that did p, never x, and went on after their first p.
  backbone.steps.forEach((x, i) => {
    const p = backbone.steps[i - 1];
    // Not reaching an ending is an outcome (see outcomes), not a skip.
    if (p === undefined || required?.has(x) !== true || ends.has(x) || parallel(f, p, x) || !earlier(f, p, x)) return;
    const ip = f.idOf.get(p);
    const ix = f.idOf.get(x);
    if (ip === undefined || ix === undefined) return;
    let withP = 0;
    let without = 0;
    for (const v of f.variants) {
      const at = v.ids.indexOf(ip);
      if (at < 0) continue;
      withP += v.count;
      if (at + 1 < v.ids.length && !v.distinct.includes(ix)) without += v.count;
    }
    const instead = successors(f, p).find((e) => e.to !== x);
    item(
      `skipped-${slug(x)}`,
      `${q(x)} skipped`,
      instead ? `after ${q(p)} the case goes to ${q(instead.to)} instead (${instead.cases} cases)` : `after ${q(p)}`,
      `a case that did ${q(p)} and went on without ever doing ${q(x)}, a step the mined model requires after it`,
      instead ? [instead.to, `the case goes on without ${q(x)}`] : [`the case goes on without ${q(x)}`],
      without,
      withP,
      `cases with ${q(p)}, without ${q(x)}, and with an event after their first ${q(p)}, among the ${withP} cases with ${q(p)}`,
    );
  });

  for (let i = 0; i + 1 < backbone.steps.length; i++) {
    const a = backbone.steps[i]!;
    const b = backbone.steps[i + 1]!;
    const o = f.order(a, b);
    const flipped = o.both - o.aFirst;
    if (o.both === 0 || o.aFirst < OUT_OF_ORDER * o.both || parallel(f, a, b)) continue;
    item(
      `out-of-order-${slug(b)}-${slug(a)}`,
      `${q(b)} before ${q(a)}`,
      'not shown by the data',
      `first ${q(b)} earlier than first ${q(a)}, against the backbone's order (which ${pct(ratio(o.aFirst, o.both))} of cases with both keep)`,
      [b, a],
      flipped,
      o.both,
      `cases with both where ${q(b)} comes first, counted over the variants`,
    );
  }

  const rare = f.activities
    .filter((a) => (f.activityCases.get(a) ?? 0) > 0 && (f.activityCases.get(a) ?? 0) < RARE_ACTIVITY_SHARE * f.cases && !failure.has(a))
    .sort((a, b) => (f.activityCases.get(b) ?? 0) - (f.activityCases.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
  for (const a of rare.slice(0, MAX_RARE)) {
    const n = f.activityCases.get(a)!;
    const p = predecessors(f, a)[0];
    const s = successors(f, a)[0];
    item(
      `rare-${slug(a)}`,
      `rare step ${q(a)}`,
      p ? `after ${q(p.from)} (${p.cases} of ${n} cases)` : 'at the start of the case',
      `an activity of fewer than ${RARE_ACTIVITY_SHARE * 100}% of cases`,
      s && s.cases > (stops.get(a) ?? 0) ? [a, s.to] : [a, 'the case ends'],
      n,
      f.cases,
      `cases with ${q(a)} among all cases`,
    );
  }
  for (const a of failureEnds) {
    const n = stops.get(a) ?? 0;
    const p = predecessors(f, a)[0];
    item(`failed-ending-${slug(a)}`, `ends with ${q(a)}`, p ? `after ${q(p.from)} (${p.cases} cases)` : 'at the start of the case', `a case whose last activity is the failure ending ${q(a)}`, [a, 'the case ends'], n, f.cases, `cases whose last event is ${q(a)}, among all cases`);
  }
  const method =
    `repeats of a step that fewer than ${LOOP_SHARE * 100}% of the cases with it repeat (more is the step's normal loop), backbone steps the mined model requires that cases went on without, ` +
    `backbone steps done in the other order (when at least ${OUT_OF_ORDER * 100}% keep it), activities of fewer than ${RARE_ACTIVITY_SHARE * 100}% of cases (${rare.length > MAX_RARE ? `the ${MAX_RARE} commonest of ${rare.length}` : `${rare.length}`}) and cases ending in a failure ending; ` +
    `kept when at least ${min} cases and at most ${MAX_EXCEPTION_SHARE * 100}% of all cases show one`;
  return { exceptions: out, loops, method };
}
