import { cmp } from '../event.js';
import { quantile, sketchCount, type Sketch } from '../sketch.js';
import { END, splitKey, START, variantPath, type Tally } from '../tally.js';
import { mined } from '../document/evidence.js';
import type { Evidence, Strength } from '../document/types.js';

/**
 * What every part of the reading looks at, derived once from the counted
 * state: the variant multiset with first positions, out- and in-edges, and
 * pairwise first-occurrence order. Pure data; nothing here reads events.
 */
export interface VariantFacts {
  /** The activity labels of the variant (built when first read: most variants never need it). */
  readonly path: string[];
  /** Its last activity (undefined for an empty path). */
  end: string | undefined;
  count: number;
  /** The path as indices into Facts.activities (-1: a label the tally's activities lack). */
  ids: Int32Array;
  /** The distinct activities of the path (indices into Facts.activities, -1 left out) in order of first occurrence. */
  distinct: Int32Array;
}

export interface EdgeFacts {
  from: string;
  to: string;
  cases: number;
  events: number;
  wait: Sketch;
}

export interface Facts {
  tally: Tally;
  cases: number;
  /** Sorted activity labels. */
  activities: string[];
  /** Activity label -> index in activities. */
  idOf: Map<string, number>;
  activityCases: Map<string, number>;
  /** By count, descending, then path. */
  variants: VariantFacts[];
  out: Map<string, EdgeFacts[]>;
  into: Map<string, EdgeFacts[]>;
  /** Every hand-off wait of the process, pooled over the edges (one sketch). */
  handoffs: Sketch;
  toHours(millis: number): number;
  /** Cases containing both a and b, and those where a's first occurrence comes before b's. */
  order(a: string, b: string): { both: number; aFirst: number };
}

/**
 * The variants already parsed to integer traces (mining's variantLog): labels[id] is an
 * activity label, keys[v] the tally key of traces[v]. Passing it saves parsing every key again.
 */
export interface ParsedVariants {
  traces: readonly (readonly number[])[];
  counts: readonly number[];
  labels: readonly string[];
  keys: readonly string[];
}

/** Up to this many activities, an order question builds the asked activity's whole row (later questions on it are lookups). */
const ROWS_UP_TO = 200;

