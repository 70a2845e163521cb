import { z } from 'zod';
import { toWire, UNBOUNDED_EVENT_LIMITS, type Event } from '../event.js';
import { ProjectStore, type ProjectSnapshot } from '../store/project-store.js';
import type { ProjectState } from './state.js';

/** Strings shaped like a timestamp for filters. */
const timeInput = z.string().refine((s) => Number.isFinite(Date.parse(s)), 'expected an ISO 8601 time');

/** An investigation's scope; every part optional, all parts must hold. */
export const scopeSchema = z
  .object({
    from: timeInput.optional().describe('cases starting at or after'),
    to: timeInput.optional().describe('cases ending at or before'),
    variants: z.array(z.array(z.string()).max(1000)).max(1000).optional().describe('keep cases whose activity sequence is one of these'),
    activities: z.array(z.string()).max(1000).optional().describe('keep cases that contain every one of these activities'),
    attributes: z
      .record(z.string(), z.array(z.union([z.string(), z.number(), z.boolean()])).max(1000))
      .optional()
      .describe('keep cases with an event whose attribute equals one of the listed values'),
  })
  .strict()
  .meta({ id: 'Scope' });
export type Scope = z.infer<typeof scopeSchema>;

/** The events of a project grouped into cases (store.events() yields them case by case). */
export function* casesOf(events: Iterable<Event>): Generator<Event[]> {
  let current: Event[] = [];
  for (const e of events) {
    if (current.length && current[0]!.caseId !== e.caseId) {
      yield current;
      current = [];
    }
    current.push(e);
  }
  if (current.length) yield current;
}

/** Whether a whole case is inside the scope: cases are kept or dropped whole, so paths stay intact. */
export function inScope(trace: readonly Event[], scope: Scope): boolean {
  const first = trace[0]!.time;
  const last = trace[trace.length - 1]!.time;
  if (scope.from && first < Date.parse(scope.from)) return false;
  if (scope.to && last > Date.parse(scope.to)) return false;
  if (scope.variants?.length) {
    const path = trace.map((e) => e.activity);
    if (!scope.variants.some((v) => v.length === path.length && v.every((a, i) => a === path[i]))) return false;
  }
  if (scope.activities?.length) {
    const seen = new Set(trace.map((e) => e.activity));
    if (!scope.activities.every((a) => seen.has(a))) return false;
  }
  for (const [key, values] of Object.entries(scope.attributes ?? {})) {
    if (!trace.some((e) => e.attributes[key] !== undefined && values.includes(e.attributes[key]!))) return false;
  }
  return true;
}

export function* scopedCases(state: ProjectState, scopes: readonly Scope[]): Generator<Event[]> {
  for (const trace of state.traces()) if (scopes.every((s) => inScope(trace, s))) yield trace;
}

const BATCH = 5000;
// Counted from the kept cases themselves, never copied from the whole project (a scoped view has its own period and case ids).
// Retention's counts too: a scoped view replays only the kept events.
const derivedMeta = new Set(['data_version', 'log_digest', 'rejected', 'period_start', 'period_end', 'case_id_sample', 'late_unsequenced', 'pruned_events', 'event_id_floor']);

/**
 * The snapshot of a scoped view: the kept cases replayed into a throwaway
 * in-memory store, so the scoped graph goes through the very same counting and
 * builder as the full one. The version is the source's, so caches key on it.
 */
export function scopedSnapshot(state: ProjectState, scopes: readonly Scope[]): ProjectSnapshot {
  // Unbounded: these events were accepted once, under whatever limits held then.
  const temp = ProjectStore.open(':memory:', { limits: UNBOUNDED_EVENT_LIMITS });
  try {
    for (const [key, value] of Object.entries(state.meta())) {
      if (!derivedMeta.has(key)) temp.setMeta(key, value);
    }
    let records: unknown[] = [];
    for (const trace of scopedCases(state, scopes)) {
      for (const e of trace) records.push(toWire(e));
      if (records.length >= BATCH) {
        temp.apply({ records });
        records = [];
      }
    }
    if (records.length) temp.apply({ records });
    return { ...temp.snapshot(), dataVersion: state.dataVersion };
  } finally {
    temp.close();
  }
}
