import { cmp } from '../../../engine/index.js';
import { OcelError } from './errors.js';
import type { LogFacts } from './flatten.js';

export interface CaseNotion {
  type: string;
  reason: string;
}

/** How the objects of one type spread over the events: what tells a case type from a resource type. */
export interface TypeShape {
  type: string;
  objects: number;
  /** Distinct events related to at least one object of the type. */
  events: number;
  /** Objects with two or more events: ones with a beginning and an end. */
  spanning: number;
  /** Median number of distinct events per object, objects without events included. */
  median: number;
  kind: 'case-like' | 'resource-like' | 'single-event';
}

/**
 * Per object type, its objects' events and the kind that follows. With N
 * events in the log, √N divides "few objects with long histories" from "many
 * objects with short ones": a type with fewer than √N objects whose median
 * object has more than √N events is resource-like (employees, trucks: a
 * handful of objects present all through the log). A type whose median object
 * has fewer than 2 events is single-event (a case of one event has no flow).
 * Every other type is case-like: many objects, each a short history with a
 * beginning and an end.
 */
export function typeShapes(facts: LogFacts): TypeShape[] {
  const perObject = new Map<string, { type: string; n: number }>();
  for (const e of facts.events) {
    const seen = new Set<string>();
    for (const o of facts.related.get(e.id) ?? []) {
      if (seen.has(o.id)) continue; // one object under two qualifiers is one event
      seen.add(o.id);
      const entry = perObject.get(o.id);
      if (entry) entry.n++;
      else perObject.set(o.id, { type: o.type, n: 1 });
    }
  }
  const counts = new Map<string, number[]>();
  for (const { type, n } of perObject.values()) {
    const list = counts.get(type);
    if (list) list.push(n);
    else counts.set(type, [n]);
  }
  const root = Math.sqrt(facts.events.length);
  return facts.objectTypes.map((t) => {
    const withEvents = counts.get(t.type) ?? [];
    const all = [...withEvents, ...new Array<number>(t.count - withEvents.length).fill(0)].sort((a, b) => a - b);
    const median = medianOf(all);
    const kind = median < 2 ? 'single-event' : t.count < root && median > root ? 'resource-like' : 'case-like';
    return { type: t.type, objects: t.count, events: t.events, spanning: withEvents.filter((n) => n >= 2).length, median, kind };
  });
}

function medianOf(sorted: number[]): number {
  const n = sorted.length;
  if (n === 0) return 0;
  return n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
}

/**
 * The case notion: the requested type, else by default the case-like type
 * (see typeShapes) relating to the most events, so the flattened log keeps the
 * most of the process; ties go to more objects with a beginning and an end,
 * then to more objects, then to the name. Coverage, not the number of cases, ranks the case-like
 * types: a type of many two-event objects (handling units, elements) gives
 * many cases but a thin slice of the process. When no type is case-like (a
 * log of one long case, say), the type relating to the most events is taken.
 * The reason states the rule with the numbers, and why the other types were
 * set aside.
 */
export function chooseCaseNotion(facts: LogFacts, requested: string | undefined): CaseNotion {
  const total = facts.events.length;
  const share = (events: number) => `${events} of ${total} events (${total ? Math.round((100 * events) / total) : 0}%)`;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (requested !== undefined) {
    const t = facts.objectTypes.find((x) => x.type === requested);
    if (!t) {
      const known = facts.objectTypes.map((x) => `"${x.type}"`).join(', ') || 'none';
      throw new OcelError('ocel_unknown_case_notion', `case notion "${requested}" is not an object type of this log (types: ${known})`);
    }
    return { type: t.type, reason: `chosen by option; its ${plural(t.count, 'object')} relate${t.count === 1 ? 's' : ''} to ${share(t.events)}` };
  }
  const shapes = typeShapes(facts);
  if (shapes.length === 0) throw new OcelError('ocel_no_objects', 'the log has no objects, so there is no object type to take cases from');
  const caseLike = shapes.filter((s) => s.kind === 'case-like');
  const pool = caseLike.length ? caseLike : shapes;
  const ranked = [...pool].sort((a, b) => b.events - a.events || b.spanning - a.spanning || b.objects - a.objects || cmp(a.type, b.type));
  const best = ranked[0]!;
  const next = ranked[1];
  const tie = next && next.events === best.events ? (next.spanning !== best.spanning ? ' (tie broken by objects with 2+ events)' : next.objects !== best.objects ? ' (tie broken by object count)' : ' (tie broken by name)') : '';
  const root = Math.sqrt(total).toFixed(1);
  const rule = `case-like = a median of 2 or more events per object (a beginning and an end) and not resource-like (fewer than √${total} ≈ ${root} objects with a median above ${root} events)`;
  const numbers = `${share(best.events)} over ${plural(best.objects, 'object')}, ${best.spanning} with 2+ events, median ${best.median} events per object`;
  const head = caseLike.length
    ? `default: "${best.type}", the case-like type relating to the most events: ${numbers}${tie}; ${rule}`
    : `default: no type is case-like (${rule}), so "${best.type}", the type relating to the most events: ${numbers}${tie}`;
  const nextText = next ? `; next${caseLike.length ? ' case-like' : ''} "${next.type}" with ${next.events} events` : '';
  const aside = shapes
    .filter((s) => s.kind !== 'case-like' && s.type !== best.type)
    .map((s) => (s.kind === 'resource-like' ? `"${s.type}" resource-like (${plural(s.objects, 'object')}, median ${s.median} events)` : `"${s.type}" single-event (median ${s.median})`));
  return { type: best.type, reason: `${head}${nextText}${aside.length ? `; set aside: ${aside.join(', ')}` : ''}` };
}
