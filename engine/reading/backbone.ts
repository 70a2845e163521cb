import { cmp } from '../event.js';
import { START } from '../tally.js';
import type { Facts } from './facts.js';
import { isPlaceholderStep } from './placeholder-steps.js';

/** An activity is on the backbone when at least this share of all cases do it. */
export const BACKBONE_SHARE = 0.5;
/** Backbones longer than this are ordered by position only. */
const MAX_RANKED = 200;

export interface Backbone {
  /** The activities most cases do, in their typical order. */
  steps: string[];
  /** Per activity, its typical position in a case: the case-weighted mean of (first index + 0.5) / length, in 0..1. */
  position: Map<string, number>;
  /** The cut used (a share of all cases, or of the commonest activity's cases when too few activities reach it). */
  method: string;
}

/**
 * The process's main behaviour as the activities most cases take, ordered by
 * where they typically first occur. Unlike the commonest variant, which on
 * varied logs holds a few percent of the cases, the backbone rests on the
 * counts of every case. One pass over the variants: linear in their length.
 */
export function backboneOf(f: Facts): Backbone {
  const n = f.activities.length;
  const sum = new Float64Array(n);
  const weight = new Float64Array(n);
  for (const v of f.variants) {
    const len = v.ids.length;
    if (!len) continue;
    // distinct holds the activities in order of first occurrence; their first index is found once each.
    let j = 0;
    for (let i = 0; i < len && j < v.distinct.length; i++) {
      if (v.ids[i] === v.distinct[j]) {
        const k = v.distinct[j++]!;
        sum[k]! += ((i + 0.5) / len) * v.count;
        weight[k]! += v.count;
      }
    }
  }
  const position = new Map<string, number>();
  f.activities.forEach((a, k) => position.set(a, weight[k] ? sum[k]! / weight[k]! : 0.5));
  let cut = BACKBONE_SHARE * f.cases;
  let method = `activities done by at least ${BACKBONE_SHARE * 100}% of the cases`;
  // A placeholder step ('Unmatched') is no behaviour of the process (placeholder-steps.ts).
  const named = f.activities.filter((a) => !isPlaceholderStep(a));
  let steps = named.filter((a) => (f.activityCases.get(a) ?? 0) >= cut);
  if (steps.length < 2 && f.activities.length >= 2) {
    // Too varied for any two activities to reach half of the cases: take those near the commonest.
    const top = Math.max(...named.map((a) => f.activityCases.get(a) ?? 0));
    cut = BACKBONE_SHARE * top;
    method = `activities done by at least ${BACKBONE_SHARE * 100}% as many cases as the commonest activity (no two reach ${BACKBONE_SHARE * 100}% of all cases)`;
    steps = named.filter((a) => (f.activityCases.get(a) ?? 0) >= cut);
  }
  return {
    steps: rankSteps(f, steps, position),
    position,
    method: `${method}, ordered by how many of the others each precedes in most cases with both, then by typical position in the case (mean of (first index + 0.5) / length, weighted by cases)`,
  };
}

/**
 * Steps in their typical order. Relative positions lean on case length (a
 * step of short cases looks late), so steps are ordered by how many others
 * each precedes in most cases with both (Copeland), position breaking ties;
 * past MAX_RANKED steps the pairwise count costs more than it is worth, and
 * position alone orders them.
 */
export function rankSteps(f: Facts, list: readonly string[], position: ReadonlyMap<string, number>): string[] {
  const byPosition = (a: string, b: string) => position.get(a)! - position.get(b)! || cmp(a, b);
  const steps = [...list].sort(byPosition);
  if (steps.length > MAX_RANKED) return steps;
  const wins = new Map(steps.map((a) => [a, 0]));
  for (let i = 0; i < steps.length; i++) {
    for (let j = i + 1; j < steps.length; j++) {
      const o = f.order(steps[i]!, steps[j]!);
      if (2 * o.aFirst > o.both) wins.set(steps[i]!, wins.get(steps[i]!)! + 1);
      else if (2 * o.aFirst < o.both) wins.set(steps[j]!, wins.get(steps[j]!)! + 1);
    }
  }
  return steps.sort((a, b) => wins.get(b)! - wins.get(a)! || byPosition(a, b));
}

