import type { EdgeKind, GraphEdge, GraphNode, Strength } from '../document/types.js';
import { doneInsteadOf, standIns, type Backbone } from './backbone.js';
import { parallel, pct, q, shareAtMost, type Facts } from './facts.js';
import { bucketValue } from '../sketch.js';
import { pairKey } from '../tally.js';
import type { LogProfile } from './profile.js';
import { TIED, type Ties } from './ties.js';
import { nameVerdict } from './words.js';
import { ALTERNATIVE_OVERLAP, alternativesOf, groupFirst, type Concurrency } from './concurrency.js';

/** An edge's kind as read, the method in words, and its strength when the data cannot carry the counted one. */
export interface EdgeReading {
  kind: EdgeKind;
  method: string;
  strength?: Strength;
}

export const REWORK_ORDER = 0.9;
export const RARE_ACTIVITY_SHARE = 0.05;
/** An edge taken by at least this share of all cases is normal whatever else holds. */
export const MOST_CASES = 0.5;
/** A hand-off into a failure ending is an exception only while fewer than this share of all cases take it. */
export const EXCEPTION_EDGE_SHARE = 0.2;
/** A hand-off is no skip of x when at least this share of the cases making it had done x before. */
export const NOT_YET_DONE = 0.1;
/** A direct repeat most of the step's cases make (and they are not rare): the step recurs, as the exceptions' normal loops do. */
function recurring(f: Facts, a: string, repeatCases: number): boolean {
  const cases = f.activityCases.get(a) ?? 0;
  return cases >= RARE_ACTIVITY_SHARE * f.cases && repeatCases >= LOOP_SHARE * cases;
}

/** A direct repeat whose hand-offs are at one timestamp at least this often is entries written at once, not rework. */
export const SAME_TIME_REPEAT = 0.9;
/** A step repeated by at least this share of its cases recurs: its loop is the normal way (edge kinds, exceptions). */
export const LOOP_SHARE = 0.5;

/**
 * Each edge's kind by a fixed order of stated cuts: escalation (see
 * escalations), rework (back to a step whose first occurrence comes earlier
 * in at least 90% of the cases with both, or a step repeating itself;
 * concurrent pairs, see facts.parallel, are neither rework nor skips),
 * normal (taken by at least half of all cases, or a hand-off along the
 * backbone: start, backbone steps, end, with no backbone step between), skip
 * (jumps over a backbone step that the mined model requires, lying between
 * the two in at least 90% of the cases with them), exception (touches an
 * activity of fewer than 5% of the cases, or enters a failure ending), else
 * allowed. A path most cases take is therefore never a skip or an exception.
 */
