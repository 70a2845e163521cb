import { cmp } from '../event.js';
import { splitKey } from '../tally.js';
import type { PairTally } from '../tally.js';
import { isPlaceholder } from './words.js';

/** A resource doing at least this share of an activity's events... */
export const SYSTEM_SHARE = 0.3;
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
  for (const [key, p] of resources) {
    const [activity, resource] = splitKey(key);
    if (isPlaceholder(resource)) continue;
    byResource.set(resource, (byResource.get(resource) ?? 0) + p.events);
    byActivity.set(activity, (byActivity.get(activity) ?? 0) + p.events);
  }
  const out = new Map<string, SystemAccount>();
  for (const [key, p] of [...resources].sort((x, y) => cmp(x[0], y[0]))) {
    const [activity, resource] = splitKey(key);
    if (isPlaceholder(resource) || p.events < SYSTEM_MIN_EVENTS) continue;
    const share = p.events / (byActivity.get(activity) ?? 1);
    const focus = p.events / (byResource.get(resource) ?? 1);
    if (share >= SYSTEM_SHARE && focus >= SYSTEM_FOCUS && share > (out.get(activity)?.share ?? 0)) out.set(activity, { resource, activity, share, focus });
  }
  return out;
}
