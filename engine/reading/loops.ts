import { cmp } from '../event.js';
import { END } from '../tally.js';
import type { SequenceRule } from '../document/types.js';
import { evidence, pct, q, ratio, slug, strengthOf, type Facts } from './facts.js';
import { TIED, type Ties } from './ties.js';

/**
 * The turns of loops: where a case goes after the 1st, 2nd, 3rd ... visit of an activity it repeats. Decisions
 * are read at an activity's first visit (the choice counters carry the attributes known then), so what a loop
 * decides on a later turn (a tenant evicted at the second warning, an order cancelled only after the second
 * reminder) would be lost; the variants hold every path, so each turn's next step is counted from them, exactly.
 * A case has one k-th visit of an activity at most, so the counts per turn are cases too.
 */

/** Turns are counted 1, 2, 3, 4 and this one, meaning this many or more. */
export const TURNS = 5;

/** Per activity a case visits more than once: per turn (index k - 1), the next step (END_STEP: the case stops there) and its cases. */
export type Turns = Map<string, Map<string, number>[]>;

/** The next step of a case that stops at the visit (the tally's END). */
export const END_STEP = END;

export function ordinal(k: number): string {
  if (k >= TURNS) return `${TURNS}th or later`;
  return k === 1 ? '1st' : k === 2 ? '2nd' : k === 3 ? '3rd' : `${k}th`;
}

/** One pass over the variants: linear in the events of the distinct paths. */
export function readTurns(f: Facts): Turns {
  const looped = f.activities.map((a) => (f.tally.activities.get(a)?.casesRepeating ?? 0) > 0);
  const turns: Turns = new Map();
  if (!looped.some(Boolean)) return turns;
  const visits = new Int32Array(f.activities.length);
  for (const v of f.variants) {
    const ids = v.ids;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (id < 0) continue;
      const k = Math.min(TURNS, ++visits[id]!);
      if (!looped[id]) continue;
      const nextId = i + 1 < ids.length ? ids[i + 1]! : -2;
      if (nextId === -1) continue;
      const next = nextId === -2 ? END_STEP : f.activities[nextId]!;
      const a = f.activities[id]!;
      let byTurn = turns.get(a);
      if (!byTurn) turns.set(a, (byTurn = Array.from({ length: TURNS }, () => new Map<string, number>())));
      const at = byTurn[k - 1]!;
      at.set(next, (at.get(next) ?? 0) + v.count);
    }
    for (const id of ids) if (id >= 0) visits[id] = 0;
  }
  return turns;
}

const total = (m: Map<string, number>): number => [...m.values()].reduce((n, x) => n + x, 0);

/**
 * What the later turns of `at` add to its first-visit decision, for its evidence: the branches taken on the 2nd
 * and later visits, per turn, and in how many cases each is taken on any turn. Empty when later turns are few
 * (under 10 visits, or under 5% of the cases reaching the point).
 */
export function laterTurnsNote(f: Facts, turns: Turns, at: string, atPoint: number, show: (next: string) => string): string {
  const byTurn = turns.get(at);
  if (!byTurn) return '';
  const later = byTurn.slice(1);
  const visits = later.reduce((n, m) => n + total(m), 0);
  if (visits < Math.max(10, 0.05 * atPoint)) return '';
  const perNext = new Map<string, number[]>();
  later.forEach((m, i) => {
    for (const [next, n] of m) (perNext.get(next) ?? perNext.set(next, new Array<number>(TURNS - 1).fill(0)).get(next)!)[i] = n;
  });
  const sum = (xs: number[]) => xs.reduce((n, x) => n + x, 0);
  const listed = [...perNext].sort((a, b) => sum(b[1]) - sum(a[1]) || cmp(a[0], b[0])).slice(0, 4);
  const anyTurn = (next: string) => f.out.get(at)?.find((e) => e.to === next)?.cases;
  const parts = listed.map(([next, ns]) => {
    const perTurn = ns.map((n, i) => (n ? `${n} at the ${ordinal(i + 2)}` : '')).filter(Boolean).join(', ');
    const cases = anyTurn(next);
    return `${q(show(next))} ${sum(ns)} (${perTurn})` + (cases !== undefined ? `, on any turn in ${cases} of the ${atPoint} cases` : '');
  });
  return `; later turns of the loop (the 2nd and later visits of ${q(at)}, ${visits} in ${total(byTurn[1]!)} cases) go to ${parts.join('; ')}${perNext.size > 4 ? '; ...' : ''}`;
}

