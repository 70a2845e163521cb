import { cmp } from '../../../engine/index.js';
import type { LogFacts } from './flatten.js';

/** One object type seen against the process executions. */
export interface TypeInExecutions {
  type: string;
  /** Objects of the type that have events. */
  withEvents: number;
  /** Executions holding exactly one object (with events) of the type; as many of its objects are alone of their type. */
  single: number;
  /** Objects (with events) whose first event is early in the activity order and whose last is late: a beginning and an end. */
  beginEnd: number;
}

/**
 * Connected components of objects, as approximate process executions: two
 * objects are in one execution when an event relates to both, or an
 * object-to-object relation links them. Objects of the `apart` types
 * (resource-like ones: a clerk or a truck present all through the log) link
 * nothing, or every execution would melt into one. An execution counts when
 * it holds an event.
 */
export interface Executions {
  count: number;
  /** Activities by their mean relative position inside the executions of two or more events (0 first, 1 last), ties by name. */
  order: string[];
  types: TypeInExecutions[];
}

/** The log's objects with events as numbers, and per event its objects: built once, linked under any set of apart types. */
export interface ObjectIndex {
  facts: LogFacts;
  typeOf: string[];
  byId: Map<string, number>;
  eventObjects: number[][];
  /** Per event its time, NaN when unreadable. */
  times: number[];
}

export function indexObjects(facts: LogFacts, readTime: (raw: string | number) => number): ObjectIndex {
  const byId = new Map<string, number>();
  const typeOf: string[] = [];
  // The event that last listed each object: one object under two qualifiers is one object, at any event size.
  const listedBy: number[] = [];
  const eventObjects = facts.events.map((e, n) => {
    const list: number[] = [];
    for (const o of facts.related.get(e.id) ?? []) {
      let i = byId.get(o.id);
      if (i === undefined) {
        i = typeOf.length;
        byId.set(o.id, i);
        typeOf.push(o.type);
      }
      if (listedBy[i] !== n) list.push(i);
      listedBy[i] = n;
    }
    return list;
  });
  return { facts, typeOf, byId, eventObjects, times: facts.events.map((e) => readTime(e.time)) };
}

/** Per object the root of its execution: a union-find over events and o2o relations (near-linear). */
export function link(ix: ObjectIndex, apart: ReadonlySet<string>): Int32Array {
  const parent = Int32Array.from(ix.typeOf, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!; // path halving
      x = parent[x]!;
    }
    return x;
  };
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[ra] = rb;
  };
  const links = (i: number) => !apart.has(ix.typeOf[i]!);
  for (const list of ix.eventObjects) {
    const linking = list.filter(links);
    for (let k = 1; k < linking.length; k++) union(linking[0]!, linking[k]!);
  }
  for (const r of ix.facts.o2o) {
    const a = ix.byId.get(r.fromId);
    const b = ix.byId.get(r.toId);
    // An object without events is no part of any execution's flow.
    if (a !== undefined && b !== undefined && links(a) && links(b)) union(a, b);
  }
  for (let i = 0; i < parent.length; i++) parent[i] = find(i);
  return parent;
}

