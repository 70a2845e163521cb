import { parseIsoMillis } from './time.js';

/**
 * XES's standard lifecycle model (IEEE 1849): the transitions an activity's execution goes through. The file
 * readers pair a start with the transition that closes it (connectors/files/lifecycle.ts); the reading tells a
 * column of these from one holding something else (engine/reading/profile.ts).
 */

/** Transitions that begin an execution. */
export const OPENING_TRANSITIONS: ReadonlySet<string> = new Set(['start']);
/** Transitions that mark an execution without beginning or ending it. */
export const MARKING_TRANSITIONS: ReadonlySet<string> = new Set(['schedule', 'assign', 'reassign', 'suspend', 'resume']);
/** Transitions that end one (complete, or aborted, withdrawn, skipped). */
export const CLOSING_TRANSITIONS: ReadonlySet<string> = new Set(['complete', 'ate_abort', 'pi_abort', 'withdraw', 'autoskip', 'manualskip', 'unknown']);

export const STANDARD_TRANSITIONS: ReadonlySet<string> = new Set([...OPENING_TRANSITIONS, ...MARKING_TRANSITIONS, ...CLOSING_TRANSITIONS]);

/**
 * When an event's execution began: its `start_timestamp` (ISO text or epoch milliseconds, as the file readers pair
 * a start with its completion) when that parses and is not after the event; undefined otherwise.
 */
export function startedAt(ev: { readonly time: number; readonly attributes: Readonly<Record<string, unknown>> }): number | undefined {
  const raw = ev.attributes.start_timestamp;
  if (raw === undefined) return undefined;
  const start = typeof raw === 'number' ? Math.floor(raw) : typeof raw === 'string' ? parseIsoMillis(raw) : Number.NaN;
  return start <= ev.time ? start : undefined;
}

/**
 * Where the wait before an event ends: the start of its execution when the log records one (the wait is idle time,
 * not the next step's own work; an execution begun before the previous event ended waited nothing), else the event.
 */
export function waitEnd(ev: { readonly time: number; readonly attributes: Readonly<Record<string, unknown>> }, after: number): number {
  const start = startedAt(ev);
  return start === undefined ? ev.time : Math.max(after, start);
}
