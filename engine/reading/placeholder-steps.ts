import { cmp } from '../event.js';
import { splitKey } from '../tally.js';
import { q, type Facts } from './facts.js';
import { isPlaceholder } from './words.js';

/**
 * Steps and resources that name nothing (issue 31). An extraction maps each source status to an activity; a status it
 * cannot map comes out as 'Unmatched', 'Unknown' or 'n/a', and a missing performer as '-'. Such a step is where the
 * extraction failed, not where the work went: it stays a node with its exact counts, but no stage, backbone step or
 * ending rests on it, and the data-quality assumptions name it. A resource such as '-' is nobody, as 'nan' is (roles,
 * separation of duties and system accounts already skip placeholders: words.ts).
 */

/** Activity names (each part of one built as name+transition) that stand for no step. */
const PLACEHOLDER_STEPS = new Set(['unmatched', 'unknown', 'undefined', 'n/a', 'none', 'null', '-', '--', '?', 'missing', 'nan']);

/** Whether an activity names no step: its name, or every '+'-joined part of it, is a placeholder. */
export function isPlaceholderStep(activity: string): boolean {
  const parts = activity.split('+');
  return parts.every((p) => PLACEHOLDER_STEPS.has(p.trim().toLowerCase()));
}

/** The data-quality sentences for placeholder steps and resources, counted from the activity and resource counters. */
export function placeholderAssumptions(f: Facts): string[] {
  const out: string[] = [];
  const steps = f.activities.filter(isPlaceholderStep).sort(cmp);
  if (steps.length) {
    const listed = steps.map((a) => `${q(a)} (${f.tally.activities.get(a)?.events ?? 0} events in ${f.activityCases.get(a) ?? 0} cases)`);
    out.push(
      `Data quality: ${listed.join(', ')} ${steps.length === 1 ? 'names' : 'name'} no step (a placeholder an extraction writes for a state it could not map); ${steps.length === 1 ? 'it stays a node' : 'they stay nodes'} with exact counts but no stage, backbone step or ending rests on ${steps.length === 1 ? 'it' : 'them'}.`,
    );
  }
  const nobody = new Map<string, { events: number; activities: number }>();
  for (const [key, p] of f.tally.resources) {
    if (p.events <= 0) continue;
    const resource = splitKey(key)[1];
    if (!isPlaceholder(resource)) continue;
    const n = nobody.get(resource) ?? { events: 0, activities: 0 };
    n.events += p.events;
    n.activities += 1;
    nobody.set(resource, n);
  }
  if (nobody.size) {
    const listed = [...nobody].sort((a, b) => b[1].events - a[1].events || cmp(a[0], b[0]));
    out.push(
      `Data quality: the resource ${listed.map(([r, n]) => `${q(r)} on ${n.events} events (at ${n.activities} ${n.activities === 1 ? 'activity' : 'activities'})`).join(', ')} stands for a missing performer: no role, separation of duties or system account is read from it.`,
    );
  }
  return out;
}
