import { describe, expect, it } from 'vitest';
import type { WireEvent } from '../../engine/index.js';
import { importLog } from '../../connectors/files/index.js';
import { openOcel } from '../../connectors/files/ocel/index.js';
import { typeShapes } from '../../connectors/files/ocel/case-notion.js';
import { logFacts } from '../../connectors/files/ocel/flatten.js';
import { readOcel2Json } from '../../connectors/files/ocel/json-reader.js';
import type { ImportOptions } from '../../connectors/files/types.js';
import { scratch } from './helpers.js';

/** An OCEL 2.0 JSON log: objects by id → type; events as [activity, ...object ids], an hour apart. */
function ocelJson(objects: Record<string, string>, events: [string, ...string[]][]): string {
  const typesOf = (names: string[]) => [...new Set(names)].sort().map((name) => ({ name, attributes: [] }));
  return JSON.stringify({
    objectTypes: typesOf(Object.values(objects)),
    eventTypes: typesOf(events.map((e) => e[0])),
    objects: Object.entries(objects).map(([id, type]) => ({ id, type, attributes: [] })),
    events: events.map(([type, ...ids], i) => ({
      id: `e${i + 1}`,
      type,
      time: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
      attributes: [],
      relationships: ids.map((objectId) => ({ objectId, qualifier: '' })),
    })),
  });
}

/**
 * Twelve orders of three steps each, all handled by one clerk who also
 * clocks in four times, and one invoice per payment: the clerk relates to
 * every event, so "most events" alone would take the clerk for the case.
 */
function shopLog(): string {
  const objects: Record<string, string> = { k1: 'Clerk' };
  const events: [string, ...string[]][] = [];
  for (let i = 0; i < 4; i++) events.push(['clock in', 'k1']);
  for (let o = 1; o <= 12; o++) {
    objects[`o${o}`] = 'Order';
    objects[`v${o}`] = 'Invoice';
    events.push(['create', `o${o}`, 'k1'], ['pay', `o${o}`, `v${o}`, 'k1'], ['ship', `o${o}`, 'k1']);
  }
  return ocelJson(objects, events);
}

async function load(path: string, options: ImportOptions = {}) {
  const source = await openOcel(path, options);
  const records: WireEvent[] = [];
  for await (const b of source.batches()) records.push(...(b.records as WireEvent[]));
  return { source, records, extra: source.extra() as Record<string, any> };
}

