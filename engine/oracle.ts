import { checkEvent, cmp, compareEvents, type Event } from './event.js';
import { bucketOf } from './sketch.js';
import { addToSketch } from './sketch.js';
import { caseFold, choiceKey, choiceValue, edgeKey, emptyTally, END, isRoleAttribute, MAX_CHOICE_ATTRIBUTES, pairKey, roleKey, roleValue, START, variantKey, type Tally } from './tally.js';
import { HOUR_MS } from './time.js';

/**
 * The from-scratch recomputation the incremental store is tested against.
 * It is written on purpose without contribution() or the store: whole-log
 * passes over a de-duplicated, sorted log, the way a batch miner counts.
 */
export function recompute(records: Iterable<unknown>): Tally {
  // Smallest digest wins per key, whatever the arrival order.
  const byKey = new Map<string, Event>();
  for (const r of records) {
    const c = checkEvent(r);
    if (!c.ok) continue;
    const seen = byKey.get(c.event.key);
    if (!seen || c.event.digest < seen.digest) byKey.set(c.event.key, c.event);
  }
  const cases = new Map<string, Event[]>();
  for (const e of byKey.values()) {
    const list = cases.get(e.caseId);
    if (list) list.push(e);
    else cases.set(e.caseId, [e]);
  }
  return recomputeTraces([...cases.keys()].sort(cmp).map((id) => cases.get(id)!.sort(compareEvents)));
}

/**
 * The tally of traces taken in the order given (each a case's events, never empty): what
 * `recompute` counts once it has sorted them, and what a retention test counts with the events a
 * pruned case was sent late moved after its pruned ones.
 */
export function recomputeTraces(traces: Iterable<readonly Event[]>): Tally {
  const t = emptyTally();
  for (const trace of traces) {
    t.cases += 1;
    t.events += trace.length;
    const names = trace.map((e) => e.activity);
    t.variants.set(variantKey(names), (t.variants.get(variantKey(names)) ?? 0) + 1);
    addToSketch(t.caseDuration, bucketOf(trace[trace.length - 1]!.time - trace[0]!.time), 1);

    // Activities: counts over the trace, then per-case flags over distinct names.
    const counts = new Map<string, number>();
    names.forEach((n) => counts.set(n, (counts.get(n) ?? 0) + 1));
    for (const [n, k] of counts) {
      const a = t.activities.get(n) ?? { events: 0, cases: 0, casesRepeating: 0, timeToNext: new Map() };
      a.events += k;
      a.cases += 1;
      if (k > 1) a.casesRepeating += 1;
      t.activities.set(n, a);
    }
    for (let i = 0; i + 1 < trace.length; i++) addToSketch(t.activities.get(names[i]!)!.timeToNext, bucketOf(trace[i + 1]!.time - trace[i]!.time), 1);

    // Directly-follows pairs over the trace padded with start and end.
    const padded = [START, ...names, END];
    const seenPairs = new Set<string>();
    for (let i = 0; i + 1 < padded.length; i++) {
      const key = edgeKey(padded[i]!, padded[i + 1]!);
      const e = t.edges.get(key) ?? { events: 0, cases: 0, wait: new Map() };
      e.events += 1;
      if (!seenPairs.has(key)) e.cases += 1;
      seenPairs.add(key);
      if (i > 0 && i + 1 < padded.length - 1) addToSketch(e.wait, bucketOf(trace[i]!.time - trace[i - 1]!.time), 1);
      t.edges.set(key, e);
    }

    countReading(t, trace);
    countPairs(t.resources, trace.flatMap((e) => (e.resource === undefined ? [] : [pairKey(e.activity, e.resource)])));
    countPairs(t.objectTypes, trace.flatMap((e) => [...new Set(e.objects.map((o) => o.type))].map((type) => pairKey(e.activity, type))));
    countPairs(
      t.roleValues,
      trace.flatMap((e) =>
        Object.entries(e.attributes).flatMap(([name, v]) => {
          const value = isRoleAttribute(name) ? roleValue(v) : undefined;
          return value === undefined ? [] : [roleKey(e.activity, name, value)];
        }),
      ),
    );
  }
  return t;
}

function countPairs(into: Map<string, { events: number; cases: number }>, keys: string[]): void {
  for (const k of keys) {
    const p = into.get(k) ?? { events: 0, cases: 0 };
    p.events += 1;
    into.set(k, p);
  }
  for (const k of new Set(keys)) into.get(k)!.cases += 1;
}

/**
 * The interpreter's counters, by definition: for each activity's first
 * position i, the step after it (END when the case stops there), with every attribute known
 * by then (the last value of the first MAX_CHOICE_ATTRIBUTES names met);
 * activity pairs sharing a resource; the last activity and its hour.
 */
function countReading(t: Tally, trace: readonly Event[]): void {
  const inc = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const fold = caseFold(trace[0]!.caseId);
  const firstAt = new Map<string, number>();
  trace.forEach((e, i) => {
    if (!firstAt.has(e.activity)) firstAt.set(e.activity, i);
  });
  const names: string[] = [];
  for (const e of trace) for (const n of Object.keys(e.attributes).sort(cmp)) if (n !== '' && choiceValue(e.attributes[n]!) !== undefined && !names.includes(n)) names.push(n);
  const followed = names.slice(0, MAX_CHOICE_ATTRIBUTES);
  for (const [activity, i] of firstAt) {
    const next = i + 1 < trace.length ? trace[i + 1]!.activity : END;
    inc(t.choices, choiceKey(activity, next, '', '', fold));
    for (const n of followed) {
      let value: string | undefined;
      for (let j = 0; j <= i; j++) {
        const v = trace[j]!.attributes[n];
        if (v !== undefined && choiceValue(v) !== undefined) value = choiceValue(v);
      }
      if (value !== undefined) inc(t.choices, choiceKey(activity, next, n, value, fold));
    }
  }
  const pairs = new Set<string>();
  for (const x of trace) for (const y of trace) {
    if (x.resource !== undefined && x.resource === y.resource && x.activity < y.activity) pairs.add(pairKey(x.activity, y.activity));
  }
  for (const p of pairs) inc(t.sameResource, p);
  const last = trace[trace.length - 1]!;
  inc(t.lastEvents, pairKey(last.activity, String(Math.floor(last.time / HOUR_MS))));
}
