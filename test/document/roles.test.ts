import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importLog } from '../../connectors/files/index.js';
import { buildDocument, validateDocument, type GraphDocument } from '../../engine/document/index.js';
import { attributeRoles, discoverRoles, pickRoleAttribute, roleParts } from '../../engine/document/roles.js';
import type { AttributeValue, ProjectStore, WireEvent } from '../../engine/index.js';
import { freshDir, freshStore } from '../engine/helpers.js';

const H = 3_600_000;
const T0 = Date.UTC(2025, 0, 6, 8);

/** [case, activity, attributes, resource?]; events of a case one hour apart, in row order. */
function wire(rows: [string, string, Record<string, AttributeValue>, string?][]): WireEvent[] {
  const hour = new Map<string, number>();
  return rows.map(([caseId, activity, attributes, resource], i) => {
    const h = hour.get(caseId) ?? 0;
    hour.set(caseId, h + 1);
    return { caseId, activity, timestamp: T0 + h * H, eventId: `e${String(i).padStart(3, '0')}`, attributes, ...(resource ? { resource } : {}) };
  });
}

function documentOf(records: WireEvent[], store: ProjectStore = freshStore()): GraphDocument {
  store.apply({ records });
  const doc = buildDocument(store.snapshot());
  expect(validateDocument(doc)).toEqual({ ok: true, problems: [] });
  return doc;
}

const rolesOfNode = (doc: GraphDocument, label: string) => doc.nodes.find((n) => n.label === label)!.roles;
const roleAssumption = (doc: GraphDocument) => doc.assumptions.find((a) => typeof a === 'string' && (a.startsWith('Roles come') || a.includes('so there are no roles')));

// desk: a x4 (c1 twice, c2, c3 written ' desk ') in 3 cases; back office: b x1 (c1), c x2 (c2, c3);
// audit: a x2 in c4; c3's b has an empty group (no role). 10 events, 9 with a group. Resources are ignored.
const groupLog = wire([
  ['c1', 'a', { 'org:group': 'desk' }, 'r1'],
  ['c1', 'b', { 'org:group': 'back office' }, 'r2'],
  ['c1', 'a', { 'org:group': 'desk' }, 'r1'],
  ['c2', 'a', { 'org:group': 'desk' }, 'r1'],
  ['c2', 'c', { 'org:group': 'back office' }, 'r2'],
  ['c3', 'a', { 'org:group': ' desk ' }, 'r1'],
  ['c3', 'b', { 'org:group': '' }, 'r2'],
  ['c3', 'c', { 'org:group': 'back office' }, 'r3'],
  ['c4', 'a', { 'org:group': 'audit' }, 'r1'],
  ['c4', 'a', { 'org:group': 'audit' }, 'r1'],
]);

