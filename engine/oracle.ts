import { checkEvent, cmp, compareEvents, type Event } from './event.js';
import { bucketOf } from './sketch.js';
import { addToSketch } from './sketch.js';
import { caseFold, choiceKey, choiceValue, firstValue, edgeKey, emptyTally, END, isRoleAttribute, MAX_CHOICE_ATTRIBUTES, pairKey, profileKey, roleKey, roleValue, START, variantKey, type Tally } from './tally.js';
import { HOUR_MS, parseIsoMillis } from './time.js';
import { startedAt } from './lifecycle.js';

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
    // A wait runs from an event to the next one's recorded start (not before the event), else to the next event.
    const idle = (i: number) => Math.max(0, (startedAt(trace[i + 1]!) ?? trace[i + 1]!.time) - trace[i]!.time);
    for (let i = 0; i + 1 < trace.length; i++) addToSketch(t.activities.get(names[i]!)!.timeToNext, bucketOf(idle(i)), 1);

    // Directly-follows pairs over the trace padded with start and end.
    const padded = [START, ...names, END];
    const seenPairs = new Set<string>();
    for (let i = 0; i + 1 < padded.length; i++) {
      const key = edgeKey(padded[i]!, padded[i + 1]!);
      const e = t.edges.get(key) ?? { events: 0, cases: 0, wait: new Map() };
      e.events += 1;
      if (!seenPairs.has(key)) e.cases += 1;
      seenPairs.add(key);
      if (i > 0 && i + 1 < padded.length - 1) addToSketch(e.wait, bucketOf(idle(i - 1)), 1);
      t.edges.set(key, e);
    }

    countReading(t, trace);
    countProfile(t, trace);
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
 * by then (the last counted value of each followed attribute, see followedNames);
 * activity pairs sharing a resource; the last activity and its hour, and with the first event's hour.
 */
function countReading(t: Tally, trace: readonly Event[]): void {
  const inc = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const fold = caseFold(trace[0]!.caseId);
  const firstAt = new Map<string, number>();
  trace.forEach((e, i) => {
    if (!firstAt.has(e.activity)) firstAt.set(e.activity, i);
  });
  const followed = followedNames(trace);
  for (const [activity, i] of firstAt) {
    const next = i + 1 < trace.length ? trace[i + 1]!.activity : END;
    inc(t.choices, choiceKey(activity, next, '', '', fold));
    for (const n of followed) {
      let value: string | undefined;
      for (let j = 0; j <= i; j++) {
        const v = own(trace[j]!, n);
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
  inc(t.firstEvents, pairKey(last.activity, String(Math.floor(trace[0]!.time / HOUR_MS))));
}

/** The attributes a case follows: the first MAX_CHOICE_ATTRIBUTES names met in case order (in each event, in its attributes' order), whatever their values, '' excluded. */
function followedNames(trace: readonly Event[]): string[] {
  const names: string[] = [];
  for (const e of trace) for (const n of Object.keys(e.attributes)) if (n !== '' && !names.includes(n)) names.push(n);
  return names.slice(0, MAX_CHOICE_ATTRIBUTES);
}

/** An event's own attribute: a name such as 'toString' must not find the prototype's. */
const own = (e: Event, n: string) => (Object.hasOwn(e.attributes, n) ? e.attributes[n] : undefined);

/**
 * The log profile, by definition (see ProfileKind): per event the minute of the UTC day, the time's
 * resolution, the lifecycle transition and the service time from a start_timestamp; per followed
 * attribute, whether it is present, on the first event, takes two counted values, holds a date after
 * its event, its counted value on the first event with the last activity, and its last counted value.
 */
function countProfile(t: Tally, trace: readonly Event[]): void {
  const inc = (kind: Parameters<typeof profileKey>[0], a: string, b = '') => {
    const key = profileKey(kind, a, b);
    t.profile.set(key, (t.profile.get(key) ?? 0) + 1);
  };
  for (const e of trace) {
    const d = new Date(e.time);
    inc('tod', String(d.getUTCHours() * 60 + d.getUTCMinutes()));
    inc('grain', d.getUTCMilliseconds() ? 'ms' : d.getUTCSeconds() ? 's' : d.getUTCMinutes() ? 'min' : 'h');
    const transition = e.attributes['lifecycle:transition'];
    if (transition !== undefined) {
      let label = String(transition).trim().toLowerCase();
      while (label.length > 40) label = label.slice(0, -1);
      if (/[\ud800-\udbff]$/.test(label)) label = label.slice(0, -1);
      if (label) inc('lifecycle', label);
    }
    const start = e.attributes.start_timestamp;
    const startMillis = typeof start === 'number' ? Math.floor(start) : typeof start === 'string' ? parseIsoMillis(start) : Number.NaN;
    if (Number.isFinite(startMillis) && startMillis <= e.time) {
      const sketch = t.serviceTime.get(e.activity) ?? new Map<number, number>();
      addToSketch(sketch, bucketOf(e.time - startMillis), 1);
      t.serviceTime.set(e.activity, sketch);
    }
  }
  const last = trace[trace.length - 1]!.activity;
  for (const n of followedNames(trace)) {
    inc('present', n);
    if (own(trace[0]!, n) !== undefined) inc('atFirst', n);
    const counted = trace.flatMap((e) => {
      const v = own(e, n);
      const c = v === undefined ? undefined : choiceValue(v);
      return c === undefined ? [] : [c];
    });
    if (new Set(counted).size > 1) inc('changed', n);
    const later = (e: Event) => {
      const v = own(e, n);
      return typeof v === 'string' && /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d/.test(v) && parseIsoMillis(v) > e.time;
    };
    if (trace.some(later)) inc('future', n);
    const onFirst = own(trace[0]!, n);
    const onFirstValue = onFirst === undefined ? undefined : firstValue(n, onFirst);
    if (onFirstValue !== undefined) inc('first', pairKey(n, onFirstValue), last);
    if (counted.length) inc('final', pairKey(n, counted[counted.length - 1]!));
  }
}
