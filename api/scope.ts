import { ProjectStore, toWire, type Event, type ProjectSnapshot } from '../engine/index.js';
import type { Scope } from './schemas.js';

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

export function* scopedCases(store: ProjectStore, scopes: readonly Scope[]): Generator<Event[]> {
  for (const trace of casesOf(store.events())) if (scopes.every((s) => inScope(trace, s))) yield trace;
}

const BATCH = 5000;
// Counted from the kept cases themselves, never copied from the whole project (a scoped view has its own period and case ids).
const derivedMeta = new Set(['data_version', 'log_digest', 'rejected', 'period_start', 'period_end', 'case_id_sample']);

/**
 * The snapshot of a scoped view: the kept cases replayed into a throwaway
 * in-memory store, so the scoped graph goes through the very same counting and
 * builder as the full one. The version is the source's, so caches key on it.
 */
export function scopedSnapshot(store: ProjectStore, scopes: readonly Scope[]): ProjectSnapshot {
  const temp = ProjectStore.open(':memory:');
  try {
    for (const { key, value } of store.db.prepare<[], { key: string; value: string }>('SELECT key, value FROM meta').all()) {
      if (!derivedMeta.has(key)) temp.setMeta(key, value);
    }
    let records: unknown[] = [];
    for (const trace of scopedCases(store, scopes)) {
      for (const e of trace) records.push(toWire(e));
      if (records.length >= BATCH) {
        temp.apply({ records });
        records = [];
      }
    }
    if (records.length) temp.apply({ records });
    return { ...temp.snapshot(), dataVersion: store.dataVersion };
  } finally {
    temp.close();
  }
}
