import { cmp } from '../event.js';
import { splitKey } from '../tally.js';
import type { PairTally } from '../tally.js';
import { isPlaceholder } from './words.js';

/** A resource doing at least this share of an activity's events (and see specialistCut)... */
export const SYSTEM_SHARE = 0.3;
/**
 * ...and, where k resources do the activity, at least this many times the fair share 1/k, and more than the fair
 * share by SPECIALIST_Z standard errors of it over the activity's events: three interchangeable clerks each do about
 * a third, and the busiest of them crossing 30% is the luck of the draw, not a specialist.
 */
export const SPECIALIST_LEAD = 1.5;
export const SPECIALIST_Z = 3;
/** ...and at least this share of its own events at that activity looks like a system account, not a person. */
export const SYSTEM_FOCUS = 0.95;
/** ...over at least this many events. */
const SYSTEM_MIN_EVENTS = 20;

export interface SystemAccount {
  resource: string;
  activity: string;
  /** Share of the activity's events it does. */
  share: number;
  /** Share of its own events at that activity. */
  focus: number;
}

/**
 * Resources that do one step and little else, and a large share of it (a batch user cancelling unanswered offers,
 * a scheduler closing tickets): likely system accounts. Roles keep them apart from the people sharing the step, and
 * timeouts name them. A reading of counts only, so a hypothesis wherever it is said. Per activity, the largest.
 */
export function systemAccounts(resources: ReadonlyMap<string, PairTally>): Map<string, SystemAccount> {
  const byResource = new Map<string, number>();
  const byActivity = new Map<string, number>();
  const doers = new Map<string, number>();
  for (const [key, p] of resources) {
    const [activity, resource] = splitKey(key);
    if (isPlaceholder(resource) || p.events <= 0) continue;
    byResource.set(resource, (byResource.get(resource) ?? 0) + p.events);
    byActivity.set(activity, (byActivity.get(activity) ?? 0) + p.events);
    doers.set(activity, (doers.get(activity) ?? 0) + 1);
  }
  const out = new Map<string, SystemAccount>();
  for (const [key, p] of [...resources].sort((x, y) => cmp(x[0], y[0]))) {
    const [activity, resource] = splitKey(key);
    if (isPlaceholder(resource) || p.events < SYSTEM_MIN_EVENTS) continue;
    const share = p.events / (byActivity.get(activity) ?? 1);
    const focus = p.events / (byResource.get(resource) ?? 1);
    if (standsOut(share, doers.get(activity) ?? 1, byActivity.get(activity) ?? 1) && focus >= SYSTEM_FOCUS && share > (out.get(activity)?.share ?? 0)) out.set(activity, { resource, activity, share, focus });
  }
  return out;
}

/**
 * Whether a share of an activity's `events`, done by one of the `k` resources doing it, stands out: the activity's
 * only doer does, else the share must reach max(SYSTEM_SHARE, SPECIALIST_LEAD / k) and exceed the fair share 1/k by
 * SPECIALIST_Z binomial standard errors of it. Roles and timeouts read a specialist by this, and the audit recomputes it.
 */
export function standsOut(share: number, k: number, events: number): boolean {
  if (k <= 1) return share >= SYSTEM_SHARE;
  const fair = 1 / k;
  return share >= Math.max(SYSTEM_SHARE, SPECIALIST_LEAD * fair) && share - fair >= SPECIALIST_Z * Math.sqrt((fair * (1 - fair)) / events);
}
