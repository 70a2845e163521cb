import { cmp } from '../event.js';
import { fnv1a, splitKey, splitRoleKey, type PairTally, type Tally } from '../tally.js';
import { isPlaceholder } from '../reading/words.js';
import { SPECIALIST_LEAD, SPECIALIST_Z, SYSTEM_FOCUS, SYSTEM_SHARE, systemAccounts } from '../reading/system-accounts.js';
import { slug, uniqueId } from './ids.js';
import type { Role } from './types.js';

/** Resources whose activity profiles have at least this cosine similarity to a role's profile join it. */
export const ROLE_SIMILARITY = 0.8;

/** Which role attribute wins when several cover the events alike (lower case; the engine counts any of these, with or without `org:`). */
export const ROLE_ATTRIBUTE_PRIORITY = ['org:role', 'role', 'org:group', 'group', 'team'] as const;

export interface RoleParts {
  roles: Role[];
  /** Activity -> ids of the roles doing it, for nodes[].roles. */
  rolesOf: Map<string, string[]>;
  /** Where the roles come from and how they were counted, in words, for the document's assumptions. */
  assumption: string;
}

/**
 * The document's roles: from a role, group or team attribute when the log has
 * one (see pickRoleAttribute), else from the resource attribute by activity
 * profile (discoverRoles); none when the log has neither.
 */
export function roleParts(tally: Pick<Tally, 'cases' | 'events' | 'resources' | 'roleValues'>, resourceAttribute: string): RoleParts {
  const picked = pickRoleAttribute(tally.roleValues, tally.events);
  if (picked) {
    const { roles, rolesOf } = attributeRoles(tally.roleValues, picked.attribute, tally.cases);
    const share = (n: number) => `${Math.round((1000 * n) / Math.max(1, tally.events)) / 10}%`;
    const others = picked.others.length
      ? ` The log also has ${picked.coverage
          .slice(1)
          .map((c) => `${c.attribute} (on ${c.events} events, ${share(c.events)})`)
          .join(', ')}, not used: the attribute is picked by coverage (the one on the most events; within ${COVERAGE_MARGIN * 100}% of all events of it, the one whose values best separate the activities, then by name in the order ${ROLE_ATTRIBUTE_PRIORITY.join(' > ')}, case-insensitive).`
      : '';
    return {
      roles,
      rolesOf,
      assumption:
        `Roles come from the ${picked.attribute} attribute, one per distinct value (trimmed; empty values, placeholders such as MISSING or UNDEFINED and values over 100 characters name no role); ${picked.events} of ${tally.events} events (${share(picked.events)}) carry one. ` +
        "A role's activities are those where its value occurs, most events first. A role's cases are the most cases with its value at any one of its activities: a lower bound of the cases it worked on, " +
        `since the counted state keeps cases per value and activity, not distinct cases per value.${others}`,
    };
  }
  const { roles, rolesOf } = discoverRoles(tally.resources, tally.cases, resourceAttribute);
  return {
    roles,
    rolesOf,
    assumption:
      roles.length > 0
        ? `Roles come from the ${resourceAttribute} attribute (placeholder values such as nan, ? or MISSING, and a value naming the one activity it is written on, are nobody): resources are grouped by their activity profile (cosine similarity of event counts per activity >= ${ROLE_SIMILARITY}), busiest first, except that a resource doing one activity only (${SYSTEM_FOCUS * 100}% of its events) and standing out among the k resources doing that activity (all of it, or a share of at least max(${SYSTEM_SHARE * 100}%, ${SPECIALIST_LEAD}/k) and above the fair share 1/k by ${SPECIALIST_Z} standard errors over the activity's events, so that interchangeable resources splitting the work are not told apart by volume) is a role of its own (a specialist, a system account or an outside party such as the customer: the counts do not tell which); a role's cases sum its members' cases per activity (a case two members worked on at one activity counts twice), the largest over its activities. The log has no role, group or team attribute.`
        : 'The log has no role, group or team attribute and no resource attribute, so there are no roles.',
  };
}

/** Attributes whose events carrying a value lie within this share of all events of the best-covered one are judged by how they separate the activities. */
export const COVERAGE_MARGIN = 0.05;

