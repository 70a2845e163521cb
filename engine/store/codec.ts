import { addToSketch, type Sketch } from '../sketch.js';
import type { KeyBook } from './counter-keys.js';
import { edgeKey, emptyTally, END, pairKey, PROFILE_KINDS, profileKey, splitChoiceKey, splitKey, splitProfileKey, type PairTally, type ProfileKind, type Tally } from '../tally.js';

/**
 * A sum of counter changes (a batch's delta, or a whole state), by the ids of
 * one KeyBook: a typed array plus the ids touched, so adding is an array
 * update and reading back visits only what changed.
 */
export class Counters {
  private values: Float64Array;
  private marked: Uint8Array;
  private readonly touched: number[] = [];

  constructor(readonly book: KeyBook) {
    const size = Math.max(1024, book.size * 2);
    this.values = new Float64Array(size);
    this.marked = new Uint8Array(size);
  }

  add(id: number, by: number): void {
    if (id >= this.values.length) this.grow(id);
    if (this.marked[id] === 0) {
      this.marked[id] = 1;
      this.touched.push(id);
    }
    this.values[id] = this.values[id]! + by;
  }

  /** Back to all zeros, keeping the arrays (a store reuses one sum for every batch). */
  reset(): void {
    for (const id of this.touched) {
      this.values[id] = 0;
      this.marked[id] = 0;
    }
    this.touched.length = 0;
  }

  /** Adds every counter of another sum over the same book. */
  addFrom(other: Counters): void {
    for (const id of other.touched) this.add(id, other.values[id]!);
  }

  private grow(id: number): void {
    const size = Math.max(id + 1, this.values.length * 2);
    const values = new Float64Array(size);
    const marked = new Uint8Array(size);
    values.set(this.values);
    marked.set(this.marked);
    this.values = values;
    this.marked = marked;
  }

  /** The non-zero counters as JSON rows `[kind, k1, k2, bucket, n]`, comma-separated (what counter_delta holds, without building row objects). */
  jsonRows(): { json: string; entries: number } {
    const parts: string[] = [];
    for (const id of this.touched) {
      const n = this.values[id]!;
      if (n !== 0) parts.push(`${this.book.jsonPrefix(id)},${n}]`);
    }
    return { json: parts.join(','), entries: parts.length };
  }

  /** The non-zero counters, as rows. */
  *rows(): Generator<CounterRow> {
    const b = this.book;
    for (const id of this.touched) {
      const n = this.values[id]!;
      if (n !== 0) yield { kind: b.kinds[id]!, k1: b.k1s[id]!, k2: b.k2s[id]!, bucket: b.buckets[id]!, n };
    }
  }
}

/** One summable number of a tally, as the counter table holds it. */
export interface CounterRow {
  kind: string;
  k1: string;
  k2: string;
  bucket: number;
  n: number;
}

const row = (kind: string, k1: string, k2: string, bucket: number, n: number): CounterRow => ({ kind, k1, k2, bucket, n });

function* sketchRows(kind: string, k1: string, k2: string, s: Sketch): Generator<CounterRow> {
  for (const [bucket, n] of s) yield row(kind, k1, k2, bucket, n);
}

function* pairRows(kind: string, m: Map<string, PairTally>): Generator<CounterRow> {
  for (const [key, p] of m) {
    const [a, b] = splitKey(key);
    if (p.events) yield row(`${kind}.events`, a, b, 0, p.events);
    if (p.cases) yield row(`${kind}.cases`, a, b, 0, p.cases);
  }
}

/** The rows of a tally (zero numbers left out). Works for deltas too: rows may be negative. */
export function* tallyRows(t: Tally): Generator<CounterRow> {
  if (t.cases) yield row('cases', '', '', 0, t.cases);
  if (t.events) yield row('events', '', '', 0, t.events);
  for (const [name, a] of t.activities) {
    if (a.cases) yield row('activity.cases', name, '', 0, a.cases);
    if (a.casesRepeating) yield row('activity.repeating', name, '', 0, a.casesRepeating);
  }
  for (const [key, e] of t.edges) {
    const [from, to] = splitKey(key);
    if (e.events) yield row('edge.events', from, to, 0, e.events);
    if (e.cases) yield row('edge.cases', from, to, 0, e.cases);
    yield* sketchRows('edge.wait', from, to, e.wait);
  }
  for (const [key, n] of t.variants) if (n) yield row('variant', key, '', 0, n);
  yield* sketchRows('duration', '', '', t.caseDuration);
  yield* pairRows('resource', t.resources);
  yield* pairRows('object_type', t.objectTypes);
  yield* pairRows('role', t.roleValues);
  for (const [key, n] of t.choices) {
    const c = splitChoiceKey(key);
    if (n) yield row('choice', pairKey(c.at, c.next), pairKey(c.attribute, c.value), c.fold, n);
  }
  for (const [key, n] of t.sameResource) {
    const [a, b] = splitKey(key);
    if (n) yield row('same_resource', a, b, 0, n);
  }
  for (const [key, n] of t.lastEvents) {
    const [activity, hour] = splitKey(key);
    if (n) yield row('last', activity, '', Number(hour), n);
  }
  for (const [key, n] of t.firstEvents) {
    const [activity, hour] = splitKey(key);
    if (n) yield row('began', activity, '', Number(hour), n);
  }
  for (const [key, n] of t.profile) {
    const p = splitProfileKey(key);
    if (n) yield row(`profile.${p.kind}`, p.a, p.b, 0, n);
  }
  for (const [activity, s] of t.serviceTime) yield* sketchRows('profile.service', activity, '', s);
}

