import type { Event } from './event.js';
import { bucketOf, addToSketch } from './sketch.js';
import { edgeKey, emptyTally, END, pairKey, START, variantKey, type Tally } from './tally.js';

/** A case's events in case order (see compareEvents). */
export type Trace = readonly Event[];

/**
 * What one case adds to the project's tally. The incremental path applies
 * contribution(after) - contribution(before) for every case a batch touches,
 * which is exact for appends, late events and replacements alike.
 */
export function contribution(trace: Trace): Tally {
  const t = emptyTally();
  if (trace.length === 0) return t;
  t.cases = 1;
  t.events = trace.length;

  const perActivity = new Map<string, number>();
  const seenEdges = new Set<string>();
  const seenResources = new Set<string>();
  const seenObjectTypes = new Set<string>();
  const path: string[] = [];

  const bumpEdge = (from: string, to: string, waitMillis: number | undefined) => {
    const key = edgeKey(from, to);
    const e = t.edges.get(key) ?? { events: 0, cases: 0, wait: new Map() };
    e.events += 1;
    if (!seenEdges.has(key)) {
      seenEdges.add(key);
      e.cases += 1;
    }
    if (waitMillis !== undefined) addToSketch(e.wait, bucketOf(waitMillis), 1);
    t.edges.set(key, e);
  };
  const bumpPair = (map: Map<string, { events: number; cases: number }>, seen: Set<string>, key: string) => {
    const p = map.get(key) ?? { events: 0, cases: 0 };
    p.events += 1;
    if (!seen.has(key)) {
      seen.add(key);
      p.cases += 1;
    }
    map.set(key, p);
  };

  for (let i = 0; i < trace.length; i++) {
    const ev = trace[i] as Event;
    const next = trace[i + 1];
    path.push(ev.activity);
    perActivity.set(ev.activity, (perActivity.get(ev.activity) ?? 0) + 1);
    const a = t.activities.get(ev.activity) ?? { events: 0, cases: 0, casesRepeating: 0, timeToNext: new Map() };
    a.events += 1;
    if (next) addToSketch(a.timeToNext, bucketOf(next.time - ev.time), 1);
    t.activities.set(ev.activity, a);

    if (i === 0) bumpEdge(START, ev.activity, undefined);
    if (next) bumpEdge(ev.activity, next.activity, next.time - ev.time);
    else bumpEdge(ev.activity, END, undefined);

    if (ev.resource !== undefined) bumpPair(t.resources, seenResources, pairKey(ev.activity, ev.resource));
    for (const type of new Set(ev.objects.map((o) => o.type))) {
      bumpPair(t.objectTypes, seenObjectTypes, pairKey(ev.activity, type));
    }
  }
  for (const [name, n] of perActivity) {
    const a = t.activities.get(name)!;
    a.cases = 1;
    a.casesRepeating = n > 1 ? 1 : 0;
  }
  t.variants.set(variantKey(path), 1);
  addToSketch(t.caseDuration, bucketOf((trace[trace.length - 1] as Event).time - (trace[0] as Event).time), 1);
  return t;
}
