import { cmp } from '../event.js';
import { isPlaceholderStep } from './placeholder-steps.js';
import { quantile, sketchCount } from '../sketch.js';
import { edgeKey } from '../tally.js';
import type { Stage } from '../document/types.js';
import { rankSteps, type Backbone } from './backbone.js';
import { parallel, type Facts } from './facts.js';

export interface StageReading {
  stages: Stage[];
  stageOf: Map<string, string>;
  /** Stage index per activity (0-based, in case order). */
  index: Map<string, number>;
  method: string;
}

/** A process of at most this many activities is one stage, unless one wait between its steps dwarfs the others. */
const TINY = 3;
/** Where the count gives one stage, a wait this many times every other wait between consecutive steps parts two phases. */
const DOMINANT_WAIT = 4;
const MAX_STAGES = 6;
const ACTIVITIES_PER_STAGE = 4;
/** A boundary needs this share of the cases with both steps to do them in its order. */
const ORDERED = 0.9;
/** Stages are cut along the activities at least this share of cases do (wider than the backbone: phases such as offers or appeals that a minority reaches still make a stage). */
export const SKELETON_SHARE = 0.2;
/** At most this many skeleton steps (the commonest): the order rows they need are built once each. */
const MAX_SKELETON = 60;

/**
 * Stages are consecutive pieces of the skeleton (the activities at least a
 * fifth of the cases do, in their typical order), cut where cases wait longest between two
 * steps that follow each other in at least 90% of the cases with both (two
 * concurrent steps are never split). About one stage per four activities, at
 * most six, never more than half the skeleton's steps; a tiny process is one
 * stage; where the count gives one stage, one wait dwarfing the others parts two. Every other activity joins the stage of the last skeleton step that
 * usually precedes it, else of the first it usually precedes. Nothing here
 * reads the process tree, so it works whatever the tree's root is; the cost
 * is one order row per backbone step and a lookup per activity and step.
 */
