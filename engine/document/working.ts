import { workingDuration, type WorkingCalendar } from '../calendar.js';
import { contribute } from '../contribution.js';
import { Counters, tallyFromRows } from '../store/codec.js';
import { KeyBook } from '../store/counter-keys.js';
import type { ProjectSnapshot, ProjectStore } from '../store/project-store.js';

/**
 * The store's snapshot with every duration recounted in working time. The
 * stored counters hold clock durations, so this replays every kept case
 * through contribute() with the calendar's duration function: a recompute
 * whose cost grows with the number of events (unlike buildDocument).
 */
export function workingSnapshot(store: ProjectStore, calendar: WorkingCalendar): ProjectSnapshot {
  const snapshot = store.snapshot();
  const counters = new Counters(new KeyBook());
  const duration = workingDuration(calendar);
  for (const trace of store.traces()) contribute(counters, trace, 1, duration);
  return {
    ...snapshot,
    tally: tallyFromRows(counters.rows()),
    meta: { ...snapshot.meta, time_basis: 'working', calendar: JSON.stringify(calendar) },
  };
}