describe('roles from a role, group or team attribute', () => {
  it('gives one role per value with its activities (most events first) and its largest per-activity cases', () => {
    const doc = documentOf(groupLog);
    expect(doc.source).toMatchObject({ cases: 4, events: 10 });
    expect(doc.roles).toEqual([
      { id: 'role-desk', name: 'desk', attribute: 'org:group', activities: ['a'], cases: 3 },
      { id: 'role-back-office', name: 'back office', attribute: 'org:group', activities: ['c', 'b'], cases: 2 },
      { id: 'role-audit', name: 'audit', attribute: 'org:group', activities: ['a'], cases: 1 },
    ]);
    expect(rolesOfNode(doc, 'a')).toEqual(['role-desk', 'role-audit']);
    expect(rolesOfNode(doc, 'b')).toEqual(['role-back-office']);
    expect(rolesOfNode(doc, 'c')).toEqual(['role-back-office']);
    expect(doc.nodes.find((n) => n.kind === 'start')!.roles).toEqual([]);
    const text = roleAssumption(doc) as string;
    expect(text).toMatch(/^Roles come from the org:group attribute, one per distinct value/);
    expect(text).toContain('9 of 10 events (90%) carry one');
    expect(text).toContain('a lower bound of the cases it worked on');
    expect(text).not.toContain('not in the counted state');
    expect(text).not.toContain('also has');
  });

  it('follows the data: a later batch moves counts and order, ids stay', () => {
    const store = freshStore();
    documentOf(groupLog, store);
    const doc = documentOf(wire([['c5', 'b', { 'org:group': 'audit' }], ['c6', 'b', { 'org:group': 'audit' }]]).map((e, i) => ({ ...e, eventId: `f${i}` })), store);
    expect(doc.roles.map((r) => [r.id, r.activities, r.cases])).toEqual([
      // audit now has 4 events like desk: ties go by name; its activities tie at 2 events each, by name too.
      ['role-audit', ['a', 'b'], 2],
      ['role-desk', ['a'], 3],
      ['role-back-office', ['c', 'b'], 2],
    ]);
    expect(rolesOfNode(doc, 'b')).toEqual(['role-audit', 'role-back-office']);
  });

  it('caps a role\'s cases at the case count and keeps ids unique and stable for values that slug alike', () => {
    const values = ['group-1', 'Group 1', 'Åsa', '審査'];
    const records = wire(values.map((v, i) => [`c${i}`, 'x', { team: v }] as [string, string, Record<string, AttributeValue>]));
    const doc = documentOf(records);
    const ids = Object.fromEntries(doc.roles.map((r) => [r.name, r.id]));
    // Suffixes go by value order ('Group 1' < 'group-1'), not by counts.
    expect(ids['Group 1']).toBe('role-group-1');
    expect(ids['group-1']).toBe('role-group-1-2');
    expect(ids['Åsa']).toBe('role-asa');
    expect(ids['審査']).toMatch(/^role-[0-9a-f]{8}$/);
    expect(new Set(Object.values(ids)).size).toBe(4);
    expect(doc.roles.every((r) => r.attribute === 'team' && r.cases === 1)).toBe(true);
    // The same values in another order give the same ids.
    expect(Object.fromEntries(documentOf([...records].reverse().map((e, i) => ({ ...e, eventId: `r${i}` }))).roles.map((r) => [r.name, r.id]))).toEqual(ids);

    const capped = attributeRoles(new Map([['x\u0000team\u0000t', { events: 9, cases: 7 }]]), 'team', 5);
    expect(capped.roles).toEqual([{ id: 'role-t', name: 't', attribute: 'team', activities: ['x'], cases: 5 }]);
  });
});

describe('which role attribute', () => {
  const key = (activity: string, attribute: string, value: string) => [activity, attribute, value].join('\u0000');
  const tally = (entries: [string, string, string, number][]) => new Map(entries.map(([a, attr, v, n]) => [key(a, attr, v), { events: n, cases: 1 }]));

  it('goes by coverage: the attribute on the most events, whatever its name (a role filled for some teams only leaves the others out)', () => {
    // org:role on 60 of 100 events, org:group on all 100: the groups doing the other 40 would be in no role.
    const picked = pickRoleAttribute(tally([['a', 'org:role', 'r', 60], ['a', 'org:group', 'g1', 60], ['b', 'org:group', 'g2', 40]]), 100);
    expect(picked).toMatchObject({ attribute: 'org:group', events: 100, others: ['org:role'] });
    expect(picked!.coverage.map((c) => [c.attribute, c.events])).toEqual([['org:group', 100], ['org:role', 60]]);
    expect(pickRoleAttribute(tally([['a', 'team', 't', 50], ['a', 'org:group', 'g', 9], ['a', 'Role', 'r', 1]]))).toMatchObject({ attribute: 'team', events: 50, others: ['org:group', 'Role'] });
    expect(pickRoleAttribute(new Map())).toBeUndefined();
  });

  it('among attributes covering the events alike, the one whose values separate the activities, then the name order', () => {
    // team values each do their own step; org:role values do both steps alike: team says who does what.
    const mixed = tally([['a', 'team', 't1', 50], ['b', 'team', 't2', 49], ['a', 'org:role', 'r1', 25], ['b', 'org:role', 'r1', 25], ['a', 'org:role', 'r2', 25], ['b', 'org:role', 'r2', 25]]);
    const picked = pickRoleAttribute(mixed, 100);
    expect(picked?.attribute).toBe('team');
    expect(picked!.coverage.find((c) => c.attribute === 'team')!.separation).toBeCloseTo(1, 5);
    expect(picked!.coverage.find((c) => c.attribute === 'org:role')!.separation).toBeCloseTo(0, 5);
    // Alike in both: org:role > role > org:group > group > team, case-insensitive.
    expect(pickRoleAttribute(tally([['a', 'Role', 'r', 5], ['a', 'ORG:ROLE', 'x', 5]]))?.attribute).toBe('ORG:ROLE');
    expect(pickRoleAttribute(tally([['a', 'group', 'g', 5], ['a', 'Org:Group', 'x', 5]]))?.attribute).toBe('Org:Group');
    expect(pickRoleAttribute(tally([['a', 'team', 't', 5], ['a', 'group', 'g', 5]]))?.attribute).toBe('group');
  });

  it('a placeholder value (MISSING, UNDEFINED, …) names no role, and an attribute holding only placeholders is not picked', () => {
    const roles = tally([['pay', 'org:role', 'UNDEFINED', 40], ['check', 'org:role', 'clerk', 10], ['reject', 'org:role', 'MISSING', 3], ['check', 'org:group', 'g', 5]]);
    expect(pickRoleAttribute(roles)).toMatchObject({ attribute: 'org:role', events: 10, others: ['org:group'] });
    const { roles: listed, rolesOf } = attributeRoles(roles, 'org:role', 50);
    expect(listed.map((r) => r.name)).toEqual(['clerk']);
    expect(rolesOf.get('pay')).toBeUndefined();
    expect(pickRoleAttribute(tally([['pay', 'org:role', 'unknown', 4], ['pay', 'team', 't', 1]]))?.attribute).toBe('team');
    expect(pickRoleAttribute(tally([['pay', 'org:role', 'n/a', 4]]))).toBeUndefined();
  });

  it('breaks ties between names of one rank by most events, then by name', () => {
    expect(pickRoleAttribute(tally([['a', 'team', 't', 1], ['b', 'Team', 'u', 2], ['c', 'Team', 'v', 1]]))).toMatchObject({ attribute: 'Team', events: 3, others: ['team'] });
    expect(pickRoleAttribute(tally([['a', 'team', 't', 2], ['b', 'Team', 'u', 2]]))?.attribute).toBe('Team');
  });

  it('reads the winning attribute only, and says which others the log has', () => {
    const doc = documentOf(
      wire([
        ['c1', 'a', { 'org:group': 'g1', 'org:role': 'clerk', team: 'blue' }],
        ['c1', 'b', { 'org:group': 'g2', team: 'red' }],
        ['c2', 'a', { 'org:group': 'g1', 'org:role': 'clerk' }],
        ['c2', 'b', { 'org:group': 'g2', 'org:role': 'manager' }],
      ]),
    );
    // org:group is on every event, org:role on 3 of 4: coverage picks org:group.
    expect(doc.roles).toEqual([
      { id: 'role-g1', name: 'g1', attribute: 'org:group', activities: ['a'], cases: 2 },
      { id: 'role-g2', name: 'g2', attribute: 'org:group', activities: ['b'], cases: 2 },
    ]);
    const text = roleAssumption(doc) as string;
    expect(text).toContain('Roles come from the org:group attribute');
    expect(text).toContain('4 of 4 events (100%) carry one');
    expect(text).toContain('The log also has org:role (on 3 events, 75%), team (on 2 events, 50%), not used: the attribute is picked by coverage');
  });
});

