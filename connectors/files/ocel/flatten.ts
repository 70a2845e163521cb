import { cmp, limitMessage, type ObjectRef, type ObjectRelation, type Rejection, type WireEvent } from '../../../engine/index.js';
import type { OcelLog } from './model.js';

export interface ObjectTypeFacts {
  type: string;
  /** Objects of this type. */
  count: number;
  /** Distinct events related to at least one object of this type. */
  events: number;
  /** Event types related to objects of this type, in name order. */
  activities: string[];
}

export interface RelationFacts {
  from_type: string;
  to_type: string;
  qualifier: string;
  count: number;
}

/** The log seen through one object type: wire events plus the facts `inspect` shows. */
export interface Flattening {
  caseNotion: string;
  records: WireEvent[];
  locations: string[];
  rejected: Rejection[];
  objects: { id: string; type: string }[];
  objectRelations: ObjectRelation[];
  /** Readable events with no object of the case type: left out of the flattened log. */
  withoutCase: number;
  extra: Record<string, unknown>;
}

/** Facts about the whole log, independent of the case notion. */
export interface LogFacts {
  objectTypes: ObjectTypeFacts[];
  objectRelations: RelationFacts[];
  /** Per distinct event (first occurrence of an id), its related known objects, de-duplicated. */
  related: Map<string, ObjectRef[]>;
  events: OcelLog['events'];
  duplicateEvents: string[];
  danglingEventObject: number;
  danglingObjectObject: number;
  o2o: ObjectRelation[];
}

export function logFacts(log: OcelLog): LogFacts {
  const seen = new Set<string>();
  const events: OcelLog['events'] = [];
  const duplicateEvents: string[] = [];
  for (const e of log.events) {
    if (seen.has(e.id)) duplicateEvents.push(e.id);
    else {
      seen.add(e.id);
      events.push(e);
    }
  }
  const related = new Map<string, ObjectRef[]>();
  const pairs = new Set<string>();
  let danglingEventObject = 0;
  for (const r of log.eventObjects) {
    const key = JSON.stringify([r.from, r.to, r.qualifier ?? null]);
    if (pairs.has(key)) continue;
    pairs.add(key);
    const type = log.objects.get(r.to);
    // A relation to an object the log never declares has no type to flatten on; pm4py drops it too.
    if (type === undefined || !seen.has(r.from)) {
      danglingEventObject++;
      continue;
    }
    const ref: ObjectRef = r.qualifier === undefined ? { id: r.to, type } : { id: r.to, type, qualifier: r.qualifier };
    const list = related.get(r.from);
    if (list) list.push(ref);
    else related.set(r.from, [ref]);
  }
  for (const list of related.values()) list.sort((a, b) => cmp(a.type, b.type) || cmp(a.id, b.id) || cmp(a.qualifier ?? '', b.qualifier ?? ''));

  const count = new Map<string, number>();
  for (const type of log.objects.values()) count.set(type, (count.get(type) ?? 0) + 1);
  const covered = new Map<string, number>();
  const activities = new Map<string, Set<string>>();
  for (const e of events) {
    for (const type of new Set((related.get(e.id) ?? []).map((o) => o.type))) {
      covered.set(type, (covered.get(type) ?? 0) + 1);
      const set = activities.get(type) ?? new Set();
      set.add(e.type);
      activities.set(type, set);
    }
  }
  const objectTypes = [...count.keys()].sort(cmp).map((type) => ({
    type,
    count: count.get(type)!,
    events: covered.get(type) ?? 0,
    activities: [...(activities.get(type) ?? [])].sort(cmp),
  }));

  const o2o: ObjectRelation[] = [];
  const o2oSeen = new Set<string>();
  const byTypes = new Map<string, number>();
  let danglingObjectObject = 0;
  for (const r of log.objectObjects) {
    const from = log.objects.get(r.from);
    const to = log.objects.get(r.to);
    if (from === undefined || to === undefined) {
      danglingObjectObject++;
      continue;
    }
    const rel = { fromId: r.from, toId: r.to, qualifier: r.qualifier ?? '' };
    const key = JSON.stringify([rel.fromId, rel.toId, rel.qualifier]);
    if (o2oSeen.has(key)) continue;
    o2oSeen.add(key);
    o2o.push(rel);
    const typesKey = JSON.stringify([from, to, rel.qualifier]);
    byTypes.set(typesKey, (byTypes.get(typesKey) ?? 0) + 1);
  }
  o2o.sort((a, b) => cmp(a.fromId, b.fromId) || cmp(a.toId, b.toId) || cmp(a.qualifier, b.qualifier));
  const objectRelations = [...byTypes.entries()]
    .map(([k, n]) => {
      const [from_type, to_type, qualifier] = JSON.parse(k) as [string, string, string];
      return { from_type, to_type, qualifier, count: n };
    })
    .sort((a, b) => cmp(a.from_type, b.from_type) || cmp(a.to_type, b.to_type) || cmp(a.qualifier, b.qualifier));
  return { objectTypes, objectRelations, related, events, duplicateEvents, danglingEventObject, danglingObjectObject, o2o };
}

