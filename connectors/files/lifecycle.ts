/**
 * Activity executions from lifecycle transitions (XES's `lifecycle:transition`, IEEE 1849's standard model).
 * A log that writes `start` and `complete` for one execution of an activity is two events of one step: counted as
 * two, every activity looks repeated by every case, every repeat looks like rework, and the ordinary next step
 * looks slow beside the instant start → complete hop. As Disco and pm4py's interval logs do, each `start` is paired
 * with the next closing transition of the same activity in the case (first in, first out), and the pair becomes one
 * event: the closing one, with the start's time as its `start_timestamp` (a service time, as a CSV with a start
 * column gives). Transitions that only mark an execution (schedule, assign, reassign, suspend, resume) are left
 * out; a `start` nothing closes stays an event of its own (an execution begun and never completed in the log).
 *
 * A trace whose transitions are not all of the standard model is left as it is: its column holds something else
 * (BPIC 2013 writes statuses such as "In Progress" there), and pairing would invent executions.
 */

import { CLOSING_TRANSITIONS as CLOSES, MARKING_TRANSITIONS as MARKS, OPENING_TRANSITIONS as OPENS, STANDARD_TRANSITIONS } from '../../engine/lifecycle.js';

/** The transition of an event as the standard model spells it, or undefined when it has none. */
export function transitionOf(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : String(value).trim().toLowerCase();
}

export interface PairingCounts {
  /** Executions made of a start and its closing event. */
  paired: number;
  /** Starts nothing closed, kept as events of their own. */
  unpairedStarts: number;
  /** Marking transitions left out. */
  dropped: number;
  /** Traces left as they were: their transitions are not the standard model's. */
  unpairedTraces: number;
}

export const noPairing = (): PairingCounts => ({ paired: 0, unpairedStarts: 0, dropped: 0, unpairedTraces: 0 });

/** One event of a trace as pairing sees it. */
export interface Transitioned {
  activity: string;
  time: number;
  transition: string | undefined;
}

/**
 * Which events of a trace (given in case order: by time, then file order) stay, and for each kept closing event the
 * time of the start it closes. Pure: the reader applies it to its own drafts.
 */
export function pairTrace(events: readonly Transitioned[], counts: PairingCounts): { keep: boolean[]; startOf: (number | undefined)[] } {
  const keep = events.map(() => true);
  const startOf: (number | undefined)[] = events.map(() => undefined);
  if (!events.some((e) => e.transition !== undefined && OPENS.has(e.transition))) return { keep, startOf };
  if (events.some((e) => e.transition !== undefined && !STANDARD_TRANSITIONS.has(e.transition))) {
    counts.unpairedTraces += 1;
    return { keep, startOf };
  }
  // Open starts per activity, oldest first.
  const open = new Map<string, number[]>();
  events.forEach((e, i) => {
    const t = e.transition;
    if (t === undefined) return;
    if (MARKS.has(t)) {
      keep[i] = false;
      counts.dropped += 1;
    } else if (OPENS.has(t)) {
      const list = open.get(e.activity);
      if (list) list.push(i);
      else open.set(e.activity, [i]);
    } else if (CLOSES.has(t)) {
      const start = open.get(e.activity)?.shift();
      if (start === undefined) return;
      keep[start] = false;
      startOf[i] = events[start]!.time;
      counts.paired += 1;
    }
  });
  for (const list of open.values()) counts.unpairedStarts += list.length;
  return { keep, startOf };
}