describe('roles from files', () => {
  it('CSV: a team column names the roles, the resource column does not', async () => {
    const dir = freshDir();
    const path = join(dir, 'log.csv');
    writeFileSync(
      path,
      [
        'case,activity,timestamp,resource,team,amount',
        'k1,register,2025-01-06T08:00:00Z,ann,Front,10',
        'k1,check,2025-01-06T09:00:00Z,bob,Back,10',
        'k1,pay,2025-01-06T10:00:00Z,cid,7,10',
        'k2,register,2025-01-06T08:00:00Z,ann,Front,20',
        'k2,check,2025-01-06T09:30:00Z,dan,Back,20',
        'k2,check,2025-01-06T11:00:00Z,dan,Back,20',
        'k3,register,2025-01-07T08:00:00Z,eve,,30',
      ].join('\n') + '\n',
    );
    const store = freshStore();
    await importLog(store, path);
    const doc = buildDocument(store.snapshot());
    expect(validateDocument(doc).ok).toBe(true);
    expect(doc.roles).toEqual([
      { id: 'role-back', name: 'Back', attribute: 'team', activities: ['check'], cases: 2 },
      { id: 'role-front', name: 'Front', attribute: 'team', activities: ['register'], cases: 2 },
      { id: 'role-7', name: '7', attribute: 'team', activities: ['pay'], cases: 1 },
    ]);
    expect(rolesOfNode(doc, 'register')).toEqual(['role-front']);
    expect(rolesOfNode(doc, 'pay')).toEqual(['role-7']);
    expect(roleAssumption(doc)).toContain('6 of 7 events (85.7%) carry one');
  });

  it('XES: org:group on events names the roles; a trace attribute group (case:group) does not', async () => {
    const dir = freshDir();
    const path = join(dir, 'log.xes');
    const ev = (name: string, group: string, t: string) =>
      `<event><string key="concept:name" value="${name}"/><string key="org:resource" value="res"/><string key="org:group" value="${group}"/><date key="time:timestamp" value="${t}"/></event>`;
    writeFileSync(
      path,
      [
        '<?xml version="1.0"?><log xes.version="1.0">',
        `<trace><string key="concept:name" value="t1"/><string key="group" value="Trace Group"/>${ev('A', 'Group 1', '2025-01-06T08:00:00Z')}${ev('B', 'Group 2', '2025-01-06T09:00:00Z')}</trace>`,
        `<trace><string key="concept:name" value="t2"/>${ev('A', 'Group 1', '2025-01-06T08:00:00Z')}${ev('B', 'Group 1', '2025-01-06T09:00:00Z')}${ev('B', 'Group 1', '2025-01-06T10:00:00Z')}</trace>`,
        '</log>',
      ].join('\n'),
    );
    const store = freshStore();
    await importLog(store, path);
    const doc = buildDocument(store.snapshot());
    expect(doc.roles).toEqual([
      { id: 'role-group-1', name: 'Group 1', attribute: 'org:group', activities: ['A', 'B'], cases: 2 },
      { id: 'role-group-2', name: 'Group 2', attribute: 'org:group', activities: ['B'], cases: 1 },
    ]);
    expect(rolesOfNode(doc, 'B')).toEqual(['role-group-1', 'role-group-2']);
  });
});

