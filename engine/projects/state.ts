import type { Event } from '../event.js';
import type { ProjectSnapshot, ProjectStore } from '../store/project-store.js';
import { mergeSnapshots } from './merge.js';

/**
 * A project's whole state as readers see it: its own store (HTTP ingestion,
 * uploads, the demo feed) alone, or with the states its stream sources keep
 * per partition. Reads only: writers go through the registry.
 */
export interface ProjectState {
  /** Grows with every change of any part. */
  readonly dataVersion: number;
  /** Whether every part's counted state is in memory at its current version: a snapshot then reads no counters. */
  readonly warm: boolean;
  snapshot(): ProjectSnapshot;
  /** Every case's events in case order, one case at a time (part after part). */
  traces(): Iterable<Event[]>;
  /** Source-level facts (case notion, time zone, ...) of the project's own store. */
  meta(): Record<string, string>;
}

/** A store read as a whole project state. */
export function storeState(store: ProjectStore): ProjectState {
  return {
    get dataVersion() {
      return store.dataVersion;
    },
    get warm() {
      return store.tallyWarm;
    },
    snapshot: () => store.snapshot(),
    traces: () => store.traces(),
    meta: () => store.allMeta(),
  };
}

/**
 * The project's own store and its partition states, merged (engine/projects/merge.ts).
 * Each part is read in its own read transaction: every part is consistent, and the
 * merged version is the sum of the versions the parts' snapshots were taken at.
 */
export function mergedState(own: ProjectStore, parts: readonly ProjectStore[]): ProjectState {
  const all = [own, ...parts];
  return {
    get dataVersion() {
      let v = 0;
      for (const s of all) v += s.dataVersion;
      return v;
    },
    get warm() {
      return all.every((s) => s.tallyWarm);
    },
    snapshot: () => {
      const withEvents = all.filter((s) => s.hasEvents());
      const checkSplit = withEvents.length > 1;
      return mergeSnapshots(
        all.map((s) => {
          const snapshot = s.snapshot();
          return {
            snapshot,
            ...(snapshot.objectCounts.size > 0 ? { objects: s.objects() } : {}),
            ...(checkSplit && withEvents.includes(s) ? { caseIds: s.caseIds() } : {}),
          };
        }),
      );
    },
    *traces() {
      for (const s of all) yield* s.traces();
    },
    meta: () => own.allMeta(),
  };
}
