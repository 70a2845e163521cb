import { addToSketch, type Sketch } from './sketch.js';

/**
 * The summable part of a project's state: every number here is a sum of
 * per-case contributions. A batch's change is the tally of its touched cases
 * after, minus their tally before; the stored state is the sum of all cases.
 *
 * Start and end are the empty string: an activity name is never empty, the
 * start only appears as an edge's `from` and the end only as its `to`.
 */
export const START = '';
export const END = '';

export interface ActivityTally {
  events: number;
  cases: number;
  casesRepeating: number;
  /** Time from this activity to the next event of the same case. */
  timeToNext: Sketch;
}

export interface EdgeTally {
  /** Directly-follows occurrences. */
  events: number;
  /** Cases with at least one occurrence. */
  cases: number;
  /** Waiting time between the two events (real activities only). */
  wait: Sketch;
}

export interface PairTally {
  events: number;
  cases: number;
}

export interface Tally {
  cases: number;
  events: number;
  activities: Map<string, ActivityTally>;
  /** Keyed by edgeKey(from, to). */
  edges: Map<string, EdgeTally>;
  /** Keyed by variantKey(path). */
  variants: Map<string, number>;
  caseDuration: Sketch;
  /** Keyed by pairKey(activity, resource). */
  resources: Map<string, PairTally>;
  /** Keyed by pairKey(activity, object type). */
  objectTypes: Map<string, PairTally>;
}

const SEP = '\u0000';
export const edgeKey = (from: string, to: string): string => from + SEP + to;
export const pairKey = (a: string, b: string): string => a + SEP + b;
export function splitKey(key: string): [string, string] {
  const i = key.indexOf(SEP);
  return [key.slice(0, i), key.slice(i + 1)];
}
export const variantKey = (path: readonly string[]): string => JSON.stringify(path);
export const variantPath = (key: string): string[] => JSON.parse(key) as string[];

export function emptyTally(): Tally {
  return {
    cases: 0,
    events: 0,
    activities: new Map(),
    edges: new Map(),
    variants: new Map(),
    caseDuration: new Map(),
    resources: new Map(),
    objectTypes: new Map(),
  };
}

function addSketch(into: Sketch, from: Sketch, sign: number): void {
  for (const [bucket, count] of from) addToSketch(into, bucket, sign * count);
}

function addPairs(into: Map<string, PairTally>, from: Map<string, PairTally>, sign: number): void {
  for (const [key, p] of from) {
    const t = into.get(key) ?? { events: 0, cases: 0 };
    t.events += sign * p.events;
    t.cases += sign * p.cases;
    if (t.events === 0 && t.cases === 0) into.delete(key);
    else into.set(key, t);
  }
}

/** into += sign * from. Entries that fall to zero are removed, so equal sums compare equal. */
export function addTally(into: Tally, from: Tally, sign: 1 | -1 = 1): Tally {
  into.cases += sign * from.cases;
  into.events += sign * from.events;
  for (const [name, a] of from.activities) {
    const t = into.activities.get(name) ?? { events: 0, cases: 0, casesRepeating: 0, timeToNext: new Map() };
    t.events += sign * a.events;
    t.cases += sign * a.cases;
    t.casesRepeating += sign * a.casesRepeating;
    addSketch(t.timeToNext, a.timeToNext, sign);
    if (t.events === 0 && t.cases === 0 && t.casesRepeating === 0 && t.timeToNext.size === 0) into.activities.delete(name);
    else into.activities.set(name, t);
  }
  for (const [key, e] of from.edges) {
    const t = into.edges.get(key) ?? { events: 0, cases: 0, wait: new Map() };
    t.events += sign * e.events;
    t.cases += sign * e.cases;
    addSketch(t.wait, e.wait, sign);
    if (t.events === 0 && t.cases === 0 && t.wait.size === 0) into.edges.delete(key);
    else into.edges.set(key, t);
  }
  for (const [key, n] of from.variants) {
    const next = (into.variants.get(key) ?? 0) + sign * n;
    if (next === 0) into.variants.delete(key);
    else into.variants.set(key, next);
  }
  addSketch(into.caseDuration, from.caseDuration, sign);
  addPairs(into.resources, from.resources, sign);
  addPairs(into.objectTypes, from.objectTypes, sign);
  return into;
}

/** A plain, key-sorted form for comparing tallies in tests and printing them. */
export function tallyToJson(t: Tally): unknown {
  const sk = (s: Sketch) => [...s.entries()].sort((a, b) => a[0] - b[0]);
  const sorted = <V, R>(m: Map<string, V>, f: (v: V) => R) =>
    [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k, v]) => [k, f(v)]);
  return {
    cases: t.cases,
    events: t.events,
    activities: sorted(t.activities, (a) => ({ ...a, timeToNext: sk(a.timeToNext) })),
    edges: sorted(t.edges, (e) => ({ ...e, wait: sk(e.wait) })),
    variants: sorted(t.variants, (n) => n),
    caseDuration: sk(t.caseDuration),
    resources: sorted(t.resources, (p) => p),
    objectTypes: sorted(t.objectTypes, (p) => p),
  };
}
