import { cmp } from '../../../engine/index.js';
import { OcelError } from './errors.js';
import { carrierShare, executionsOf, indexObjects } from './executions.js';
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


/** A type qualifies as one per execution when it is alone of its type in this share of the executions, and as many of its objects are. */
export const ONE_PER_EXECUTION = 0.9;
/** The one-per-execution test needs this many executions. */
export const MIN_EXECUTIONS = 2;
/** A type's objects run from beginning to end when this share of them do. */
export const BEGIN_TO_END = 0.5;
/** A type carries executions (and is no case) when more than this share of its executions fall apart without it. */
export const CARRIER = 0.5;

/** What the choice weighs, per type. */
interface Candidate {
  shape: TypeShape;
  activities: number;
  single: number;
  withEvents: number;
  beginEnd: number;
}

/**
 * The case notion: the requested type, else the type whose objects span the
 * process executions. Executions are the connected components of objects
 * (executions.ts); the case is one of them, so the default is the case-like
 * type (see typeShapes) with one object per execution (alone of its type in
 * ≥ 90% of the executions, and ≥ 90% of its objects so alone), touching the
 * most activities: its cases neither split an execution nor copy one
 * execution's events into many cases. A type that holds the executions
 * together (without it they fall apart into several of their own) carries
 * them, like a vessel loaded with many orders' containers: it is set apart
 * and the executions are formed again without it. When no type is one per
 * execution (shared objects melt executions together), the default is the
 * case-like type touching the most activities whose objects mostly run from
 * beginning to end (first event in the first third of the activity order,
 * last in the last third), else the one touching the most activities. The
 * reason states the rule with the numbers and every alternative.
 */
export function chooseCaseNotion(facts: LogFacts, requested: string | undefined, readTime: (raw: string | number) => number): CaseNotion {
  const total = facts.events.length;
  const share = (events: number) => `${events} of ${total} events (${percent(events, total)})`;
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
  const ix = indexObjects(facts, readTime);
  // Resource-like objects link nothing, unless every type is resource-like (one long case): then all link.
  const resources = shapes.filter((s) => s.kind === 'resource-like').map((s) => s.type);
  const apart = new Set(resources.length < shapes.length ? resources : []);
  const carriers: { type: string; share: number }[] = [];
  const activityCount = new Map(facts.objectTypes.map((t) => [t.type, t.activities.length]));
  for (;;) {
    const executions = executionsOf(ix, apart);
    const stats = new Map(executions.types.map((t) => [t.type, t]));
    const candidates: Candidate[] = shapes
      .filter((s) => !carriers.some((c) => c.type === s.type))
      .map((shape) => {
        const t = stats.get(shape.type);
        return { shape, activities: activityCount.get(shape.type) ?? 0, single: t?.single ?? 0, withEvents: t?.withEvents ?? 0, beginEnd: t?.beginEnd ?? 0 };
      });
    const n = executions.count;
    // One execution cannot tell a case type from any type with one object: the test needs two.
    const onePer = (c: Candidate) => n >= MIN_EXECUTIONS && c.single >= ONE_PER_EXECUTION * n && c.single >= ONE_PER_EXECUTION * c.withEvents;
    const spans = (c: Candidate) => c.withEvents > 0 && c.beginEnd >= BEGIN_TO_END * c.withEvents;
    const caseLike = candidates.filter((c) => c.shape.kind === 'case-like');
    const qualified = caseLike.filter(onePer).sort(byCoverage);
    const best = qualified[0];
    if (best) {
      // Only the winner is tried as a carrier: a carrier among the others changes nothing that is chosen.
      const carried = carrierShare(ix, apart, best.shape.type);
      if (carried > CARRIER) {
        carriers.push({ type: best.shape.type, share: carried });
        apart.add(best.shape.type);
        continue;
      }
    }
    const activities = new Set(facts.events.map((e) => e.type)).size;
    const described = (c: Candidate) =>
      `"${c.shape.type}" (alone in ${percent(c.single, n)} of executions, ${c.activities} of ${activities} activities, ${percent(c.beginEnd, c.withEvents)} of objects from beginning to end)`;
    const setAside = [
      ...carriers.map((c) => `"${c.type}" carries executions (${percent(c.share, 1)} of those holding one fall apart without it)`),
      ...candidates.filter((c) => c.shape.kind !== 'case-like').map((c) => kindText(c.shape)),
    ];
    const span = caseLike.filter(spans).sort(byCoverage);
    const pool = span.length ? span : caseLike.length ? [...caseLike].sort(byCoverage) : [...candidates].sort(byCoverage);
    const chosen = best ?? pool[0]!;
    const ranked = best ? qualified : pool;
    const tie = tieText(chosen, ranked[1]);
    const rule = `executions = objects linked through shared events and object-to-object relations${apart.size ? ' (resource-like types and carriers linking nothing)' : ''}; from beginning to end = first event in the first third of the activity order, last event in its last third`;
    const head = best
      ? `default: "${chosen.shape.type}", one object per process execution (alone of its type in ${chosen.single} of ${n} executions, ${percent(chosen.single, n)}), touching ${chosen.activities} of ${activities} activities, the most of the types with one object per execution (in ≥ 90% of executions and for ≥ 90% of their objects)${tie}`
      : `default: ${n < MIN_EXECUTIONS ? `the objects form ${plural(n, 'process execution')}, too few to find a type with one object per execution` : `no type has one object per process execution (in ≥ 90% of the ${n} executions and for ≥ 90% of its objects)`}, so "${chosen.shape.type}", ` +
        (span.length
          ? `the type touching the most activities (${chosen.activities} of ${activities}) whose objects mostly run from beginning to end (${chosen.beginEnd} of ${chosen.withEvents}, ${percent(chosen.beginEnd, chosen.withEvents)})${tie}`
          : `the ${caseLike.length ? 'case-like ' : ''}type touching the most activities (${chosen.activities} of ${activities}); no type's objects mostly run from beginning to end${tie}`);
    const others = candidates.filter((c) => c !== chosen && c.shape.kind === 'case-like').sort(byCoverage).map(described);
    return {
      type: chosen.shape.type,
      reason: `${head}; ${rule}${others.length ? `; alternatives: ${others.join(', ')}` : ''}${setAside.length ? `; set aside: ${setAside.join(', ')}` : ''}`,
    };
  }
}

/** Most activities first, then more objects from beginning to end, more events, the name. */
function byCoverage(a: Candidate, b: Candidate): number {
  return b.activities - a.activities || rate(b.beginEnd, b.withEvents) - rate(a.beginEnd, a.withEvents) || b.shape.events - a.shape.events || cmp(a.shape.type, b.shape.type);
}

function tieText(chosen: Candidate, next: Candidate | undefined): string {
  if (!next || next.activities !== chosen.activities) return '';
  if (rate(next.beginEnd, next.withEvents) !== rate(chosen.beginEnd, chosen.withEvents)) return ` (tie with "${next.shape.type}" broken by objects from beginning to end)`;
  if (next.shape.events !== chosen.shape.events) return ` (tie with "${next.shape.type}" broken by events: ${chosen.shape.events} against ${next.shape.events})`;
  return ` (tie with "${next.shape.type}" broken by name)`;
}

function kindText(s: TypeShape): string {
  return s.kind === 'resource-like' ? `"${s.type}" resource-like (${plural(s.objects, 'object')}, median ${s.median} events)` : `"${s.type}" single-event (median ${s.median})`;
}

const rate = (part: number, whole: number) => (whole ? part / whole : 0);
const percent = (part: number, whole: number) => `${whole ? Math.round((100 * part) / whole) : 0}%`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
