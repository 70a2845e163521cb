import { describe, expect, it } from 'vitest';
import { buildDocument, validateDocument, workingSnapshot } from '../../engine/document/index.js';
import { parseCalendar } from '../../engine/calendar.js';
import { tallyToJson, type WireEvent } from '../../engine/index.js';
import { freshStore } from '../engine/helpers.js';

const H = 3_600_000;
const T0 = Date.UTC(2025, 0, 6, 8); // Monday 08:00 UTC

/** [case, activity, hours after T0, resource] */
function wire(rows: [string, string, number, string][]): WireEvent[] {
  return rows.map(([caseId, activity, h, resource], i) => ({ caseId, activity, timestamp: T0 + h * H, resource, eventId: `e${String(i).padStart(3, '0')}` }));
}

const smallLog = wire([
  ['c1', 'a', 0, 'r1'],
  ['c1', 'b', 1, 'r1'],
  ['c1', 'c', 3, 'r2'],
  ['c2', 'a', 0, 'r1'],
  ['c2', 'c', 2, 'r2'],
  ['c3', 'a', 0, 'r1'],
  ['c3', 'b', 1, 'r1'],
  ['c3', 'b', 2, 'r1'],
  ['c3', 'c', 4, 'r2'],
]);

/** The sketch reports a value within 1% of the true one. */
const near = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(expected * 0.0101 + 1e-9);