export function factsOf(tally: Tally, toHours: (millis: number) => number, parsed?: ParsedVariants): Facts {
  const activities = [...tally.activities.keys()].sort(cmp);
  const id = new Map<string, number>();
  for (const a of activities) id.set(a, id.size);
  const n = activities.length;
  const listed: { v: VariantFacts; key: string }[] = [];
  // Per variant: its path, the path as activity ids, and its distinct ids in first-occurrence order.
  const stamp = new Int32Array(n).fill(-1);
  // Per-variant arrays are views into shared buffers: typed arrays of more than a few dozen
  // bytes each get a buffer of their own outside the heap, costly to make and to collect.
  let pool = new Int32Array(0);
  let used = 0;
  const take = (len: number): Int32Array => {
    if (used + len > pool.length) {
      pool = new Int32Array(Math.max(1 << 16, 2 * len));
      used = 0;
    }
    used += len;
    return pool.subarray(used - len, used);
  };
  const distinctOf = (ids: Int32Array, v: number) => {
    let m = 0;
    for (let i = 0; i < ids.length; i++) {
      const k = ids[i]!;
      if (k >= 0 && stamp[k] !== v) {
        stamp[k] = v;
        m++;
      }
    }
    const out = take(m);
    m = 0;
    for (let i = 0; i < ids.length; i++) {
      const k = ids[i]!;
      if (k >= 0 && stamp[k] === v) {
        stamp[k] = -2 - v;
        out[m++] = k;
      }
    }
    return out;
  };
  if (parsed) {
    const actOf = Int32Array.from(parsed.labels, (l) => id.get(l) ?? -1);
    parsed.traces.forEach((t, v) => {
      const ids = take(t.length);
      for (let i = 0; i < t.length; i++) ids[i] = actOf[t[i]!]!;
      const end = t.length ? parsed.labels[t[t.length - 1]!] : undefined;
      listed.push({ v: new ParsedVariant(t, parsed.labels, parsed.counts[v]!, ids, distinctOf(ids, v), end), key: parsed.keys[v]! });
    });
  } else {
    let v = 0;
    for (const [key, count] of tally.variants) {
      const path = variantPath(key);
      const ids = Int32Array.from(path, (a) => id.get(a) ?? -1);
      listed.push({ v: { path, end: path[path.length - 1], count, ids, distinct: distinctOf(ids, v++) }, key });
    }
  }
  // By count descending, then key. Keys mostly come in ascending order already (the store keeps
  // them sorted), and comparing long keys that share long prefixes is costly: the ties are broken
  // by the rank of the key, checked once along the list, and sorted only when out of order.
  const rank = new Int32Array(listed.length);
  let ascending = true;
  for (let i = 1; i < listed.length && ascending; i++) if (cmp(listed[i - 1]!.key, listed[i]!.key) >= 0) ascending = false;
  if (ascending) rank.forEach((_, i) => (rank[i] = i));
  else
    listed
      .map((x, i) => ({ key: x.key, i }))
      .sort((x, y) => cmp(x.key, y.key))
      .forEach((x, r) => (rank[x.i] = r));
  const order = listed.map((_, i) => i).sort((x, y) => listed[y]!.v.count - listed[x]!.v.count || rank[x]! - rank[y]!);
  const variants: VariantFacts[] = order.map((i) => listed[i]!.v);
  const out = new Map<string, EdgeFacts[]>();
  const into = new Map<string, EdgeFacts[]>();
  const handoffs: Sketch = new Map();
  for (const [key, e] of [...tally.edges.entries()].sort((x, y) => cmp(x[0], y[0]))) {
    const [from, to] = splitKey(key);
    const f: EdgeFacts = { from, to, cases: e.cases, events: e.events, wait: e.wait };
    push(out, from, f);
    push(into, to, f);
    // Edges from start and to end carry no wait, so every wait here is a hand-off between two steps.
    for (const [b, c] of e.wait) handoffs.set(b, (handoffs.get(b) ?? 0) + c);
  }
  const activityCases = new Map([...tally.activities.entries()].map(([a, t]) => [a, t.cases]));
  // Pairwise first-occurrence order, one row per asked activity, filled over the variants holding
  // it: each variant keeps its distinct activities as integer ids in order of first occurrence, so
  // "a's first occurrence precedes b's" is "a's rank is lower", with no per-pair map lookups.
  // Variants with the same first-occurrence order count alike, so they are merged first (far fewer).
  const groups = new Map<number, number[]>();
  const ranked: { ids: Int32Array; count: number }[] = [];
  for (const v of variants) {
    const d = v.distinct;
    let h = 0x811c9dc5;
    for (let i = 0; i < d.length; i++) h = Math.imul(h ^ d[i]!, 0x01000193);
    h = Math.imul(h ^ d.length, 0x01000193);
    const bucket = groups.get(h);
    const gi = bucket?.find((i) => sameIds(ranked[i]!.ids, d));
    if (gi !== undefined) ranked[gi]!.count += v.count;
    else {
      if (bucket) bucket.push(ranked.length);
      else groups.set(h, [ranked.length]);
      ranked.push({ ids: d, count: v.count });
    }
  }
  const holding: number[][] = Array.from({ length: n }, () => []);
  ranked.forEach((g, gi) => {
    for (const k of g.ids) holding[k]!.push(gi);
  });
  const rows = new Map<number, { both: Float64Array; aFirst: Float64Array }>();
  const rowOf = (a: number) => {
    let r = rows.get(a);
    if (r) return r;
    r = { both: new Float64Array(n), aFirst: new Float64Array(n) };
    for (const gi of holding[a]!) {
      const { ids, count: c } = ranked[gi]!;
      let after = false;
      for (let i = 0; i < ids.length; i++) {
        const b = ids[i]!;
        r.both[b]! += c;
        if (b === a) after = true;
        else if (after) r.aFirst[b]! += c;
      }
    }
    rows.set(a, r);
    return r;
  };
  // With many activities a full row per asked activity is activities squared in time and memory;
  // a single pair is counted over the groups holding the rarer activity instead, and remembered.
  const pairs = new Map<number, { both: number; aFirst: number }>();
  const pairOf = (ia: number, ib: number) => {
    const key = ia * n + ib;
    let p = pairs.get(key);
    if (p) return p;
    p = { both: 0, aFirst: 0 };
    const via = holding[ia]!.length <= holding[ib]!.length ? holding[ia]! : holding[ib]!;
    for (const gi of via) {
      const { ids, count: c } = ranked[gi]!;
      let pa = -1;
      let pb = -1;
      for (let i = 0; i < ids.length && (pa < 0 || pb < 0); i++) {
        if (ids[i] === ia) pa = i;
        if (ids[i] === ib) pb = i;
      }
      if (pa < 0 || pb < 0) continue;
      p.both += c;
      if (pa < pb) p.aFirst += c;
    }
    pairs.set(key, p);
    return p;
  };
  return {
    tally,
    cases: tally.cases,
    activities,
    idOf: id,
    activityCases,
    variants,
    out,
    into,
    handoffs,
    toHours,
    order(a, b) {
      const ia = id.get(a);
      const ib = id.get(b);
      if (ia === undefined || ib === undefined) return { both: 0, aFirst: 0 };
      // Either row answers: both is symmetric, and for a != b exactly one of the two comes first.
      const ra = rows.get(ia);
      if (ra) return { both: ra.both[ib]!, aFirst: ra.aFirst[ib]! };
      const rb = rows.get(ib);
      if (rb && ia !== ib) return { both: rb.both[ia]!, aFirst: rb.both[ia]! - rb.aFirst[ia]! };
      if (n > ROWS_UP_TO && ia !== ib) return pairOf(ia, ib);
      const r = rowOf(ia);
      return { both: r.both[ib]!, aFirst: r.aFirst[ib]! };
    },
  };
}