/** The profile's counter kinds ('profile.' + its kind) and the kind each stands for. */
const PROFILE_ROWS = new Map<string, ProfileKind>(PROFILE_KINDS.map((k) => [`profile.${k}`, k]));

function addCount(m: Map<string, number>, key: string, n: number): void {
  const next = (m.get(key) ?? 0) + n;
  if (next === 0) m.delete(key);
  else m.set(key, next);
}

/**
 * The inverse of tallyRows: adds rows into a tally (a fresh one by default).
 * Unknown kinds are refused: they mean a newer writer.
 */
export function tallyFromRows(rows: Iterable<CounterRow>, t: Tally = emptyTally()): Tally {
  const touchedActivities = new Set<string>();
  const touchedEdges = new Set<string>();
  const activity = (name: string) => {
    touchedActivities.add(name);
    let a = t.activities.get(name);
    if (!a) t.activities.set(name, (a = { events: 0, cases: 0, casesRepeating: 0, timeToNext: new Map() }));
    return a;
  };
  const edge = (from: string, to: string) => {
    const key = edgeKey(from, to);
    touchedEdges.add(key);
    let e = t.edges.get(key);
    if (!e) t.edges.set(key, (e = { events: 0, cases: 0, wait: new Map() }));
    return e;
  };
  const pair = (m: Map<string, PairTally>, a: string, b: string) => {
    const key = edgeKey(a, b);
    let p = m.get(key);
    if (!p) m.set(key, (p = { events: 0, cases: 0 }));
    return p;
  };
  for (const r of rows) {
    switch (r.kind) {
      case 'cases': t.cases += r.n; break;
      case 'events': t.events += r.n; break;
      case 'activity.cases': activity(r.k1).cases += r.n; break;
      case 'activity.repeating': activity(r.k1).casesRepeating += r.n; break;
      // An activity's events and its time-to-next are sums of edge counters, so they are not stored twice.
      case 'edge.events':
        edge(r.k1, r.k2).events += r.n;
        if (r.k2 !== END) activity(r.k2).events += r.n;
        break;
      case 'edge.cases': edge(r.k1, r.k2).cases += r.n; break;
      case 'edge.wait':
        addToSketch(edge(r.k1, r.k2).wait, r.bucket, r.n);
        addToSketch(activity(r.k1).timeToNext, r.bucket, r.n);
        break;
      case 'variant': t.variants.set(r.k1, (t.variants.get(r.k1) ?? 0) + r.n); break;
      case 'duration': addToSketch(t.caseDuration, r.bucket, r.n); break;
      case 'resource.events': pair(t.resources, r.k1, r.k2).events += r.n; break;
      case 'resource.cases': pair(t.resources, r.k1, r.k2).cases += r.n; break;
      case 'object_type.events': pair(t.objectTypes, r.k1, r.k2).events += r.n; break;
      case 'object_type.cases': pair(t.objectTypes, r.k1, r.k2).cases += r.n; break;
      case 'role.events': pair(t.roleValues, r.k1, r.k2).events += r.n; break;
      case 'role.cases': pair(t.roleValues, r.k1, r.k2).cases += r.n; break;
      case 'choice': addCount(t.choices, `${r.k1}\u0000${r.k2}\u0000${r.bucket}`, r.n); break;
      case 'same_resource': addCount(t.sameResource, pairKey(r.k1, r.k2), r.n); break;
      case 'last': addCount(t.lastEvents, pairKey(r.k1, String(r.bucket)), r.n); break;
      case 'began': addCount(t.firstEvents, pairKey(r.k1, String(r.bucket)), r.n); break;
      case 'profile.service': {
        let s = t.serviceTime.get(r.k1);
        if (!s) t.serviceTime.set(r.k1, (s = new Map()));
        addToSketch(s, r.bucket, r.n);
        if (s.size === 0) t.serviceTime.delete(r.k1);
        break;
      }
      default: {
        const kind = PROFILE_ROWS.get(r.kind);
        if (kind === undefined) throw new Error(`unknown counter kind ${r.kind}`);
        addCount(t.profile, profileKey(kind, r.k1, r.k2), r.n);
      }
    }
  }
  // Adding a delta can bring entries to zero: drop them, so equal sums compare equal.
  for (const name of touchedActivities) {
    const a = t.activities.get(name)!;
    if (!a.events && !a.cases && !a.casesRepeating && !a.timeToNext.size) t.activities.delete(name);
  }
  for (const key of touchedEdges) {
    const e = t.edges.get(key)!;
    if (!e.events && !e.cases && !e.wait.size) t.edges.delete(key);
  }
  for (const [k, n] of t.variants) if (!n) t.variants.delete(k);
  for (const m of [t.resources, t.objectTypes, t.roleValues]) for (const [k, p] of m) if (!p.events && !p.cases) m.delete(k);
  return t;
}