export function readStages(
  f: Facts,
  backbone: Backbone,
  endings: ReadonlySet<string> = new Set(),
  waitsSay = true,
  /** Concurrent activities (engine/reading/concurrency.ts): members of one parallel block share a stage. */
  concurrent: (a: string, b: string) => boolean = () => false,
): StageReading {
  const common = f.activities
    .filter((a) => (f.activityCases.get(a) ?? 0) >= SKELETON_SHARE * f.cases && !isPlaceholderStep(a))
    .sort((a, b) => (f.activityCases.get(b) ?? 0) - (f.activityCases.get(a) ?? 0) || cmp(a, b))
    .slice(0, MAX_SKELETON);
  const ranked = common.length >= backbone.steps.length ? rankSteps(f, common, backbone.position) : backbone.steps;
  if (f.activities.length === 0) return { stages: [], stageOf: new Map(), index: new Map(), method: 'no cases: no stages' };
  // Endings that never meet in a case (accepted, refused, cancelled) are one step taken one of several ways: the
  // stages must not put one after the other. They leave the skeleton and end its last stage together.
  const verdicts = alternativeEndings(f, ranked, endings);
  const steps = verdicts.length ? ranked.filter((a) => !verdicts.includes(a)) : ranked;
  const candidates: { i: number; wait: number }[] = [];
  const waits: number[] = [];
  for (let i = 0; i + 1 < steps.length; i++) {
    const a = steps[i]!;
    const b = steps[i + 1]!;
    const wait = waitBetween(f, a, b);
    waits.push(wait);
    const o = f.order(a, b);
    if (o.both === 0 || o.aFirst < ORDERED * o.both || parallel(f, a, b)) continue;
    // A cut with concurrent steps on both sides of it would part a parallel block (a ticket checked while the
    // request is examined): the block's steps are one phase, whatever order the skeleton lists them in.
    if (steps.slice(0, i + 1).some((x) => steps.slice(i + 1).some((y) => concurrent(x, y)))) continue;
    candidates.push({ i, wait });
  }
  // Ordering and paying apart by days, ordering and confirming by hours: two phases even in three steps.
  const longest = Math.max(0, ...candidates.map((c) => c.wait));
  // Waits on a clock that says nothing (simulated ticks, generated or frozen times) part no phases: no dominant wait.
  const dominant = waitsSay && waits.length >= 2 && longest > 0 && waits.filter((w) => w * DOMINANT_WAIT > longest).length === 1;
  // Past a tiny process, at least two stages where the skeleton has the steps for them: four steps of ordering,
  // receiving and paying are not one phase.
  const byCount = f.activities.length <= TINY ? 1 : Math.max(1, Math.min(MAX_STAGES, Math.max(2, Math.round(f.activities.length / ACTIVITIES_PER_STAGE)), Math.ceil(ranked.length / 2)));
  const wanted = byCount === 1 && dominant ? 2 : byCount;
  const cuts = (waitsSay ? byWait(candidates) : evenly(candidates, steps.length, wanted)).slice(0, wanted - 1).sort((x, y) => x - y);
  const stepStage = new Map<string, number>();
  let s = 0;
  steps.forEach((a, i) => {
    stepStage.set(a, s);
    if (cuts.includes(i)) s++;
  });
  const index = new Map<string, number>(stepStage);
  const pos = backbone.position;
  // Another activity belongs with the last backbone step that comes before it in most of *its* cases, else with
  // the first that comes after it in most of them (backbone rows are built, so each question is a lookup). Over its
  // own cases, not the few that also do the step: 29 deleted bills that had been billed first do not put a deletion
  // that mostly follows registration in the billing stage.
  for (const a of verdicts) index.set(a, s);
  for (const a of f.activities) {
    // A placeholder step ('Unmatched') belongs to no phase: its node keeps no stage (placeholder-steps.ts).
    if (index.has(a) || isPlaceholderStep(a)) continue;
    // A step concurrent with a skeleton step runs in its phase.
    const partner = steps.find((x) => concurrent(a, x));
    if (partner !== undefined) {
      index.set(a, stepStage.get(partner)!);
      continue;
    }
    const own = f.activityCases.get(a) ?? 0;
    let k = -1;
    for (let i = steps.length - 1; i >= 0 && k < 0; i--) if (mostlyBefore(f, steps[i]!, a, own)) k = i;
    for (let i = 0; i < steps.length && k < 0; i++) if (mostlyBefore(f, a, steps[i]!, own)) k = i;
    index.set(a, k < 0 ? 0 : stepStage.get(steps[k]!)!);
  }
  const members: string[][] = Array.from({ length: s + 1 }, () => []);
  for (const [a, k] of index) members[k]!.push(a);
  const stages: Stage[] = [];
  const stageOf = new Map<string, string>();
  members.forEach((list, k) => {
    list.sort((x, y) => pos.get(x)! - pos.get(y)! || cmp(x, y));
    const onSkeleton = steps.filter((m) => stepStage.get(m) === k);
    const named = onSkeleton.length ? onSkeleton : list;
    const last = k === s && verdicts.length ? verdicts.join(' / ') : named[named.length - 1]!;
    const name = named.length === 1 && !(k === s && verdicts.length) ? named[0]! : `${named[0]} to ${last}`;
    const id = `stage-${k + 1}`;
    stages.push({ id, name, activities: list });
    for (const m of list) stageOf.set(m, id);
  });
  const method =
    `the skeleton (the activities done by at least ${SKELETON_SHARE * 100}% of the cases, at most ${MAX_SKELETON}, ordered as the backbone) of ${steps.length} steps cut at ${cuts.length} of ${candidates.length} boundaries between consecutive steps done in that order by at least ${ORDERED * 100}% of the cases with both and not concurrent, ` +
    `${waitsSay ? 'taking the longest median waits between them' : "the boundaries nearest an even split of the steps: the log's times say nothing of waits (see the clock and times assumptions), so no stage rests on one"}; about one stage per ${ACTIVITIES_PER_STAGE} activities (at least two past ${TINY} activities), at most ${MAX_STAGES} and at most half the skeleton's steps (one stage for ${TINY} activities or fewer; where that gives one stage, two when one wait between consecutive steps is at least ${DOMINANT_WAIT} times each other); ` +
    `endings next to each other on the skeleton that never occur together in a case (in at most ${EXCLUSIVE * 100}% of the cases of the rarer) are alternatives, joined by the other endings (of at least ${ALTERNATIVE_SHARE * 100}% of cases) that meet none of them and follow the skeleton step before them in most of their own cases: they leave the skeleton and close its last stage together${verdicts.length ? ` (here ${verdicts.map((v) => `'${v}'`).join(', ')})` : ''}; no cut parts two concurrent steps (see the concurrency assumption), and an activity concurrent with a skeleton step joins its stage; every other activity joins the stage of the last skeleton step that precedes it in at least half of its own cases, else of the first one it precedes so; a stage is named by its first and last skeleton step (or its alternative endings)`;
  return { stages, stageOf, index, method };
}