/** The executions under `apart`, the activity order inside them, and each type's place in them. */
export function executionsOf(ix: ObjectIndex, apart: ReadonlySet<string>): Executions {
  const root = link(ix, apart);
  const { facts, typeOf } = ix;
  // Each event belongs to the execution of its linking objects; an event of resource-like objects only, to none.
  const byExecution = new Map<number, { time: number; activity: string }[]>();
  facts.events.forEach((e, n) => {
    const first = ix.eventObjects[n]!.find((i) => !apart.has(typeOf[i]!));
    const time = ix.times[n]!;
    if (first === undefined || !Number.isFinite(time)) return;
    const list = byExecution.get(root[first]!);
    if (list) list.push({ time, activity: e.type });
    else byExecution.set(root[first]!, [{ time, activity: e.type }]);
  });

  const positions = new Map<string, { sum: number; n: number }>();
  for (const list of byExecution.values()) {
    if (list.length < 2) continue;
    list.sort((a, b) => a.time - b.time); // stable: ties keep the log's order
    list.forEach(({ activity }, j) => {
      const p = positions.get(activity) ?? { sum: 0, n: 0 };
      p.sum += j / (list.length - 1);
      p.n++;
      positions.set(activity, p);
    });
  }
  const mean = (a: string) => positions.get(a)!.sum / positions.get(a)!.n;
  // Activities outside every execution (done on resource-like objects only) have no place in it.
  const order = [...positions.keys()].sort((a, b) => mean(a) - mean(b) || cmp(a, b));
  // Thirds of the order by rank, so that a cluster of late steps still leaves the early ones early.
  const third = Math.max(1, Math.round(order.length / 3));
  const early = new Set(order.slice(0, third));
  const late = new Set(order.slice(-third));

  // Per object its first and last activity in time (ties: the log's order).
  const first: (string | undefined)[] = new Array(typeOf.length);
  const last: (string | undefined)[] = new Array(typeOf.length);
  const firstTime = new Float64Array(typeOf.length).fill(Infinity);
  const lastTime = new Float64Array(typeOf.length).fill(-Infinity);
  facts.events.forEach((e, n) => {
    const time = ix.times[n]!;
    if (!Number.isFinite(time)) return;
    for (const i of ix.eventObjects[n]!) {
      if (time < firstTime[i]!) (firstTime[i] = time), (first[i] = e.type);
      if (time >= lastTime[i]!) (lastTime[i] = time), (last[i] = e.type);
    }
  });
  const stats = new Map<string, TypeInExecutions>();
  const perExecution = new Map<string, Map<number, number>>();
  for (let i = 0; i < typeOf.length; i++) {
    if (first[i] === undefined) continue;
    const type = typeOf[i]!;
    const s = stats.get(type) ?? { type, withEvents: 0, single: 0, beginEnd: 0 };
    s.withEvents++;
    if (early.has(first[i]!) && late.has(last[i]!)) s.beginEnd++;
    stats.set(type, s);
    if (apart.has(type)) continue;
    const counts = perExecution.get(type) ?? new Map<number, number>();
    counts.set(root[i]!, (counts.get(root[i]!) ?? 0) + 1);
    perExecution.set(type, counts);
  }
  for (const [type, counts] of perExecution) {
    let single = 0;
    for (const [r, n] of counts) if (n === 1 && byExecution.has(r)) single++;
    stats.get(type)!.single = single;
  }
  return { count: byExecution.size, order, types: [...stats.values()].sort((a, b) => cmp(a.type, b.type)) };
}

/**
 * The share of the executions holding one object of `type` that fall apart
 * without it into two or more pieces each holding objects of two or more
 * types: such an object carries several executions (a vessel loaded with
 * the containers of many transport documents), it is not one. An order
 * whose items hang only on it is not a carrier: without it the pieces are
 * single items, of one type each.
 */
export function carrierShare(ix: ObjectIndex, apart: ReadonlySet<string>, type: string): number {
  const whole = link(ix, apart);
  const parted = link(ix, new Set([...apart, type]));
  const ofType = new Map<number, number>();
  for (let i = 0; i < ix.typeOf.length; i++) if (ix.typeOf[i] === type) ofType.set(whole[i]!, (ofType.get(whole[i]!) ?? 0) + 1);
  // Per execution holding one object of the type: its pieces without it, and the types in each.
  const pieces = new Map<number, Map<number, Set<string>>>();
  for (let i = 0; i < ix.typeOf.length; i++) {
    const t = ix.typeOf[i]!;
    if (t === type || apart.has(t) || ofType.get(whole[i]!) !== 1) continue;
    const inExecution = pieces.get(whole[i]!) ?? new Map<number, Set<string>>();
    const types = inExecution.get(parted[i]!) ?? new Set<string>();
    types.add(t);
    inExecution.set(parted[i]!, types);
    pieces.set(whole[i]!, inExecution);
  }
  let singles = 0;
  for (const n of ofType.values()) if (n === 1) singles++;
  let carried = 0;
  for (const inExecution of pieces.values()) if ([...inExecution.values()].filter((types) => types.size >= 2).length >= 2) carried++;
  return singles ? carried / singles : 0;
}