export function readEdgeKinds(
  f: Facts,
  backbone: Backbone,
  required: ReadonlySet<string> | undefined,
  nodes: readonly GraphNode[],
  edges: readonly GraphEdge[],
  escalationEdges: Set<string>,
  failureEnds: readonly string[],
  stops: ReadonlyMap<string, number>,
  ties: Ties,
  profile: Pick<LogProfile, 'snapshot' | 'dayLevel' | 'frozenClock'>,
  /** Concurrent pairs and the tree's loops (engine/reading/concurrency.ts); without it, none. */
  conc?: Concurrency,
  /** Cases stopping at each activity that were cut off while running (window.ts: begun in the log's final stretch). */
  censored?: ReadonlyMap<string, number>,
): { kinds: Map<string, EdgeReading>; assumption: string } {
  const together = (a: string, b: string) => parallel(f, a, b) || conc?.concurrent(a, b) === true;
  // Back to a step or to one of its alternatives (a simple or a complex repair, never both in a case): the two are
  // one step when asking whether a hand-off goes back, else going back to the other repair reads as a way forward.
  const alternatives = new Map<string, string[]>();
  const backTo = (from: string, to: string): string | undefined => {
    const o = f.order(to, from);
    if (o.both > 0 && o.aFirst >= REWORK_ORDER * o.both) return `back to ${q(to)}, whose first occurrence precedes ${q(from)} in ${pct(o.aFirst / o.both)} of the ${o.both} cases with both (cut ${REWORK_ORDER * 100}%)`;
    let alts = alternatives.get(to);
    if (alts === undefined) alternatives.set(to, (alts = alternativesOf(f, to)));
    if (!alts.length) return undefined;
    const g = groupFirst(f, [to, ...alts], from);
    if (g.both === 0 || g.first < REWORK_ORDER * g.both) return undefined;
    return `back to ${q(to)} or its alternative ${alts.map(q).join(', ')} (never both in at least ${(1 - ALTERNATIVE_OVERLAP) * 100}% of the cases with either: one step done one of two ways), the first of which precedes ${q(from)} in ${pct(g.first / g.both)} of the ${g.both} cases with both (cut ${REWORK_ORDER * 100}%)`;
  };
  const label = new Map(nodes.map((n) => [n.id, n.kind === 'activity' ? n.label : '']));
  const onBackbone = new Set(backbone.steps);
  // Entering a failure ending that most cases reach is the process's usual outcome, not an exception.
  const failure = new Set(failureEnds.filter((x) => (stops.get(x) ?? 0) <= MOST_CASES * f.cases));
  // A step done instead of a backbone step (another channel for it) is no rarity, however few cases take it.
  const instead = new Map<string, boolean>();
  const rare = (a: string) => {
    if (a === '' || (f.activityCases.get(a) ?? 0) >= RARE_ACTIVITY_SHARE * f.cases) return false;
    let r = instead.get(a);
    if (r === undefined) instead.set(a, (r = doneInsteadOf(f, backbone, a) === undefined));
    return r;
  };
  // The backbone step jumped over by a -> b, if any ('' is start or end).
  const jumped = (from: string, to: string, mustBeRequired: boolean) =>
    backbone.steps.find(
      (b) =>
        b !== from &&
        b !== to &&
        (!mustBeRequired || required?.has(b) === true) &&
        (from === '' || (earlier(f, from, b) && !together(from, b))) &&
        (to === '' || (earlier(f, b, to) && !together(b, to))),
    );
  // A step done instead of a backbone step (the same check at another site, 55 / 45) stands for it: its hand-offs are
  // as normal as the backbone step's, not merely allowed. The stand-ins are found once (see backbone.standIns).
  const stand = standIns(f, backbone).of;
  // A refusal done instead of an approval is another ending, not another way of the step: it stands for nothing.
  const standFor = (x: string) => (x === '' || onBackbone.has(x) ? x : failure.has(x) || nameVerdict(x) === 'failure' ? undefined : stand.get(x));
  const alongBackbone = (from: string, to: string) => {
    const sf = standFor(from);
    const st = standFor(to);
    return sf !== undefined && st !== undefined && sf !== st && jumped(sf, st, false) === undefined;
  };
  const kinds = new Map<string, EdgeReading>();
  for (const e of edges) {
    const from = label.get(e.from) ?? '';
    const to = label.get(e.to) ?? '';
    const key = `${from}\u0000${to}`;
    let kind: EdgeKind = 'allowed';
    let why = 'no rework, normal, skip, escalation or exception cut applies';
    const pair = from && to ? conc?.pair(from, to) : undefined;
    const loop = from && to && from !== to ? conc?.loopBack(from, to) : undefined;
    let back: string | undefined;
    if (pair) {
      // Two concurrent steps follow each other as their branches happen to be recorded: no hand-off, so neither
      // normal (a way of the process) nor rework. The contract has no kind for it; allowed is the nearest.
      kind = 'allowed';
      why = `interleaving, not a hand-off: ${q(from)} and ${q(to)} run concurrently (the mined process tree's parallel block, and each directly follows the other: ${q(pair.a)} -> ${q(pair.b)} in ${pair.ab} cases, the other way in ${pair.ba}); the contract has no interleaving kind, so allowed, and the wait is the time between two branches, not a hand-off's`;
    } else if (from && to && escalationEdges.has(key)) {
      kind = 'escalation';
      why = `${q(to)} follows ${q(from)} mainly after a long wait (see escalations)`;
    } else if (from && to && from === to && profile.snapshot.length > 0) {
      // A log of record updates: staying in a state is the record updated again.
      kind = e.cases >= MOST_CASES * f.cases ? 'normal' : 'allowed';
      why = `${q(from)} again is another update of the record in the same state (the log reads as record snapshots; see the assumptions), not rework`;
    } else if (from && to && from === to && !profile.frozenClock && ties.handoff(from, to) >= SAME_TIME_REPEAT) {
      // Several entries of one step at one timestamp (lab results written together): entries, not work done again.
      kind = e.cases >= MOST_CASES * f.cases ? 'normal' : 'allowed';
      why = `${q(from)} repeats at the same timestamp in ${pct(ties.handoff(from, to))} of its direct repeats: entries written at once, not rework`;
    } else if (from && to && from === to && !profile.frozenClock && withinAMinute(f, from) >= SAME_TIME_REPEAT) {
      // Seconds apart: the same entry saved twice (a form submitted again), not work done again.
      kind = e.cases >= MOST_CASES * f.cases ? 'normal' : 'allowed';
      why = `${q(from)} repeats within a minute in ${pct(withinAMinute(f, from))} of its direct repeats: entries written twice, not rework`;
    } else if (from && to && from === to && e.cases >= MOST_CASES * f.cases) {
      // Work redone is the exception; a step most cases record twice in a row is recorded that way (status updates,
      // sessions of one work item), which a log of records cannot tell from work done again.
      kind = 'normal';
      why = `${q(from)} repeats directly in ${pct(e.cases / f.cases)} of all cases: most cases record it more than once in a row (updates or sessions of one piece of work), the usual way of the step rather than work redone`;
    } else if (from && to && from === to && recurring(f, from, e.cases)) {
      // A step most of its own cases repeat, directly, is a recurring step (a monthly payment, a daily round): its
      // usual way. The same cut as the exceptions' normal loops (LOOP_SHARE), so edge and exception agree.
      kind = 'normal';
      why = `${q(from)} repeats directly in ${pct(e.cases / (f.activityCases.get(from) ?? 1))} of the ${f.activityCases.get(from)} cases with it: a step that recurs in most of its cases, its usual way rather than work redone`;
    } else if (loop) {
      // The loop's way back, both ways (into its redo part and from there into its body): one kind for the whole
      // loop, whichever of the body's alternatives a case goes back to.
      kind = 'rework';
      why = `the way back of a loop of the mined process tree (${loop.body.has(from) ? `from its body into its redo part ${[...loop.redo].map(q).join(', ')}` : `from its redo part back into its body`})`;
    } else if (from && to && (from === to || (!together(from, to) && (back = backTo(from, to)) !== undefined))) {
      kind = 'rework';
      why = from === to ? `${q(from)} repeats directly` : back!;
    } else if (e.cases >= MOST_CASES * f.cases) {
      kind = 'normal';
      why = `taken by ${pct(e.cases / f.cases)} of all cases`;
    } else if (alongBackbone(from, to)) {
      kind = 'normal';
      const stood = [from, to].filter((x) => x !== '' && !onBackbone.has(x));
      why = `a hand-off along the backbone (the activities most cases do) with no backbone step in between${stood.length ? `, ${stood.map((x) => `${q(x)} done instead of ${q(standFor(x)!)}`).join(' and ')}` : ''}`;
    } else if (from && !to && (censored?.get(from) ?? 0) >= 0.5 * e.cases) {
      // Cases cut off by the end of the log stop wherever they were: not a way the process ends, so no skip.
      why = `at least half of the cases stopping at ${q(from)} (${censored!.get(from)} of ${e.cases}) were still running when the log was cut (see the observation window assumption): not a way the process ends`;
    } else {
      const skipped = jumped(from, to, true);
      // A step the case did earlier is not skipped by going on without it (an invoice matched before the goods came).
      if (skipped !== undefined && doneBefore(f, from, to, skipped) < NOT_YET_DONE) {
        kind = 'skip';
        why = `jumps over ${q(skipped)}, done by ${pct((f.activityCases.get(skipped) ?? 0) / f.cases)} of cases, required by the mined model, lying between the two in at least ${REWORK_ORDER * 100}% of the cases with them, and not done earlier in at least ${(1 - NOT_YET_DONE) * 100}% of the cases making this hand-off`;
      }
    }
    // An exception is a minority path: a hand-off into a failure ending that a fifth of all cases take is how the process often ends.
    if (kind === 'allowed' && (rare(from) || rare(to) || (failure.has(to) && e.cases < EXCEPTION_EDGE_SHARE * f.cases))) {
      kind = 'exception';
      why = failure.has(to) ? `enters the failure ending ${q(to)}` : `touches an activity of fewer than ${RARE_ACTIVITY_SHARE * 100}% of cases`;
    }
    // Which of two steps at one timestamp came first is the file's order: a kind read from that is weak.
    const tied = from && to ? ties.handoff(from, to) : 0;
    if (tied >= TIED) kinds.set(e.id, { kind, method: `${kind}: ${why}; ${pct(tied)} of its hand-offs share a timestamp, so their order is the file's and the edge is weak`, strength: 'weak' });
    // On day-level data which steps are next to each other within a day is the file's order, for every edge.
    else if (profile.dayLevel) kinds.set(e.id, { kind, method: `${kind}: ${why}; times are day-level, so which steps follow each other within a day is the file's order: weak`, strength: 'weak' });
    else kinds.set(e.id, { kind, method: `${kind}: ${why}` });
  }
  const assumption =
    `Edge kinds, first cut that applies: interleaving (two activities that run concurrently, as the concurrency assumption defines it, follow each other: no hand-off; the contract has no kind for it, so allowed, with its method saying interleaving), escalation (a step taken mainly after a long wait), rework (back to a step whose first occurrence comes earlier in at least ${REWORK_ORDER * 100}% of cases with both, or to one of its alternatives, steps never done with it in at least ${(1 - ALTERNATIVE_OVERLAP) * 100}% of the cases with either that hand over to the same next step, taken as one step; or the way back of a loop of the mined process tree, from its body into its redo part or back; or a direct repeat, unless at least ${SAME_TIME_REPEAT * 100}% of its repeats share a timestamp or come within a minute: entries written at once or twice, or most cases make it: the step's usual recording, or most of the step's own cases repeat it: a recurring step), ` +
    `normal (taken by at least ${MOST_CASES * 100}% of all cases, or a hand-off along the backbone with no backbone step in between), skip (jumps over a backbone step the mined process tree requires, lying between the two in at least ${REWORK_ORDER * 100}% of cases), ` +
    `exception (touches an activity of fewer than ${RARE_ACTIVITY_SHARE * 100}% of cases that is not done instead of a backbone step, or enters a failure ending where at most ${MOST_CASES * 100}% of cases end and is taken by fewer than ${EXCEPTION_EDGE_SHARE * 100}% of all cases), else allowed` +
    (censored?.size ? `; a step to the end that at least half of its cases took because the log was cut while they ran (the observation window assumption) is allowed, no skip.` : '.');
  return { kinds, assumption };
}

