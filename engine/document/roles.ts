import { cmp } from '../event.js';
import { splitKey, type PairTally } from '../tally.js';
import type { ObjectRelationItem, ObjectType, Role } from './types.js';

/** Resources whose activity profiles have at least this cosine similarity to a role's profile join it. */
export const ROLE_SIMILARITY = 0.8;

/**
 * Roles from the resource attribute: resources are grouped by what they do.
 * A resource's profile is its event count per activity; resources are taken
 * busiest first and each joins the role whose summed profile is most similar
 * (cosine >= ROLE_SIMILARITY) or starts a new one. A role is named after its
 * two commonest activities; its activities are those its members did.
 */
export function discoverRoles(resources: ReadonlyMap<string, PairTally>, totalCases: number, attribute: string): { roles: Role[]; rolesOf: Map<string, string[]> } {
  const profiles = new Map<string, Map<string, PairTally>>();
  for (const [key, p] of resources) {
    const [activity, resource] = splitKey(key);
    let m = profiles.get(resource);
    if (!m) profiles.set(resource, (m = new Map()));
    m.set(activity, p);
  }
  const total = (m: Map<string, PairTally>) => [...m.values()].reduce((s, p) => s + p.events, 0);
  const order = [...profiles.keys()].sort((a, b) => total(profiles.get(b)!) - total(profiles.get(a)!) || cmp(a, b));
  const groups: { members: string[]; profile: Map<string, number> }[] = [];
  for (const r of order) {
    const mine = new Map([...profiles.get(r)!].map(([a, p]) => [a, p.events]));
    let best = -1;
    let bestSim = ROLE_SIMILARITY;
    groups.forEach((g, i) => {
      const sim = cosine(mine, g.profile);
      if (sim >= bestSim && (best < 0 || sim > bestSim)) {
        best = i;
        bestSim = sim;
      }
    });
    if (best < 0) groups.push({ members: [r], profile: new Map(mine) });
    else {
      const g = groups[best]!;
      g.members.push(r);
      for (const [a, n] of mine) g.profile.set(a, (g.profile.get(a) ?? 0) + n);
    }
  }
  const taken = new Set<string>();
  const roles: Role[] = [];
  const rolesOf = new Map<string, string[]>();
  for (const g of groups) {
    const activities = [...g.profile.entries()].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0])).map(([a]) => a);
    const name = activities.slice(0, 2).join(' + ');
    const base = `role-${activities[0]!.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'r'}`;
    let id = base;
    for (let k = 2; taken.has(id); k++) id = `${base}-${k}`;
    taken.add(id);
    // Cases per activity summed over members (a case two members worked on at one activity counts twice), the largest over activities, capped.
    let cases = 0;
    for (const a of activities) {
      let n = 0;
      for (const m of g.members) n += profiles.get(m)!.get(a)?.cases ?? 0;
      cases = Math.max(cases, n);
    }
    roles.push({ id, name: `${name} (${g.members.length} resource${g.members.length === 1 ? '' : 's'})`, attribute, activities, cases: Math.min(cases, totalCases) });
    for (const a of activities) {
      const list = rolesOf.get(a) ?? [];
      list.push(id);
      rolesOf.set(a, list);
    }
  }
  return { roles, rolesOf };
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [k, v] of a) {
    na += v * v;
    dot += v * (b.get(k) ?? 0);
  }
  for (const v of b.values()) nb += v * v;
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** Object types with their counts and the activities that touch them; relations as the store counts them. */
export function objectParts(
  objectCounts: ReadonlyMap<string, number>,
  objectTypes: ReadonlyMap<string, PairTally>,
  relations: readonly { fromType: string; toType: string; qualifier: string; count: number }[],
): { objectTypes: ObjectType[]; typesOf: Map<string, string[]>; relations: ObjectRelationItem[] } {
  const activitiesOf = new Map<string, string[]>();
  const typesOf = new Map<string, string[]>();
  for (const key of [...objectTypes.keys()].sort(cmp)) {
    const [activity, type] = splitKey(key);
    activitiesOf.set(type, [...(activitiesOf.get(type) ?? []), activity]);
    typesOf.set(activity, [...(typesOf.get(activity) ?? []), type]);
  }
  const names = [...new Set([...objectCounts.keys(), ...activitiesOf.keys()])].sort(cmp);
  return {
    objectTypes: names.map((name) => ({ id: `ot-${name}`, name, count: objectCounts.get(name) ?? 0, activities: activitiesOf.get(name) ?? [] })),
    typesOf,
    relations: relations.map((r) => ({ from_type: r.fromType, to_type: r.toType, qualifier: r.qualifier, count: r.count })),
  };
}
