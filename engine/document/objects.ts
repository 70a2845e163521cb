import { cmp } from '../event.js';
import { splitKey, type PairTally } from '../tally.js';
import type { ObjectRelationItem, ObjectType } from './types.js';

/**
 * The activities that touch each object type over the whole object-centric
 * log, as its import stored them (meta `object_type_activities`, a JSON
 * object of type → activities). The stored events are only those the case
 * notion kept, so they alone would leave out the activities of the other
 * parts of the process. Empty for a classic log or unreadable meta.
 */
export function declaredActivities(meta: Readonly<Record<string, string | undefined>>): Map<string, string[]> {
  const text = meta.object_type_activities;
  if (!text) return new Map();
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return new Map();
    const out = new Map<string, string[]>();
    for (const [type, list] of Object.entries(parsed as Record<string, unknown>)) {
      if (Array.isArray(list)) out.set(type, list.filter((a): a is string => typeof a === 'string'));
    }
    return out;
  } catch {
    return new Map();
  }
}

/**
 * Object types with their counts and the activities that touch them, and per
 * activity the types it touches, from one relation so the two agree: the
 * stored events' activity × type pairs joined with the import's whole-log
 * relation (`declared`). A project fed several logs keeps what each brought.
 */
export function objectParts(
  objectCounts: ReadonlyMap<string, number>,
  objectTypes: ReadonlyMap<string, PairTally>,
  relations: readonly { fromType: string; toType: string; qualifier: string; count: number }[],
  declared: ReadonlyMap<string, readonly string[]> = new Map(),
): { objectTypes: ObjectType[]; typesOf: Map<string, string[]>; relations: ObjectRelationItem[] } {
  const activitiesOf = new Map<string, Set<string>>();
  const touch = (type: string, activity: string) => {
    const set = activitiesOf.get(type) ?? new Set<string>();
    set.add(activity);
    activitiesOf.set(type, set);
  };
  for (const key of objectTypes.keys()) {
    const [activity, type] = splitKey(key);
    touch(type, activity);
  }
  for (const [type, list] of declared) {
    if (!activitiesOf.has(type)) activitiesOf.set(type, new Set());
    for (const activity of list) touch(type, activity);
  }
  const names = [...new Set([...objectCounts.keys(), ...activitiesOf.keys()])].sort(cmp);
  const typesOf = new Map<string, string[]>();
  for (const name of names) {
    for (const activity of activitiesOf.get(name) ?? []) typesOf.set(activity, [...(typesOf.get(activity) ?? []), name]);
  }
  return {
    objectTypes: names.map((name) => ({ id: `ot-${name}`, name, count: objectCounts.get(name) ?? 0, activities: [...(activitiesOf.get(name) ?? [])].sort(cmp) })),
    typesOf,
    relations: relations.map((r) => ({ from_type: r.fromType, to_type: r.toType, qualifier: r.qualifier, count: r.count })),
  };
}
