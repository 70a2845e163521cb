import { pairKey } from '../tally.js';
import { cmp } from '../event.js';
import type { Facts } from './facts.js';

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
  let steps = f.activities.filter((a) => (f.activityCases.get(a) ?? 0) >= cut);
  if (steps.length < 2 && f.activities.length >= 2) {
    // Too varied for any two activities to reach half of the cases: take those near the commonest.
    const top = Math.max(...f.activities.map((a) => f.activityCases.get(a) ?? 0));
    cut = BACKBONE_SHARE * top;
    method = `activities done by at least ${BACKBONE_SHARE * 100}% as many cases as the commonest activity (no two reach ${BACKBONE_SHARE * 100}% of all cases)`;
    steps = f.activities.filter((a) => (f.activityCases.get(a) ?? 0) >= cut);
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

/**
 * The backbone step an activity is done instead of, if any: a channel or a variant of one step ('sent online only'
 * where most offers are 'sent by mail and online'). Never with that step in a case, and in its place: its cases do
 * the backbone step before it (or the one after, for the first). Such a step is another way of doing the work, not
 * an exception, however few cases take it.
 */
export function doneInsteadOf(f: Facts, backbone: Backbone, a: string): string | undefined {
  const own = f.activityCases.get(a) ?? 0;
  if (own === 0 || backbone.steps.includes(a)) return undefined;
  for (let i = 0; i < backbone.steps.length; i++) {
    const b = backbone.steps[i]!;
    // Asked from the backbone step's side: its order row is built already (one per backbone step), where a row for
    // every other activity would cost a pass over the variants each.
    if (f.order(b, a).both > INSTEAD_EXCLUSIVE * own) continue;
    const context = backbone.steps[i > 0 ? i - 1 : i + 1];
    if (context === undefined || f.order(context, a).both < INSTEAD_CONTEXT * own) continue;
    // In its place: right after the step before it (or right before the one after), as the step it stands for is.
    const hop = i > 0 ? f.tally.edges.get(pairKey(context, a)) : f.tally.edges.get(pairKey(a, context));
    if (hop && hop.cases >= 0.5 * own) return b;
  }
  return undefined;
}