describe('without a role attribute', () => {
  const resourceLog = wire([
    ['c1', 'a', {}, 'r1'],
    ['c1', 'b', {}, 'r1'],
    ['c1', 'c', {}, 'r2'],
    ['c2', 'a', {}, 'r1'],
    ['c2', 'c', { 'case:group': 'not a role', grouping: 'nor this' }, 'r2'],
  ]);

  it('groups resources by activity profile as before', () => {
    const store = freshStore();
    const doc = documentOf(resourceLog, store);
    const snapshot = store.snapshot();
    expect(doc.roles).toEqual([
      { id: 'role-a', name: 'a + b (1 resource)', attribute: 'org:resource', activities: ['a', 'b'], cases: 2 },
      { id: 'role-c', name: 'c (1 resource)', attribute: 'org:resource', activities: ['c'], cases: 2 },
    ]);
    expect(doc.roles).toEqual(discoverRoles(snapshot.tally.resources, snapshot.tally.cases, 'org:resource').roles);
    expect(rolesOfNode(doc, 'b')).toEqual(['role-a']);
    expect(roleAssumption(doc)).toMatch(/^Roles come from the org:resource attribute \(placeholder values .*\): resources are grouped by their activity profile .*The log has no role, group or team attribute\.$/);
    expect(roleParts(snapshot.tally, 'Resource').roles.every((r) => r.attribute === 'Resource')).toBe(true);
  });

  it('has no roles when the log has neither a role attribute nor resources', () => {
    const doc = documentOf(wire([['c1', 'a', { 'org:group': '   ' }], ['c1', 'b', {}]]));
    expect(doc.roles).toEqual([]);
    expect(rolesOfNode(doc, 'a')).toEqual([]);
    expect(roleAssumption(doc)).toBe('The log has no role, group or team attribute and no resource attribute, so there are no roles.');
  });
});

describe('resources that are nobody', () => {
  it('leaves placeholder values and a value naming its only activity out of roles and separation policies', async () => {
    const { freshStore } = await import('../engine/helpers.js');
    const { buildDocument } = await import('../../engine/document/index.js');
    const store = freshStore();
    const records: object[] = [];
    for (let i = 0; i < 40; i++) {
      const t = Date.UTC(2024, 0, 1) + i * 86_400_000;
      const steps: [string, string][] = [
        ['Start', 'Start'],
        // 'nan' stands for a missing resource, at Register in even cases and at Approve in odd ones.
        ['Register', i % 2 ? 'ann' : 'nan'],
        ['Approve', i % 2 ? 'nan' : 'bob'],
        ['End', 'End'],
      ];
      steps.forEach(([activity, resource], j) => records.push({ caseId: `c${i}`, activity, resource, timestamp: new Date(t + j * 3_600_000).toISOString(), eventId: `c${i}-${j}` }));
    }
    store.apply({ records });
    const doc = buildDocument(store.snapshot());
    const members = doc.roles.map((r) => r.name).join(' | ');
    expect(members).not.toMatch(/nan|Start|End/);
    // Counted as a person, 'nan' shares Register and Approve yet never does both in a case: a separation of duties by chance.
    expect(doc.policies.filter((p) => p.kind === 'separation')).toEqual([]);
  });
});