describe('buildDocument on a hand-computed log', () => {
  it('counts source, nodes, edges, variants, model and roles field by field', () => {
    const store = freshStore();
    store.apply({ records: smallLog });
    const doc = buildDocument(store.snapshot());
    expect(validateDocument(doc)).toEqual({ ok: true, problems: [] });

    expect(doc.source).toEqual({
      data_version: '1',
      log_digest: store.snapshot().logDigest,
      case_notion: 'case id',
      cases: 3,
      events: 9,
      period_start: '2025-01-06T08:00:00.000Z',
      period_end: '2025-01-06T12:00:00.000Z',
      time_basis: 'clock',
    });

    const node = (id: string) => doc.nodes.find((n) => n.id === id)!;
    expect(doc.nodes.map((n) => n.id)).toEqual(['start', 'a', 'b', 'c', 'end']);
    expect(node('start')).toMatchObject({ kind: 'start', label: 'start', cases: 3, events: 0, cases_repeating: 0, median_hours_to_next: 0 });
    expect(node('a')).toMatchObject({ kind: 'activity', label: 'a', cases: 3, events: 3, cases_repeating: 0, roles: ['role-a'], object_types: [] });
    expect(node('b')).toMatchObject({ cases: 2, events: 3, cases_repeating: 1, roles: ['role-a'] });
    expect(node('c')).toMatchObject({ cases: 3, events: 3, cases_repeating: 0, median_hours_to_next: 0, roles: ['role-c'] });
    near(node('a').median_hours_to_next, 1); // waits 1, 2, 1
    near(node('b').median_hours_to_next, 2); // waits 2, 1, 2
    expect(node('a').evidence).toMatchObject({ cases: 3, of_cases: 3, share: 1, strength: 'counted' });
    expect(node('b').evidence.share).toBeCloseTo(2 / 3, 12);

    const edges = Object.fromEntries(doc.edges.map((e) => [e.id, e]));
    expect(Object.keys(edges)).toEqual(['start->a', 'a->b', 'a->c', 'b->b', 'b->c', 'c->end']);
    expect(edges['start->a']).toMatchObject({ from: 'start', to: 'a', kind: 'normal', cases: 3, share_of_from: 1, median_wait_hours: 0, slow_wait_hours: 0 });
    expect(edges['a->b']).toMatchObject({ cases: 2 });
    expect(edges['a->b']!.share_of_from).toBeCloseTo(2 / 3, 12);
    expect(edges['a->c']!.share_of_from).toBeCloseTo(1 / 3, 12);
    expect(edges['b->b']).toMatchObject({ cases: 1, share_of_from: 0.5 });
    expect(edges['b->c']).toMatchObject({ cases: 2, share_of_from: 1 });
    expect(edges['c->end']).toMatchObject({ from: 'c', to: 'end', cases: 3, share_of_from: 1 });
    near(edges['a->b']!.median_wait_hours, 1);
    near(edges['a->c']!.slow_wait_hours, 2);
    near(edges['b->c']!.median_wait_hours, 2);
    expect(edges['b->c']!.evidence.method).toMatch(/waits as the assumptions define them/);
    expect(doc.assumptions.join('\n')).toMatch(/to that event's recorded start when the log has one/);

    expect(doc.variants.map((v) => [v.path, v.class, v.cases])).toEqual([
      // Three cases, three paths: each has a path of its own, so none is main.
      [['a', 'b', 'b', 'c'], 'allowed', 1],
      [['a', 'b', 'c'], 'allowed', 1],
      [['a', 'c'], 'allowed', 1],
    ]);
    expect(new Set(doc.variants.map((v) => v.id)).size).toBe(3);
    expect(doc.model).toEqual({ process_tree: "->( 'a', X( tau, *( 'b', tau ) ), 'c' )", cases_it_accepts: 1 });

    expect(doc.roles).toEqual([
      { id: 'role-a', name: 'a + b (1 resource)', attribute: 'org:resource', activities: ['a', 'b'], cases: 3 },
      { id: 'role-c', name: 'c (1 resource)', attribute: 'org:resource', activities: ['c'], cases: 3 },
    ]);
    expect(doc.object_types).toEqual([]);
    expect(doc.object_relations).toEqual([]);
    expect(Object.keys(doc.evidence_levels)).toEqual(['counted', 'strong', 'moderate', 'weak', 'hypothesis']);
    expect(doc.assumptions.some((a) => typeof a === 'object' && !Array.isArray(a) && 'precision' in a)).toBe(true);
  });

  it('is deterministic and follows the data version', () => {
    const store = freshStore();
    store.apply({ records: smallLog.slice(0, 5) });
    const first = buildDocument(store.snapshot());
    expect(buildDocument(store.snapshot())).toEqual(first);
    store.apply({ records: smallLog.slice(5) });
    const second = buildDocument(store.snapshot());
    expect(second.source.data_version).toBe('2');
    expect(second.source.log_digest).not.toBe(first.source.log_digest);
    expect(second.source.cases).toBe(3);
  });

  it('reads object types and relations of object-centric events', () => {
    const store = freshStore();
    store.apply({
      records: [
        { caseId: 'o1', activity: 'create', timestamp: T0, objects: [{ id: 'o1', type: 'order' }, { id: 'i1', type: 'item' }, { id: 'i2', type: 'item' }] },
        { caseId: 'o1', activity: 'ship', timestamp: T0 + H, objects: [{ id: 'o1', type: 'order' }] },
      ],
      objectRelations: [{ fromId: 'o1', toId: 'i1', qualifier: 'contains' }, { fromId: 'o1', toId: 'i2', qualifier: 'contains' }],
    });
    const doc = buildDocument(store.snapshot(), { caseNotion: 'order' });
    expect(validateDocument(doc).ok).toBe(true);
    expect(doc.source.case_notion).toBe('order');
    expect(doc.object_types).toEqual([
      { id: 'ot-item', name: 'item', count: 2, activities: ['create'] },
      { id: 'ot-order', name: 'order', count: 1, activities: ['create', 'ship'] },
    ]);
    expect(doc.object_relations).toEqual([{ from_type: 'order', to_type: 'item', qualifier: 'contains', count: 2 }]);
    expect(doc.nodes.find((n) => n.label === 'create')!.object_types).toEqual(['item', 'order']);
    expect(doc.roles).toEqual([]);
  });

  it('gives a valid document for an empty project', () => {
    const store = freshStore();
    const doc = buildDocument(store.snapshot());
    expect(validateDocument(doc)).toEqual({ ok: true, problems: [] });
    expect(doc.nodes.map((n) => n.id)).toEqual(['start', 'end']);
    expect(doc.edges).toEqual([]);
    expect(doc.model).toEqual({ process_tree: 'tau', cases_it_accepts: 0 });
    expect(doc.source.period_start).toBe('');
  });

  it('counts working hours only on the working time basis', () => {
    const store = freshStore();
    // Friday 16:00 -> Monday 10:00 UTC: 66 clock hours, 2 working hours on a 9-17 calendar.
    const fri = Date.UTC(2025, 0, 10, 16);
    store.apply({ records: [{ caseId: 'x', activity: 'ask', timestamp: fri }, { caseId: 'x', activity: 'answer', timestamp: fri + 66 * H }] });
    const clock = buildDocument(store.snapshot());
    near(clock.edges.find((e) => e.id === 'ask->answer')!.median_wait_hours, 66);
    const working = buildDocument(workingSnapshot(store, parseCalendar({})), { timeBasis: 'working' });
    expect(working.source.time_basis).toBe('working');
    near(working.edges.find((e) => e.id === 'ask->answer')!.median_wait_hours, 2);
    near(working.nodes.find((n) => n.label === 'ask')!.median_hours_to_next, 2);
    expect(validateDocument(working).ok).toBe(true);
    expect(() => buildDocument(store.snapshot(), { timeBasis: 'working' })).toThrow(/workingSnapshot/);
  });

  it('recounts to the stored tally when every hour is a working hour', () => {
    const store = freshStore();
    store.apply({ records: smallLog });
    const always = parseCalendar({ days: [1, 2, 3, 4, 5, 6, 7], hours: [{ from: '00:00', to: '24:00' }] });
    expect(tallyToJson(workingSnapshot(store, always).tally)).toEqual(tallyToJson(store.snapshot().tally));
  });
});
