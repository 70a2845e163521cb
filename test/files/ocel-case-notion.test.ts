import { describe, expect, it } from 'vitest';
import type { WireEvent } from '../../engine/index.js';
import { importLog } from '../../connectors/files/index.js';
import { openOcel } from '../../connectors/files/ocel/index.js';
import { typeShapes } from '../../connectors/files/ocel/case-notion.js';
import { logFacts } from '../../connectors/files/ocel/flatten.js';
import { readOcel2Json } from '../../connectors/files/ocel/json-reader.js';
import type { ImportOptions } from '../../connectors/files/types.js';
import { scratch } from './helpers.js';
import { ocelJson, p2pLog, shippingLog, shopLog } from './ocel-logs.js';

async function load(path: string, options: ImportOptions = {}) {
  const source = await openOcel(path, options);
  const records: WireEvent[] = [];
  for await (const b of source.batches()) records.push(...(b.records as WireEvent[]));
  return { source, records, extra: source.extra() as Record<string, any> };
}

const RULE = 'executions = objects linked through shared events and object-to-object relations';
const BEGIN_END = 'from beginning to end = first event in the first third of the activity order, last event in its last third';

describe('the default OCEL case notion', () => {
  it('is the type with one object per execution touching the most activities, not the busiest type', async () => {
    const s = scratch();
    const { source, records, extra } = await load(s.file('p2p.jsonocel', p2pLog()));
    expect(source.caseNotion).toBe('requisition');
    expect(source.caseNotionReason).toBe(
      'default: "requisition", one object per process execution (alone of its type in 6 of 6 executions, 100%), touching 3 of 7 activities, ' +
        'the most of the types with one object per execution (in ≥ 90% of executions and for ≥ 90% of their objects); ' +
        `${RULE}; ${BEGIN_END}; ` +
        'alternatives: "receipt" (alone in 0% of executions, 3 of 7 activities, 0% of objects from beginning to end), ' +
        '"order" (alone in 100% of executions, 2 of 7 activities, 0% of objects from beginning to end), ' +
        '"invoice" (alone in 100% of executions, 2 of 7 activities, 0% of objects from beginning to end); ' +
        'set aside: "material" single-event (median 1)',
    );
    expect(extra.case_notion_reason).toBe(source.caseNotionReason);
    // Each requisition's three events; the other six of each execution relate to no requisition.
    expect(records.length).toBe(18);
    expect(source.eventsWithoutCase).toBe(36);
    expect(records.slice(0, 3).map((r) => `${r.caseId}:${r.activity}`)).toEqual(['r1:create requisition', 'r1:approve requisition', 'r1:create order']);
  });

  it('lists every type with the activities that touch it over the whole log, whatever the case notion', async () => {
    const s = scratch();
    const path = s.file('p2p.jsonocel', p2pLog());
    const whole = {
      invoice: ['create invoice', 'pay'],
      material: ['create requisition'],
      order: ['create order', 'receive goods'],
      receipt: ['create invoice', 'inspect goods', 'receive goods'],
      requisition: ['approve requisition', 'create order', 'create requisition'],
    };
    for (const caseNotion of [undefined, 'receipt', 'material']) {
      const { source, extra } = await load(path, { caseNotion });
      expect(source.objectTypeActivities).toEqual(whole);
      expect(extra.object_types.map((t: { type: string; activities: string[] }) => [t.type, t.activities])).toEqual(Object.entries(whole));
    }
  });

  it('sets aside a resource-like type that touches every event, and a single-event type', async () => {
    const s = scratch();
    const text = shopLog();
    expect(typeShapes(logFacts(readOcel2Json(text)))).toEqual([
      { type: 'Clerk', objects: 1, events: 40, spanning: 1, median: 40, kind: 'resource-like' },
      { type: 'Invoice', objects: 12, events: 12, spanning: 0, median: 1, kind: 'single-event' },
      { type: 'Order', objects: 12, events: 36, spanning: 12, median: 3, kind: 'case-like' },
    ]);
    const { source, records, extra } = await load(s.file('shop.jsonocel', text));
    // Had the clerk linked, the twelve orders would be one execution.
    expect(source.caseNotion).toBe('Order');
    expect(source.caseNotionReason).toBe(
      'default: "Order", one object per process execution (alone of its type in 12 of 12 executions, 100%), touching 3 of 4 activities, ' +
        'the most of the types with one object per execution (in ≥ 90% of executions and for ≥ 90% of their objects); ' +
        `${RULE} (resource-like types and carriers linking nothing); ${BEGIN_END}; ` +
        'set aside: "Clerk" resource-like (1 object, median 40 events), "Invoice" single-event (median 1)',
    );
    // The four clock-ins have no order.
    expect(source.eventsWithoutCase).toBe(4);
    expect(extra.events_without_case_object).toBe(4);
    expect(records.length).toBe(36);
    expect(records.slice(0, 3).map((r) => `${r.caseId}:${r.activity}`)).toEqual(['o1:create', 'o1:pay', 'o1:ship']);
  });

  it('sets aside a type that carries several executions, and forms them again without it', async () => {
    const s = scratch();
    const { source } = await load(s.file('ship.jsonocel', shippingLog()));
    expect(source.caseNotion).toBe('document');
    expect(source.caseNotionReason).toBe(
      'default: "document", one object per process execution (alone of its type in 12 of 12 executions, 100%), touching 2 of 5 activities, ' +
        'the most of the types with one object per execution (in ≥ 90% of executions and for ≥ 90% of their objects); ' +
        `${RULE} (resource-like types and carriers linking nothing); ${BEGIN_END}; ` +
        'alternatives: "container" (alone in 0% of executions, 3 of 5 activities, 0% of objects from beginning to end); ' +
        'set aside: "vessel" carries executions (100% of those holding one fall apart without it)',
    );
  });

  it('when shared objects melt executions together, takes the type touching the most activities from beginning to end', async () => {
    const s = scratch();
    // Two picking waves, each picking the items of three orders: two executions of three orders each.
    const objects: Record<string, string> = { w1: 'wave', w2: 'wave' };
    const events: [string, ...string[]][] = [];
    for (let o = 1; o <= 6; o++) {
      Object.assign(objects, { [`o${o}`]: 'order', [`i${o}a`]: 'item', [`i${o}b`]: 'item' });
      events.push(['place', `o${o}`, `i${o}a`, `i${o}b`]);
    }
    for (const [wave, orders] of [['w1', [1, 2, 3]], ['w2', [4, 5, 6]]] as const) events.push(['pick', wave, ...orders.flatMap((o) => [`i${o}a`, `i${o}b`])]);
    for (let o = 1; o <= 6; o++) events.push(['ship', `o${o}`], ['bill', `o${o}`]);
    const { source } = await load(s.file('waves.jsonocel', ocelJson(objects, events)));
    expect(source.caseNotion).toBe('order');
    expect(source.caseNotionReason).toBe(
      'default: no type has one object per process execution (in ≥ 90% of the 2 executions and for ≥ 90% of its objects), so "order", ' +
        'the type touching the most activities (3 of 4) whose objects mostly run from beginning to end (6 of 6, 100%); ' +
        `${RULE}; ${BEGIN_END}; ` +
        'alternatives: "item" (alone in 0% of executions, 2 of 4 activities, 0% of objects from beginning to end); ' +
        'set aside: "wave" single-event (median 1)',
    );
  });

  it('ties in activities go to more objects from beginning to end, then more events, then the name', async () => {
    const s = scratch();
    const log = (name: string, one: [string, ...string[]][]) => {
      const objects: Record<string, string> = {};
      const events: [string, ...string[]][] = [];
      for (let x = 1; x <= 4; x++) {
        Object.assign(objects, { [`a${x}`]: 'A', [`b${x}`]: 'B' });
        for (const [activity, ...types] of one) events.push([activity, ...types.map((t) => `${t.toLowerCase()}${x}`)]);
      }
      return s.file(`${name}.jsonocel`, ocelJson(objects, events));
    };
    // A runs open → close; B stops at 'log', in the middle of the order.
    const spans = await load(log('spans', [['open', 'A', 'B'], ['check', 'B'], ['note', 'B'], ['log', 'B'], ['work', 'A'], ['archive', 'A'], ['close', 'A']]));
    expect(spans.source.caseNotion).toBe('A');
    expect(spans.source.caseNotionReason).toContain('touching 4 of 7 activities, the most of the types with one object per execution (in ≥ 90% of executions and for ≥ 90% of their objects) (tie with "B" broken by objects from beginning to end)');
    // B has one event fewer.
    const events = await load(log('events', [['open', 'A', 'B'], ['step', 'A'], ['step', 'B'], ['step', 'A'], ['close', 'A', 'B']]));
    expect(events.source.caseNotion).toBe('A');
    expect(events.source.caseNotionReason).toContain('(tie with "B" broken by events: 16 against 12)');
    const same = await load(log('same', [['open', 'A', 'B'], ['step', 'A', 'B'], ['close', 'A', 'B']]));
    expect(same.source.caseNotion).toBe('A');
    expect(same.source.caseNotionReason).toContain('(tie with "B" broken by name)');
  });

  it('--case-notion still wins', async () => {
    const s = scratch();
    const { source, records, extra } = await load(s.file('shop.jsonocel', shopLog()), { caseNotion: 'Clerk' });
    expect(source.caseNotion).toBe('Clerk');
    expect(extra.case_notion_reason).toBe('chosen by option; its 1 object relates to 40 of 40 events (100%)');
    expect(extra.events_without_case_object).toBe(0);
    expect(new Set(records.map((r) => r.caseId))).toEqual(new Set(['k1']));
    expect(records.length).toBe(40);
  });

  it('with no case-like type and one execution, takes the type touching the most activities and says so', async () => {
    const s = scratch();
    const text = ocelJson({ o1: 'Order', k1: 'Clerk' }, [['create', 'o1', 'k1'], ['check', 'o1', 'k1'], ['approve', 'o1'], ['ship', 'o1', 'k1'], ['close', 'o1']]);
    const { source, extra } = await load(s.file('one.jsonocel', text));
    expect(source.caseNotion).toBe('Order');
    // Both types are resource-like here, so both link: one execution.
    expect(extra.case_notion_reason).toBe(
      'default: the objects form 1 process execution, too few to find a type with one object per execution, so "Order", ' +
        'the type touching the most activities (5 of 5); no type\'s objects mostly run from beginning to end; ' +
        `${RULE}; ${BEGIN_END}; ` +
        'set aside: "Clerk" resource-like (1 object, median 3 events), "Order" resource-like (1 object, median 5 events)',
    );
  });

  it('an import records the notion, its reason, the events left out and every type\'s activities in the meta, and a later CSV import replaces them', async () => {
    const s = scratch();
    const store = s.store();
    const summary = await importLog(store, s.file('shop.jsonocel', shopLog()));
    expect(summary).toMatchObject({ format: 'ocel2-json', case_notion: 'Order', accepted: 36, cases: 12, events: 36 });
    expect(store.getMeta('case_notion')).toBe('Order');
    expect(store.getMeta('case_notion_reason')).toMatch(/^default: "Order", one object per process execution \(alone of its type in 12 of 12 executions, 100%\)/);
    expect(store.getMeta('events_without_case_object')).toBe('4');
    expect(JSON.parse(store.getMeta('object_type_activities')!)).toEqual({ Clerk: ['clock in', 'create', 'pay', 'ship'], Invoice: ['pay'], Order: ['create', 'pay', 'ship'] });
    await importLog(store, s.file('more.csv', 'CaseID,ActivityID,CompleteTimestamp\n9,1,2024-02-01 10:00:00\n'));
    expect(store.getMeta('case_notion')).toBe('CaseID');
    expect(store.getMeta('case_notion_reason')).toBe('column "CaseID" found by its name');
    expect(store.getMeta('events_without_case_object')).toBe('0');
    expect(store.getMeta('object_type_activities')).toBe('');
  });
});