/**
 * One wire event per (event, related object of the case type), in time order.
 * Event ids carry the event's zero-padded rank in that order first, so events
 * at the same time keep the log's order inside a case (the engine orders ties
 * by id, as pm4py's stable sort keeps them), then the OCEL id, then the object
 * id when one event lands in several cases. An OCEL event with more objects
 * than `objectsPerEvent` is refused once, as itself, rather than as each of
 * the events it would make (each of them refused for the same objects).
 */
export function flatten(
  log: OcelLog,
  facts: LogFacts,
  caseNotion: { type: string; reason: string },
  readTime: (raw: string | number) => number,
  objectsPerEvent = Number.POSITIVE_INFINITY,
): Flattening {
  const width = Math.max(10, String(facts.events.length).length);
  const records: WireEvent[] = [];
  const locations: string[] = [];
  const rejected: Rejection[] = log.problems.map((p) => ({ location: p.location, reason: p.reason, payload: '' }));
  for (const id of facts.duplicateEvents) rejected.push({ location: `event ${id}`, reason: 'duplicate event id: the first one is kept', payload: '' });
  let withoutCase = 0;
  let badTime = 0;
  const timed: { e: OcelLog['events'][number]; time: number }[] = [];
  for (const e of facts.events) {
    const time = readTime(e.time);
    if (Number.isFinite(time)) timed.push({ e, time });
    else {
      badTime++;
      rejected.push({ location: `event ${e.id}`, reason: `unreadable time ${JSON.stringify(e.time)}`, payload: JSON.stringify(e) });
    }
  }
  // Chronological, ties in log order (a stable sort): the same ids from every form of one log.
  timed.sort((a, b) => a.time - b.time);
  timed.forEach(({ e, time }, i) => {
    const objects = facts.related.get(e.id) ?? [];
    if (objects.length > objectsPerEvent) {
      rejected.push({ location: `event ${e.id}`, reason: `objects: ${limitMessage('objectsPerEvent', 'an event', objectsPerEvent, String(objects.length))}`, payload: JSON.stringify(e) });
      return;
    }
    const cases = [...new Set(objects.filter((o) => o.type === caseNotion.type).map((o) => o.id))].sort(cmp);
    if (cases.length === 0) {
      withoutCase++;
      return;
    }
    const ordinal = String(i).padStart(width, '0');
    for (const caseId of cases) {
      const record: WireEvent = {
        caseId,
        activity: e.type,
        timestamp: time,
        eventId: cases.length === 1 ? `${ordinal}:${e.id}` : `${ordinal}:${e.id}:${caseId}`,
      };
      if (Object.keys(e.attributes).length) record.attributes = e.attributes;
      if (objects.length) record.objects = objects;
      records.push(record);
      locations.push(`event ${e.id}`);
    }
  });
  const objects = [...log.objects.entries()].map(([id, type]) => ({ id, type })).sort((a, b) => cmp(a.type, b.type) || cmp(a.id, b.id));
  return {
    caseNotion: caseNotion.type,
    records,
    locations,
    rejected,
    objects,
    objectRelations: facts.o2o,
    withoutCase,
    extra: {
      case_notion: caseNotion.type,
      case_notion_reason: caseNotion.reason,
      ocel_events: facts.events.length,
      ocel_objects: log.objects.size,
      object_types: facts.objectTypes,
      object_relations: facts.objectRelations,
      events_without_case_object: withoutCase,
      events_without_objects: facts.events.filter((e) => !facts.related.has(e.id)).length,
      events_with_bad_time: badTime,
      duplicate_event_ids: facts.duplicateEvents.length,
      dangling_relations: { event_object: facts.danglingEventObject, object_object: facts.danglingObjectObject },
    },
  };
}