describe('the default OCEL case notion', () => {
  it('sets aside a resource-like type that touches every event, and a single-event type', async () => {
    const s = scratch();
    const text = shopLog();
    expect(typeShapes(logFacts(readOcel2Json(text)))).toEqual([
      { type: 'Clerk', objects: 1, events: 40, spanning: 1, median: 40, kind: 'resource-like' },
      { type: 'Invoice', objects: 12, events: 12, spanning: 0, median: 1, kind: 'single-event' },
      { type: 'Order', objects: 12, events: 36, spanning: 12, median: 3, kind: 'case-like' },
    ]);
    const { source, records, extra } = await load(s.file('shop.jsonocel', text));
    expect(source.caseNotion).toBe('Order');
    expect(source.caseNotionReason).toBe(
      'default: "Order", the case-like type relating to the most events: 36 of 40 events (90%) over 12 objects, 12 with 2+ events, median 3 events per object; ' +
        'case-like = a median of 2 or more events per object (a beginning and an end) and not resource-like (fewer than √40 ≈ 6.3 objects with a median above 6.3 events); ' +
        'set aside: "Clerk" resource-like (1 object, median 40 events), "Invoice" single-event (median 1)',
    );
    expect(extra.case_notion_reason).toBe(source.caseNotionReason);
    // The four clock-ins have no order.
    expect(source.eventsWithoutCase).toBe(4);
    expect(extra.events_without_case_object).toBe(4);
    expect(records.length).toBe(36);
    expect(records.slice(0, 3).map((r) => `${r.caseId}:${r.activity}`)).toEqual(['o1:create', 'o1:pay', 'o1:ship']);
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

  it('with no case-like type, takes the type relating to the most events and says so', async () => {
    const s = scratch();
    const text = ocelJson({ o1: 'Order', k1: 'Clerk' }, [['create', 'o1', 'k1'], ['check', 'o1', 'k1'], ['approve', 'o1'], ['ship', 'o1', 'k1'], ['close', 'o1']]);
    const { source, extra } = await load(s.file('one.jsonocel', text));
    expect(source.caseNotion).toBe('Order');
    expect(extra.case_notion_reason).toBe(
      'default: no type is case-like (case-like = a median of 2 or more events per object (a beginning and an end) and not resource-like (fewer than √5 ≈ 2.2 objects with a median above 2.2 events)), ' +
        'so "Order", the type relating to the most events: 5 of 5 events (100%) over 1 object, 1 with 2+ events, median 5 events per object; next "Clerk" with 3 events; ' +
        'set aside: "Clerk" resource-like (1 object, median 3 events)',
    );
  });

  it('ties in events go to more objects with 2+ events, then more objects, then the name', async () => {
    const s = scratch();
    // Four events; A's two objects hold two each (median 2, not fewer than √4 objects: case-like).
    const pairs: [string, ...string[]][] = [['a', 'x1'], ['b', 'x1'], ['c', 'x2'], ['d', 'x2']];
    const log = (other: string, extra: Record<string, string[]>) => {
      const objects: Record<string, string> = { x1: 'A', x2: 'A' };
      for (const id of Object.keys(extra)) objects[id] = other;
      const events = pairs.map(([act, x], i) => [act, x, ...Object.keys(extra).filter((id) => extra[id]!.includes(`e${i + 1}`))] as [string, ...string[]]);
      return s.file(`${other}.jsonocel`, ocelJson(objects, events));
    };
    // B: three objects with 2+ events against A's two.
    const b = await load(log('B', { b1: ['e1', 'e2'], b2: ['e3', 'e4'], b3: ['e1', 'e2', 'e3', 'e4'] }));
    expect(b.source.caseNotion).toBe('B');
    expect(b.extra.case_notion_reason).toContain('4 of 4 events (100%) over 3 objects, 3 with 2+ events, median 2 events per object (tie broken by objects with 2+ events)');
    // E: the same two pairs plus an object without events.
    const e = await load(log('E', { y1: ['e1', 'e2'], y2: ['e3', 'e4'], y3: [] }));
    expect(e.source.caseNotion).toBe('E');
    expect(e.extra.case_notion_reason).toContain('over 3 objects, 2 with 2+ events, median 2 events per object (tie broken by object count)');
    // D: a copy of A.
    const d = await load(log('D', { d1: ['e1', 'e2'], d2: ['e3', 'e4'] }));
    expect(d.source.caseNotion).toBe('A');
    expect(d.extra.case_notion_reason).toContain('(tie broken by name); case-like = ');
    expect(d.extra.case_notion_reason).toContain('next case-like "D" with 4 events');
  });

  it('an import records the notion, its reason and the events left out in the meta, and a later CSV import replaces them', async () => {
    const s = scratch();
    const store = s.store();
    const summary = await importLog(store, s.file('shop.jsonocel', shopLog()));
    expect(summary).toMatchObject({ format: 'ocel2-json', case_notion: 'Order', accepted: 36, cases: 12, events: 36 });
    expect(store.getMeta('case_notion')).toBe('Order');
    expect(store.getMeta('case_notion_reason')).toMatch(/^default: "Order", the case-like type relating to the most events: 36 of 40 events \(90%\) over 12 objects/);
    expect(store.getMeta('events_without_case_object')).toBe('4');
    await importLog(store, s.file('more.csv', 'CaseID,ActivityID,CompleteTimestamp\n9,1,2024-02-01 10:00:00\n'));
    expect(store.getMeta('case_notion')).toBe('CaseID');
    expect(store.getMeta('case_notion_reason')).toBe('column "CaseID" found by its name');
    expect(store.getMeta('events_without_case_object')).toBe('0');
  });
});