/** An organisational attribute the log has: events carrying a value (not a placeholder), and how well its values separate the activities. */
export interface RoleAttributeCoverage {
  attribute: string;
  events: number;
  /** 1 - H(activity | value) / H(activity) over the events carrying a value: 1 when each value does its own activities, 0 when every value does the same mix. */
  separation: number;
}

/**
 * The organisational attribute to read roles from (issue 31): the one on the most events, since an attribute missing
 * on a third of the events leaves the groups doing those events out of every role (a role attribute the source only
 * fills for some teams). Among attributes within COVERAGE_MARGIN of the events of the best covered, the one whose
 * values best separate the activities (a level or team that does its own steps says more than one that does them
 * all), then by name in ROLE_ATTRIBUTE_PRIORITY order (case-insensitive), then by most events, then by name. With the
 * events carrying it and the others, most events first.
 */
export function pickRoleAttribute(
  roleValues: ReadonlyMap<string, PairTally>,
  totalEvents?: number,
): { attribute: string; events: number; others: string[]; coverage: RoleAttributeCoverage[] } | undefined {
  const byActivity = new Map<string, Map<string, Map<string, number>>>();
  for (const [key, p] of roleValues) {
    if (p.events <= 0) continue;
    const { activity, attribute, value } = splitRoleKey(key);
    if (isPlaceholder(value)) continue;
    let values = byActivity.get(attribute);
    if (!values) byActivity.set(attribute, (values = new Map()));
    let acts = values.get(value);
    if (!acts) values.set(value, (acts = new Map()));
    acts.set(activity, (acts.get(activity) ?? 0) + p.events);
  }
  if (byActivity.size === 0) return undefined;
  const coverage: RoleAttributeCoverage[] = [...byActivity].map(([attribute, values]) => ({ attribute, ...separationOf(values) }));
  const rank = (name: string) => {
    const i = (ROLE_ATTRIBUTE_PRIORITY as readonly string[]).indexOf(name.toLowerCase());
    return i < 0 ? ROLE_ATTRIBUTE_PRIORITY.length : i;
  };
  const best = Math.max(...coverage.map((c) => c.events));
  const margin = COVERAGE_MARGIN * Math.max(best, totalEvents ?? 0);
  const near = (c: RoleAttributeCoverage) => c.events >= best - margin;
  const sep = (c: RoleAttributeCoverage) => Math.round(c.separation * 100);
  coverage.sort((a, b) => Number(near(b)) - Number(near(a)) || (near(a) ? sep(b) - sep(a) || rank(a.attribute) - rank(b.attribute) : 0) || b.events - a.events || cmp(a.attribute, b.attribute));
  const [picked] = coverage;
  return { attribute: picked!.attribute, events: picked!.events, others: coverage.slice(1).map((c) => c.attribute), coverage };
}

/** Events carrying a value and 1 - H(activity | value) / H(activity), from value -> activity -> events. */
function separationOf(values: ReadonlyMap<string, ReadonlyMap<string, number>>): { events: number; separation: number } {
  const entropy = (counts: Iterable<number>, total: number) => {
    let h = 0;
    for (const n of counts) if (n > 0) h -= (n / total) * Math.log(n / total);
    return h;
  };
  const overall = new Map<string, number>();
  let events = 0;
  for (const acts of values.values()) {
    for (const [a, n] of acts) {
      overall.set(a, (overall.get(a) ?? 0) + n);
      events += n;
    }
  }
  const h = entropy(overall.values(), events);
  if (h === 0) return { events, separation: 0 };
  let conditional = 0;
  for (const acts of values.values()) {
    const n = [...acts.values()].reduce((s, k) => s + k, 0);
    conditional += (n / events) * entropy(acts.values(), n);
  }
  return { events, separation: Math.max(0, 1 - conditional / h) };
}

/**
 * One role per distinct value of `attribute`. Ids are slugs of the values,
 * made unique in value order (not count order), so they do not change as
 * counts grow. Roles are listed most events first, ties by name; so are the
 * roles of an activity, by their events at that activity.
 */