/** A step that follows only from a later turn must be absent where this many of its cases were expected. */
const EXPECTED_BEFORE_MIN = 5;
/** And taken in at least this many cases from that turn on. */
const AFTER_MIN_CASES = 10;
/** At most this share of the cases at the first visit may reach the k-th (else the visits are one piece of work). */
const REACH_MAX = 0.9;
/** The step is taken at least at this share of the k-th visits. */
const EXIT_MIN_SHARE = 0.05;

/**
 * Steps that come right after an activity only from its k-th visit on (k >= 2): never after the earlier visits,
 * although at the rate it follows the later ones at least EXPECTED_BEFORE_MIN cases would have taken it there
 * (so the absence is telling: by chance in under 1% of logs). A reminder loop that cancels only after the second
 * reminder, a review that accepts only after an additional reviewer. Counted from the variants, so exact; stated
 * as what the log shows, with the turns' counts. None where the step's order is the file's: on day-level data, or
 * where the two share a timestamp in at least TIED of their hand-offs or of the cases with both (lab results
 * entered with their order).
 */
export function readLoopExits(f: Facts, turns: Turns, ties: Ties): SequenceRule[] {
  // Which step comes right after another is the file's order on day-level data and where the two share a timestamp.
  if (ties.profile.dayLevel) return [];
  const rules: SequenceRule[] = [];
  for (const [at, byTurn] of [...turns].sort((x, y) => cmp(x[0], y[0]))) {
    const steps = new Set(byTurn.flatMap((m) => [...m.keys()]));
    for (const next of [...steps].sort(cmp)) {
      if (next === at || next === END_STEP) continue;
      const k0 = byTurn.findIndex((m) => (m.get(next) ?? 0) > 0) + 1;
      if (k0 < 2) continue;
      const before = byTurn.slice(0, k0 - 1).reduce((n, m) => n + total(m), 0);
      const fromK = byTurn.slice(k0 - 1);
      const taken = fromK.reduce((n, m) => n + (m.get(next) ?? 0), 0);
      const visits = fromK.reduce((n, m) => n + total(m), 0);
      if (taken < AFTER_MIN_CASES || ratio(taken, visits) * before < EXPECTED_BEFORE_MIN) continue;
      // A loop lets cases go at each turn: when (nearly) every case with the activity reaches its k-th visit, the
      // visits are parts of one piece of work (a work item scheduled, started, completed under one name) and "the
      // k-th" names no turn. And a step taken at a sliver of the k-th visits is no way out of the loop.
      const atK = byTurn[k0 - 1]!;
      if (total(atK) > REACH_MAX * total(byTurn[0]!) || ratio(atK.get(next) ?? 0, total(atK)) < EXIT_MIN_SHARE) continue;
      // Last, as the dearest test (a pass over the variants per pair): only pairs the counts would keep get here.
      if (ties.handoff(at, next) >= TIED || ties.orderDependence(at, next) >= TIED) continue;
      // In cases (a case can take it on several 5th-or-later visits): those where it follows the activity at all.
      const cases = f.out.get(at)?.find((e) => e.to === next)?.cases ?? taken;
      const earlier = k0 === 2 ? `none of the ${before} 1st ones` : `none of the ${before} visits before the ${ordinal(k0)}`;
      rules.push({
        id: `later-turn-${slug(at)}-${slug(next)}`,
        type: 'other',
        statement: `${q(next)} comes right after ${q(at)} only from a case's ${ordinal(k0)} ${q(at)} on: after ${earlier}, after ${atK.get(next) ?? 0} of the ${total(atK)} ${ordinal(k0)} ones (${pct(ratio(atK.get(next) ?? 0, total(atK)))}).`,
        activities: [at, next],
        holds: 1,
        evidence: evidence(
          cases,
          cases,
          1,
          strengthOf(cases, 1),
          `turns of the loop counted over the variants (a case's k-th visit of ${q(at)} and the step right after it): ${q(next)} follows ${taken} visits in ${cases} cases, each a ${ordinal(k0)} or later visit; at its rate there (${pct(ratio(taken, visits))} of ${visits} visits) the ${before} earlier visits would have given ${(ratio(taken, visits) * before).toFixed(1)}, and gave none; kept when at least ${EXPECTED_BEFORE_MIN} were expected and ${AFTER_MIN_CASES} cases take it`,
        ),
      });
    }
  }
  return rules;
}