/** A step is done instead of a backbone step when at most this share of its cases also do that step... */
const INSTEAD_EXCLUSIVE = 0.01;
/** ...and at least this share of its cases do the backbone step before it (or after it, for the first step). */
const INSTEAD_CONTEXT = 0.9;

/** The steps done instead of each backbone step, and the work it took to find them (order and edge look-ups). */
export interface StandIns {
  /** Activity -> the backbone step it is done instead of. */
  of: Map<string, string>;
  work: number;
}

const found = new WeakMap<Backbone, StandIns>();

/**
 * The backbone step an activity is done instead of, if any: a channel or a variant of one step ('sent online only'
 * where most offers are 'sent by mail and online'; a check done at site B where most are done at site A). Never with
 * that step in a case, and in its place: its cases do the backbone step before it (or the one after, for the first)
 * and go to it right from there. Such a step is another way of doing the work, not an exception, however few cases
 * take it.
 */
export function doneInsteadOf(f: Facts, backbone: Backbone, a: string): string | undefined {
  return standIns(f, backbone).of.get(a);
}

/**
 * Every stand-in at once, memoized per backbone. The step before may itself be done instead of (a chain of
 * steps each done at one of two sites): a case at the second site's second step came from either site's first.
 * So backbone steps are taken in order and the step before counts with its own stand-ins, found already: each is
 * computed once, never by recursion (a recursive check re-asked every predecessor's stand-in and went exponential
 * on chains). Candidates are only the activities right after the step before (or its stand-ins): the look-ups
 * grow with the edges, not with activities times steps.
 */
export function standIns(f: Facts, backbone: Backbone): StandIns {
  const known = found.get(backbone);
  if (known) return known;
  const of = new Map<string, string>();
  const by = new Map<string, string[]>();
  const onBackbone = new Set(backbone.steps);
  let work = 0;
  const steps = backbone.steps;
  for (let i = 0; i < steps.length; i++) {
    const b = steps[i]!;
    const first = i === 0;
    const context = steps[first ? 1 : i - 1];
    if (context === undefined) continue;
    // The step before and what is done instead of it. For the first step, the step after (its stand-ins are not
    // known yet): a step cases start with and do not go on from (a draft saved, never submitted) stands for nothing.
    const contexts = first ? [context] : [context, ...(by.get(context) ?? [])];
    // Candidates: activities a hop away from a context, in the direction the case goes.
    const hops = new Map<string, number>();
    for (const c of contexts) {
      for (const e of (first ? f.into.get(c) : f.out.get(c)) ?? []) {
        work++;
        const x = first ? e.from : e.to;
        if (x === START || onBackbone.has(x) || of.has(x)) continue;
        hops.set(x, (hops.get(x) ?? 0) + e.cases);
      }
    }
    for (const [x, hop] of [...hops].sort((p, q) => cmp(p[0], q[0]))) {
      const own = f.activityCases.get(x) ?? 0;
      // In its place: right after the step before it (or right before the one after), as the step it stands for is.
      if (own === 0 || hop < 0.5 * own) continue;
      // Asked from the backbone step's side: its order row is built already (one per backbone step).
      work++;
      if (f.order(b, x).both > INSTEAD_EXCLUSIVE * own) continue;
      // Its cases do the step before (or one done instead of it); for the first step, the step after.
      let withContext = 0;
      for (const c of contexts) {
        work++;
        withContext += f.order(c, x).both;
      }
      if (withContext < INSTEAD_CONTEXT * own) continue;
      of.set(x, b);
      by.set(b, [...(by.get(b) ?? []), x]);
    }
  }
  const out = { of, work };
  found.set(backbone, out);
  return out;
}
