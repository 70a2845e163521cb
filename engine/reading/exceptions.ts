import { cmp } from '../event.js';
import type { ExceptionItem } from '../document/types.js';
import { doneInsteadOf, type Backbone } from './backbone.js';
import { earlier, LOOP_SHARE, RARE_ACTIVITY_SHARE, SAME_TIME_REPEAT, withinAMinute } from './edges.js';
import { pairKey } from '../tally.js';
import { LOOP_TURN, loopTurns, loopTurnText, type Concurrency } from './concurrency.js';
import { evidence, parallel, pct, q, ratio, slug, successors, type Facts } from './facts.js';

const MIN_SHARE = 0.01;
const OUT_OF_ORDER = 0.8;
/** A repeat made by at least this share of the cases reaching the activity is its normal loop, not an exception. */
/** No exception may cover more than this share of all cases: what most cases do is the process. */
export const MAX_EXCEPTION_SHARE = 0.5;
/**
 * The step before a repeat (or the step taken instead of a skipped one) is named its trigger only when at
 * least this share of the cases in question took it: one taken by 1 of 139 cases says nothing about the others.
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
  /** The log's times say nothing (LogProfile.frozenClock): no repeat is the same entry saved again because its time repeats. */
  frozenClock = false,
  /** The log has a main path (engine/reading/paths.ts); without one the commonest path's ending says nothing. */
  hasMain = true,
  /** Concurrent pairs and the tree's loops (engine/reading/concurrency.ts). */
  conc?: Concurrency,
): { exceptions: ExceptionItem[]; loops: string[]; treeLoops: string[]; method: string } {
  const together = (a: string, b: string) => parallel(f, a, b) || conc?.concurrent(a, b) === true;
  // Repeats the mined tree takes as a loop's turn, confirmed on the cases: the normal way back, not exceptions.
  const treeLoops: string[] = [];
  const min = Math.max(2, Math.ceil(MIN_SHARE * f.cases));
  const out: ExceptionItem[] = [];
  const loops: string[] = [];
  const failureEnds = [...ends].filter(([, k]) => k === 'failure').map(([a]) => a);
  const failure = new Set(failureEnds);
  const item = (id: string, name: string, trigger: string, detectedBy: string, handling: string[], cases: number, ofCases: number, method: string) => {
    if (cases < min || cases > MAX_EXCEPTION_SHARE * f.cases) return;
    out.push({ id, name, trigger, detected_by: detectedBy, handling, cases, evidence: evidence(cases, ofCases, ratio(cases, ofCases), 'counted', method) });
  };

  let secondVisits: Map<number, Map<number, number>> | undefined;
  for (const a of f.activities) {
    const t = f.tally.activities.get(a)!;
    if (t.casesRepeating < min) continue;
    if (t.casesRepeating >= LOOP_SHARE * t.cases) {
      loops.push(`${q(a)} (${pct(ratio(t.casesRepeating, t.cases))} of the ${t.cases} cases with it repeat it)`);
      continue;
    }
    // Repeats that are the same entry saved again seconds later are no repeated work.
    const again = f.tally.edges.get(pairKey(a, a));
    if (!frozenClock && again && again.cases >= SAME_TIME_REPEAT * t.casesRepeating && withinAMinute(f, a) >= SAME_TIME_REPEAT) continue;
    // A repeat that goes through the other part of a loop of the mined tree (its redo step, for a step of its body)
    // in nearly every repeating case is the loop turning: its trigger is that part, not an exception.
    const loop = conc?.loopOf(a);
    if (loop) {
      const turn = loopTurns(f, a, loop);
      // The turn names its trigger as any repeat's is named: one step of that part taken by a quarter of the cases.
      if (turn.repeating > 0 && turn.through >= LOOP_TURN * turn.repeating && turn.viaCases >= TRIGGER_SHARE * turn.repeating) {
        treeLoops.push(loopTurnText(a, loop, turn));
        continue;
      }
    }
    // The step right before each repeating case's second visit, counted exactly over the variants.
    const [prev, n] = commonest(f, (secondVisits ??= stepsBeforeVisit(f, 2)).get(f.idOf.get(a)!));
    const back = prev !== undefined && n >= TRIGGER_SHARE * t.casesRepeating ? prev : undefined;
    const of = `${n} of the ${t.casesRepeating} cases that repeat it`;
    const trigger =
      back === undefined
        ? prev === undefined
          ? 'not shown by the data'
          : `no one step: the commonest right before its second visit, ${q(prev)}, in ${of}`
        : back === a
          ? `${q(a)} directly again (${of})`
          : `after ${q(back)} (${of})`;
    item(
      `repeated-${slug(a)}`,
      `${q(a)} repeated`,
      trigger,
      'an activity occurring more than once in a case, where most cases with it do it once',
      back !== undefined && back !== a ? [back, a, `the case goes on from ${q(a)}`] : [a, `the case goes on from ${q(a)}`],
      t.casesRepeating,
      t.cases,
      `cases with more than one ${q(a)} among the ${t.cases} cases with it (${pct(ratio(t.casesRepeating, t.cases))})`,
    );
  }

  // Skipped: a required backbone step x after step p; cases that did p, never x, and went on after their first p to a
  // later backbone step. A case that left the process after p (cancelled, withdrawn, refused: an ending of its own)
  // did not skip x; it ended, and its ending is an outcome, not a skip of every step it never reached.
  backbone.steps.forEach((x, i) => {
    const p = backbone.steps[i - 1];
    // Not reaching an ending is an outcome (see outcomes), not a skip.
    if (p === undefined || required?.has(x) !== true || ends.has(x) || together(p, x) || !earlier(f, p, x)) return;
    const ip = f.idOf.get(p);
    const ix = f.idOf.get(x);
    const laterSteps = backbone.steps.slice(i + 1);
    const later = new Set(laterSteps.map((s) => f.idOf.get(s)).filter((k) => k !== undefined));
    if (ip === undefined || ix === undefined || !later.size) return;
    let withP = 0;
    let without = 0;
    // Where those cases went right after their first p: counted over them, not over every case leaving p.
    const next = new Map<number, number>();
    for (const v of f.variants) {
      const at = v.ids.indexOf(ip);
      if (at < 0) continue;
      withP += v.count;
      if (v.distinct.includes(ix) || !v.ids.some((k, j) => j > at && later.has(k))) continue;
      without += v.count;
      const to = v.ids[at + 1]!;
      if (to >= 0) next.set(to, (next.get(to) ?? 0) + v.count);
    }
    const [to, n] = commonest(f, next);
    const instead = to !== undefined && n >= TRIGGER_SHARE * without ? to : undefined;
    const onward = `a later step of the backbone (${laterSteps.map(q).join(', ')})`;
    item(
      `skipped-${slug(x)}`,
      `${q(x)} skipped`,
      instead !== undefined
        ? `after ${q(p)} the case goes to ${q(instead)} instead (${n} of the ${without} cases)`
        : to !== undefined
          ? `after ${q(p)} no one step follows instead: the commonest, ${q(to)}, in ${n} of the ${without} cases`
          : `after ${q(p)}`,
      `a case that did ${q(p)} and went on to ${onward} without ever doing ${q(x)}, a step the mined model requires after it`,
      instead !== undefined ? [instead, `the case goes on without ${q(x)}`] : [`the case goes on without ${q(x)}`],
      without,
      withP,
      `cases with ${q(p)}, without ${q(x)}, and with ${onward} after their first ${q(p)}, among the ${withP} cases with ${q(p)}`,
    );
  });

  for (let i = 0; i + 1 < backbone.steps.length; i++) {
    const a = backbone.steps[i]!;
    const b = backbone.steps[i + 1]!;
    const o = f.order(a, b);
    const flipped = o.both - o.aFirst;
    if (o.both === 0 || o.aFirst < OUT_OF_ORDER * o.both || together(a, b)) continue;
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

  const infrequent = f.activities.filter((a) => (f.activityCases.get(a) ?? 0) > 0 && (f.activityCases.get(a) ?? 0) < RARE_ACTIVITY_SHARE * f.cases && !failure.has(a));
  // A step done instead of a backbone step (another channel for it) is a way of doing the work, not an exception.
  const instead = infrequent.map((a) => [a, doneInsteadOf(f, backbone, a)] as const).filter((x): x is readonly [string, string] => x[1] !== undefined);
  const rare = infrequent
    .filter((a) => !instead.some(([x]) => x === a))
    .sort((a, b) => (f.activityCases.get(b) ?? 0) - (f.activityCases.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
  const firstVisits = rare.length ? stepsBeforeVisit(f, 1) : new Map<number, Map<number, number>>();
  for (const a of rare.slice(0, MAX_RARE)) {
    const n = f.activityCases.get(a)!;
    // The step right before each case's first visit (or its start), counted over the cases with the step.
    const before = firstVisits.get(f.idOf.get(a)!);
    const starts = before?.get(START_ID) ?? 0;
    const [p, k] = commonest(f, before);
    const [where, most] = starts >= k ? ['the start of the case', starts] : [q(p!), k];
    const s = successors(f, a)[0];
    item(
      `rare-${slug(a)}`,
      `rare step ${q(a)}`,
      most >= TRIGGER_SHARE * n
        ? `${starts >= k ? 'at' : 'after'} ${where} (${most} of the ${n} cases)`
        : `no one step: the commonest right before it, ${where}, in ${most} of the ${n} cases`,
      `an activity of fewer than ${RARE_ACTIVITY_SHARE * 100}% of cases`,
      s && s.cases > (stops.get(a) ?? 0) ? [a, s.to] : [a, 'the case ends'],
      n,
      f.cases,
      `cases with ${q(a)} among all cases`,
    );
  }
  // The step right before the last event, counted over the cases ending there (not over every case taking it to the
  // ending), for every failure ending in one pass over the variants.
  const beforeEnd = new Map<string, Map<number, number>>();
  for (const v of f.variants) {
    const end = v.end;
    const prev = v.ids.length > 1 ? v.ids[v.ids.length - 2]! : -1;
    if (end === undefined || !failure.has(end) || prev < 0) continue;
    let m = beforeEnd.get(end);
    if (!m) beforeEnd.set(end, (m = new Map()));
    m.set(prev, (m.get(prev) ?? 0) + v.count);
  }
  // The ending of the main path, or the commonest ending, is how the process usually ends, whatever its name. Endings
  // tied for commonest are all usual: half the requests paid and half rejected make neither an exception.
  const usual = new Set<string>();
  if (hasMain && f.variants[0]?.end !== undefined) usual.add(f.variants[0].end);
  const top = Math.max(0, ...[...ends.keys()].map((a) => stops.get(a) ?? 0));
  for (const a of ends.keys()) if (top > 0 && (stops.get(a) ?? 0) === top) usual.add(a);
  for (const a of failureEnds) {
    if (usual.has(a)) continue;
    const n = stops.get(a) ?? 0;
    const [p, k] = commonest(f, beforeEnd.get(a));
    const trigger =
      p === undefined
        ? 'at the start of the case'
        : k >= TRIGGER_SHARE * n
          ? `after ${q(p)} (${k} of the ${n} cases)`
          : `no one step: the commonest right before it, ${q(p)}, in ${k} of the ${n} cases`;
    item(`failed-ending-${slug(a)}`, `ends with ${q(a)}`, trigger, `a case whose last activity is the failure ending ${q(a)}`, [a, 'the case ends'], n, f.cases, `cases whose last event is ${q(a)}, among all cases`);
  }
  const method =
    `repeats of a step that fewer than ${LOOP_SHARE * 100}% of the cases with it repeat (more is the step's normal loop; none that come right again within a minute: the same entry saved twice; none of a step of a loop of the mined process tree where at least ${LOOP_TURN * 100}% of the repeating cases go through the loop's other part between their 1st and 2nd visit, at least ${TRIGGER_SHARE * 100}% of them last through one step of it, the trigger named: the loop turning), backbone steps the mined model requires that cases went on without, ` +
    `backbone steps done in the other order (when at least ${OUT_OF_ORDER * 100}% keep it), activities of fewer than ${RARE_ACTIVITY_SHARE * 100}% of cases (${rare.length > MAX_RARE ? `the ${MAX_RARE} commonest of ${rare.length}` : `${rare.length}`}; not a step done instead of a backbone step, never with it and in its place${instead.length ? `: here ${instead.map(([a, b]) => `${q(a)} instead of ${q(b)}`).join(', ')}` : ''}) and cases ending in a failure ending (not the main path's ending, where a path is main, nor the commonest ending or those tied with it: that is how the process usually ends); ` +
    `kept when at least ${min} cases and at most ${MAX_EXCEPTION_SHARE * 100}% of all cases show one`;
  return { exceptions: out, loops, treeLoops, method };
}

/** The key stepsBeforeVisit counts a case's start under. */
const START_ID = -2;

/**
 * Per activity id: how many cases make their `nth` visit of it right after each activity id, or at their start
 * (START_ID), exact over the variants.
 */
function stepsBeforeVisit(f: Facts, nth: number): Map<number, Map<number, number>> {
  const out = new Map<number, Map<number, number>>();
  const visits = new Int32Array(f.activities.length);
  for (const v of f.variants) {
    const ids = v.ids;
    for (let i = 0; i < ids.length; i++) {
      const a = ids[i]!;
      if (a < 0 || ++visits[a]! !== nth) continue;
      const prev = i === 0 ? START_ID : ids[i - 1]!;
      // A step the tally lacks (-1) is no activity to name.
      if (prev === -1) continue;
      let m = out.get(a);
      if (!m) out.set(a, (m = new Map()));
      m.set(prev, (m.get(prev) ?? 0) + v.count);
    }
    for (const a of v.distinct) visits[a] = 0;
  }
  return out;
}

/** The activity of the largest count (ties: the first label), and its count; undefined for none. Other keys (START_ID) are left out. */
function commonest(f: Facts, counts: ReadonlyMap<number, number> | undefined): [string | undefined, number] {
  let best: string | undefined;
  let most = 0;
  for (const [id, n] of counts ?? []) {
    if (id < 0) continue;
    const label = f.activities[id]!;
    if (n > most || (n === most && best !== undefined && cmp(label, best) < 0)) [best, most] = [label, n];
  }
  return [best, most];
}