export function attributeRoles(roleValues: ReadonlyMap<string, PairTally>, attribute: string, totalCases: number): { roles: Role[]; rolesOf: Map<string, string[]> } {
  const byValue = new Map<string, Map<string, PairTally>>();
  for (const [key, p] of roleValues) {
    const k = splitRoleKey(key);
    // A placeholder (MISSING, UNDEFINED, …) says the role is not known, as the decision rules read it too.
    if (k.attribute !== attribute || p.events <= 0 || isPlaceholder(k.value)) continue;
    let m = byValue.get(k.value);
    if (!m) byValue.set(k.value, (m = new Map()));
    m.set(k.activity, p);
  }
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  for (const value of [...byValue.keys()].sort(cmp)) {
    ids.set(value, uniqueId(`role-${slug(value, 40) || fnv1a(value).toString(16).padStart(8, '0')}`, taken));
  }
  const eventsOf = (m: Map<string, PairTally>) => [...m.values()].reduce((s, p) => s + p.events, 0);
  const values = [...byValue.keys()].sort((a, b) => eventsOf(byValue.get(b)!) - eventsOf(byValue.get(a)!) || cmp(a, b));
  const roles: Role[] = values.map((value) => {
    const m = byValue.get(value)!;
    const activities = [...m.entries()].sort((a, b) => b[1].events - a[1].events || cmp(a[0], b[0])).map(([a]) => a);
    const cases = Math.max(...[...m.values()].map((p) => p.cases));
    return { id: ids.get(value)!, name: value, attribute, activities, cases: Math.min(cases, totalCases) };
  });
  const doers = new Map<string, { id: string; name: string; events: number }[]>();
  for (const [value, m] of byValue) {
    for (const [activity, p] of m) {
      const list = doers.get(activity) ?? [];
      list.push({ id: ids.get(value)!, name: value, events: p.events });
      doers.set(activity, list);
    }
  }
  const rolesOf = new Map<string, string[]>();
  for (const [activity, list] of doers) rolesOf.set(activity, list.sort((a, b) => b.events - a.events || cmp(a.name, b.name)).map((d) => d.id));
  return { roles, rolesOf };
}

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
    if (isPlaceholder(resource)) continue;
    let m = profiles.get(resource);
    if (!m) profiles.set(resource, (m = new Map()));
    m.set(activity, p);
  }
  // A value written as the resource of one activity only, and equal to its name, is the step standing in for nobody
  // (artificial Start and End events whose resource is 'Start' and 'End'): not a person.
  for (const [r, m] of profiles) if (m.size === 1 && [...m.keys()][0]!.trim().toLowerCase() === r.trim().toLowerCase()) profiles.delete(r);
  const total = (m: Map<string, PairTally>) => [...m.values()].reduce((s, p) => s + p.events, 0);
  const order = [...profiles.keys()].sort((a, b) => total(profiles.get(b)!) - total(profiles.get(a)!) || cmp(a, b));
  // A likely system account (one step, a large share of it) is a role of its own: the clerks who also do that step
  // by hand are people, and lumping them with it would say the system does their work.
  const system = new Set([...systemAccounts(resources).values()].map((s) => s.resource).filter((r) => profiles.has(r)));
  const groups: { members: string[]; profile: Map<string, number>; system?: boolean }[] = [];
  for (const r of order) {
    const mine = new Map([...profiles.get(r)!].map(([a, p]) => [a, p.events]));
    if (system.has(r)) {
      groups.push({ members: [r], profile: new Map(mine), system: true });
      continue;
    }
    let best = -1;
    let bestSim = ROLE_SIMILARITY;
    groups.forEach((g, i) => {
      if (g.system) return;
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
    const id = uniqueId(`role-${slug(activities[0]!, 40) || 'r'}`, taken);
    // Cases per activity summed over members (a case two members worked on at one activity counts twice), the largest over activities, capped.
    let cases = 0;
    for (const a of activities) {
      let n = 0;
      for (const m of g.members) n += profiles.get(m)!.get(a)?.cases ?? 0;
      cases = Math.max(cases, n);
    }
    const who = g.system ? `${g.members[0]} alone, doing only this step` : `${g.members.length} resource${g.members.length === 1 ? '' : 's'}`;
    roles.push({ id, name: `${name} (${who})`, attribute, activities, cases: Math.min(cases, totalCases) });
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