/**
 * Of the direct hand-offs a -> b (counted over the variants), the share made by a case that had done x before a:
 * it went on without x because x was done already, not skipped.
 */
function doneBefore(f: Facts, a: string, b: string, x: string): number {
  // From the start, a case has done nothing before.
  if (a === '') return 0;
  const ia = f.idOf.get(a);
  const ib = f.idOf.get(b);
  const ix = f.idOf.get(x);
  let all = 0;
  let done = 0;
  for (const v of f.variants) {
    const ids = v.ids;
    const len = ids.length;
    let seen = false;
    for (let i = 0; i < len; i++) {
      if (ids[i] === ia && (b === '' ? i === len - 1 : i + 1 < len && ids[i + 1] === ib)) {
        all += v.count;
        if (seen) done += v.count;
      }
      if (ids[i] === ix) seen = true;
    }
  }
  return all ? done / all : 0;
}

/** a's first occurrence precedes b's in at least REWORK_ORDER of the cases with both. */
export function earlier(f: Facts, a: string, b: string): boolean {
  const o = f.order(a, b);
  return o.both > 0 && o.aFirst >= REWORK_ORDER * o.both;
}

/** Share of the direct repeats a -> a that come within a minute. */
export function withinAMinute(f: Facts, a: string): number {
  const e = f.tally.edges.get(pairKey(a, a));
  // Sketches hold the document's time basis: read each bucket in hours.
  return e ? shareAtMost(e.wait, 1 / 60, (b) => f.toHours(bucketValue(b))) : 0;
}