/** Boundaries with a wait, longest first (step index of the step before each). */
function byWait(candidates: readonly { i: number; wait: number }[]): number[] {
  return candidates
    .filter((c) => c.wait > 0)
    .sort((x, y) => y.wait - x.wait || x.i - y.i)
    .map((c) => c.i);
}

/** For each of the wanted - 1 even cuts of `steps` steps, the nearest boundary not taken yet (ties to the earlier). */
function evenly(candidates: readonly { i: number }[], steps: number, wanted: number): number[] {
  const free = candidates.map((c) => c.i);
  const out: number[] = [];
  for (let k = 1; k < wanted && free.length; k++) {
    const target = (k * steps) / wanted - 1;
    let best = 0;
    for (let j = 1; j < free.length; j++) if (Math.abs(free[j]! - target) < Math.abs(free[best]! - target)) best = j;
    out.push(free.splice(best, 1)[0]!);
  }
  return out;
}

/** Two endings are alternatives when at most this share of the rarer one's cases has both... */
const EXCLUSIVE = 0.01;
/** ...and each ends at least this share of all cases. */
const ALTERNATIVE_SHARE = 0.01;

/**
 * The endings that are alternatives at the close of the process: consecutive skeleton steps that are endings and
 * never meet in a case (accepted, cancelled), joined by the other endings that meet none of them and come after the
 * skeleton step before them in most of their own cases (refused, after the same return). An early exit (a claim
 * rejected at its review) comes before that step and stays where it happens. In skeleton order, then by cases.
 */
function alternativeEndings(f: Facts, skeleton: readonly string[], endings: ReadonlySet<string>): string[] {
  const cases = (a: string) => f.activityCases.get(a) ?? 0;
  const exclusive = (a: string, b: string) => f.order(a, b).both <= EXCLUSIVE * Math.min(cases(a), cases(b));
  let group: string[] = [];
  let at = -1;
  for (let i = 0; i < skeleton.length && group.length < 2; i++) {
    const run = [skeleton[i]!];
    for (let j = i + 1; j < skeleton.length && endings.has(skeleton[j]!) && run.every((b) => exclusive(skeleton[j]!, b)); j++) run.push(skeleton[j]!);
    if (endings.has(skeleton[i]!) && run.length >= 2) [group, at] = [run, i];
  }
  if (group.length < 2) return [];
  const before = skeleton[at - 1];
  for (const a of [...endings].sort((x, y) => cases(y) - cases(x) || cmp(x, y))) {
    if (group.includes(a) || skeleton.includes(a) || cases(a) < ALTERNATIVE_SHARE * f.cases) continue;
    if (group.every((b) => exclusive(a, b)) && (before === undefined || mostlyBefore(f, before, a, cases(a)))) group.push(a);
  }
  return group;
}

/** a's first occurrence precedes b's in at least half of `over` cases (the placed activity's own). */
function mostlyBefore(f: Facts, a: string, b: string, over: number): boolean {
  const o = f.order(a, b);
  return o.both > 0 && 2 * o.aFirst >= over;
}

/** The median wait of the direct hand-off a -> b when cases make it, else the median time from a to its next step. */
function waitBetween(f: Facts, a: string, b: string): number {
  const e = f.tally.edges.get(edgeKey(a, b));
  if (e && sketchCount(e.wait) > 0) return quantile(e.wait, 0.5);
  const next = f.tally.activities.get(a)?.timeToNext;
  return next && sketchCount(next) > 0 ? quantile(next, 0.5) : 0;
}