/** A variant from mining's parsed log: its label path is built only when asked for. */
class ParsedVariant implements VariantFacts {
  private labelled: string[] | undefined;
  constructor(
    private readonly trace: readonly number[],
    private readonly labels: readonly string[],
    readonly count: number,
    readonly ids: Int32Array,
    readonly distinct: Int32Array,
    readonly end: string | undefined,
  ) {}
  get path(): string[] {
    return (this.labelled ??= Array.from(this.trace, (x) => this.labels[x]!));
  }
}

function sameIds(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/**
 * Concurrent work: a and b occur together in at least 80% of the cases of
 * the rarer one, and each comes first in at least 1% (and 2) of the cases with both.
 */
export function parallel(f: Facts, a: string, b: string): boolean {
  if (a === b) return false;
  const o = f.order(a, b);
  const rarer = Math.min(f.activityCases.get(a) ?? 0, f.activityCases.get(b) ?? 0);
  const minority = Math.min(o.aFirst, o.both - o.aFirst);
  return o.both > 0 && o.both >= 0.8 * rarer && minority >= 2 && minority >= 0.01 * o.both;
}

/** Real out-edges of an activity (END left out), by cases descending then name. */
export function successors(f: Facts, a: string): EdgeFacts[] {
  return (f.out.get(a) ?? []).filter((e) => e.to !== END).sort((x, y) => y.cases - x.cases || cmp(x.to, y.to));
}

/** Real in-edges of an activity (START left out), by cases descending then name. */
export function predecessors(f: Facts, a: string): EdgeFacts[] {
  return (f.into.get(a) ?? []).filter((e) => e.from !== START).sort((x, y) => y.cases - x.cases || cmp(x.from, y.from));
}

/** Share of a sketch's values at or below a threshold (bucket-exact: values are bucketed). */
export function shareAtMost(s: Sketch, thresholdValue: number, bucketValueOf: (b: number) => number): number {
  const n = sketchCount(s);
  if (!n) return 0;
  let k = 0;
  for (const [b, c] of s) if (bucketValueOf(b) <= thresholdValue) k += c;
  return k / n;
}

export { quantile };

/** The strength of a mined claim holding in `share` of `ofCases`, as the document's evidence_levels define it. */
const STRENGTHS: readonly Strength[] = ['counted', 'strong', 'moderate', 'weak', 'hypothesis'];
/** A strength capped at weak: claims resting on what the data cannot tell apart (file order of tied events). */
export function atMostWeak(s: Strength): Strength {
  return STRENGTHS.indexOf(s) < STRENGTHS.indexOf('weak') ? 'weak' : s;
}

export function strengthOf(ofCases: number, share: number): Strength {
  return mined(Math.round(share * ofCases), ofCases, '').strength;
}

export function evidence(cases: number, ofCases: number, share: number, strength: Strength, method: string): Evidence {
  return { cases: Math.max(0, Math.round(cases)), of_cases: Math.max(0, Math.round(ofCases)), share: clamp01(share), strength, method };
}

export const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
export const ratio = (a: number, b: number): number => (b > 0 ? clamp01(a / b) : 0);
/** Rounds a share for printing in text (the numeric fields keep full precision). */
export const pct = (x: number): string => `${(Math.round(x * 1000) / 10).toString()}%`;
/** Hours for text: two significant digits at most, never scientific. */
export function hoursText(h: number): string {
  if (h === 0) return '0';
  const r = Number(h.toPrecision(2));
  return r >= 100 ? String(Math.round(r)) : String(r);
}
export const q = (label: string): string => `'${label}'`;

/** A stable id fragment from a label. */
export function slug(text: string): string {
  const s = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s || 'x';
}

/** Ids made unique in order of appearance (two labels can share a slug). */
export function uniqueIds<T extends { id: string }>(items: T[]): T[] {
  const seen = new Map<string, number>();
  for (const it of items) {
    const n = seen.get(it.id) ?? 0;
    seen.set(it.id, n + 1);
    if (n > 0) it.id = `${it.id}-${n + 1}`;
  }
  return items;
}
