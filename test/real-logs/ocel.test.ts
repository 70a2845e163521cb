import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recompute, splitKey, type Batch, type WireEvent } from '../../engine/index.js';
import { detectOcel, openOcel } from '../../connectors/files/ocel/index.js';
import type { ImportOptions } from '../../connectors/files/types.js';
import { realLogs, runPm4py } from '../tools/pm4py.js';
import { isOcel, manifestLogs } from './manifest.js';

/** The OCEL rows of both manifests: file, format, objects ("970 objects") and events. */
function manifestRows(): { file: string; format: string; objects: number; events: number }[] {
  return manifestLogs()
    .filter(isOcel)
    .map((r) => ({ file: r.file, format: r.format, objects: r.cases, events: r.events }));
}

const expectedFormat = (manifestFormat: string): string =>
  manifestFormat.startsWith('ocel2') ? manifestFormat : manifestFormat.startsWith('jsonocel') ? 'ocel1-json' : 'ocel1-xml';

async function load(file: string, options: ImportOptions = {}) {
  const source = await openOcel(join(realLogs!, file), options);
  const batches: Batch[] = [];
  for await (const b of source.batches()) batches.push(b);
  const records = batches.flatMap((b) => b.records as WireEvent[]);
  return { source, batches, records, extra: source.extra() as Record<string, any> };
}

// pm4py's flattening keeps the events' non-unique index, on which its get_variants
// mis-orders traces; a stable sort by case and time (what discover_dfg does inside) fixes that.
// One python run for every log: pm4py's import alone takes seconds.
const PM4PY_FLATTEN = `
import sys, json, pm4py
read = {'json': pm4py.read_ocel2_json, 'xml': pm4py.read_ocel2_xml, 'sqlite': pm4py.read_ocel2_sqlite, 'ocel1': pm4py.read_ocel}
result = {}
for arg in sys.argv[1:]:
    kind, path = arg.split(':', 1)
    ocel = read[kind](path)
    out = result[arg] = {'events': len(ocel.events), 'types': {}}
    for t in sorted(ocel.objects['ocel:type'].unique()):
        flat = pm4py.ocel_flattening(ocel, t).reset_index(drop=True)
        flat = flat.sort_values(['case:concept:name', 'time:timestamp'], kind='stable').reset_index(drop=True)
        dfg, sa, ea = pm4py.discover_dfg(flat)
        out['types'][t] = {
            'events': len(flat), 'cases': int(flat['case:concept:name'].nunique()),
            'dfg': sorted([a, b, int(n)] for (a, b), n in dfg.items()),
            'start': {k: int(v) for k, v in sa.items()}, 'end': {k: int(v) for k, v in ea.items()},
            'variants': len(pm4py.get_variants(flat)),
        }
print(json.dumps(result))
`;

// pm4py cannot read the ocpa OCEL 1.0 files (they lack ocel:global-event), so they are not compared.
const COMPARED: [string, string][] = [
  ['pm4py/ocel20_example.jsonocel', 'json'],
  ['pm4py/ocel20_example.xmlocel', 'xml'],
  ['pm4py/ocel20_example.sqlite', 'sqlite'],
  ['ocpa/logistics.sqlite', 'sqlite'],
  ['pm4py/example_log.jsonocel', 'ocel1'],
  ['pm4py/example_log.xmlocel', 'ocel1'],
  ['pm4py/recruiting-red.jsonocel', 'ocel1'],
  ['ocel-standard/ocel2_p2p.sqlite', 'sqlite'],
  ['ocpa/running-example.sqlite', 'sqlite'],
  ['ocelescope/pallet-logistics-v0.9.sqlite', 'sqlite'],
];

let pm4pyResults: Record<string, { events: number; types: Record<string, Pm4pyType> }> | undefined;
function pm4pyFlattening(file: string, kind: string) {
  if (!pm4pyResults) pm4pyResults = runPm4py<NonNullable<typeof pm4pyResults>>(PM4PY_FLATTEN, COMPARED.map(([f, k]) => `${k}:${join(realLogs!, f)}`));
  return pm4pyResults[`${kind}:${join(realLogs!, file)}`]!;
}

interface Pm4pyType {
  events: number;
  cases: number;
  dfg: [string, string, number][];
  start: Record<string, number>;
  end: Record<string, number>;
  variants: number;
}

describe.skipIf(!realLogs)('OCEL real logs', () => {
  const rows = realLogs ? manifestRows() : [];

  it('the manifest lists every OCEL form', () => {
    expect(rows.map((r) => r.file).sort()).toEqual([
      'ocel-standard/ocel2_p2p.sqlite',
      'ocelescope/pallet-logistics-v0.9.sqlite',
      'ocpa/logistics.sqlite',
      'ocpa/order_process.jsonocel',
      'ocpa/p2p-normal.jsonocel',
      'ocpa/running-example.sqlite',
      'pm4py/example_log.jsonocel',
      'pm4py/example_log.xmlocel',
      'pm4py/ocel20_example.jsonocel',
      'pm4py/ocel20_example.sqlite',
      'pm4py/ocel20_example.xmlocel',
      'pm4py/recruiting-red.jsonocel',
    ]);
  });

  it.each(rows)('$file: detected, loaded whole, counts as in the manifest', async (row) => {
    const head = readFileSync(join(realLogs!, row.file)).subarray(0, 65536);
    expect(detectOcel(head, join(realLogs!, row.file))).toBe(expectedFormat(row.format));
    const { extra, batches, records } = await load(row.file);
    // The manifest counts rows of the event and object lists (tables): distinct ids.
    expect(extra.ocel_events).toBe(row.events);
    expect(extra.ocel_objects).toBe(row.objects);
    expect(batches.flatMap((b) => b.rejected ?? [])).toEqual([]);
    expect(extra.events_with_bad_time).toBe(0);
    // Every event with an object of the case type is there, once per such object.
    const caseType = extra.case_notion as string;
    const t = (extra.object_types as { type: string; events: number }[]).find((x) => x.type === caseType)!;
    // An event id is `<ordinal>:<event id>[:<case>]`, and ids may hold ':' themselves (P2P: 'event:52'): one ordinal per event.
    expect(new Set(records.map((r) => r.eventId!.split(':')[0])).size).toBe(t.events);
    expect(t.events + extra.events_without_case_object).toBe(row.events);
  });

  // The case an analyst would take on each log: the recruiting applications, the order process's items (orders
  // are next), the logistics containers rather than the forklifts and trucks that touch thousands of events each.
  it.each([
    ['pm4py/ocel20_example.jsonocel', 'Invoice', 4, '9 of 13 events (69%) over 3 objects, 3 with 2+ events, median 2 events per object', '"Payment" single-event (median 1)'],
    ['pm4py/ocel20_example.xmlocel', 'Invoice', 4, '9 of 13 events (69%) over 3 objects, 3 with 2+ events, median 2 events per object', '"Payment" single-event (median 1)'],
    ['pm4py/ocel20_example.sqlite', 'Invoice', 4, '9 of 13 events (69%) over 3 objects, 3 with 2+ events, median 2 events per object', '"Payment" single-event (median 1)'],
    ['pm4py/example_log.jsonocel', 'order', 11, '12 of 23 events (52%) over 3 objects, 3 with 2+ events, median 4 events per object', 'next case-like "element" with 10 events'],
    ['pm4py/example_log.xmlocel', 'order', 11, '12 of 23 events (52%) over 3 objects, 3 with 2+ events, median 4 events per object', 'next case-like "element" with 10 events'],
    ['pm4py/recruiting-red.jsonocel', 'applications', 0, '6607 of 6607 events (100%) over 916 objects, 916 with 2+ events, median 7 events per object', 'next case-like "offers" with 270 events'],
    ['ocpa/p2p-normal.jsonocel', 'MATERIAL', 160, '560 of 720 events (78%) over 414 objects, 414 with 2+ events, median 7 events per object', 'next case-like "PURCHORD" with 400 events'],
    ['ocpa/order_process.jsonocel', 'item', 596, '1795 of 2391 events (75%) over 398 objects, 398 with 2+ events, median 8 events per object', 'next case-like "delivery" with 796 events'],
    [
      'ocpa/logistics.sqlite',
      'Container',
      3391,
      '5336 of 8727 events (61%) over 510 objects, 510 with 2+ events, median 11 events per object',
      'set aside: "Customer Order" single-event (median 1), "Forklift" resource-like (3 objects, median 597 events), "Truck" resource-like (6 objects, median 529 events)',
    ],
  ])('%s: the default case notion is %s', async (file, type, withoutCase, numbers, aside) => {
    const source = await openOcel(join(realLogs!, file));
    const extra = source.extra() as Record<string, any>;
    expect(source.caseNotion).toBe(type);
    expect(extra.case_notion).toBe(type);
    expect(extra.case_notion_reason).toContain(`default: "${type}", the case-like type relating to the most events: ${numbers}`);
    expect(extra.case_notion_reason).toContain(aside);
    expect(extra.events_without_case_object).toBe(withoutCase);
    expect(source.eventsWithoutCase).toBe(withoutCase);
  });

  it('logistics.sqlite: relations to undeclared objects are counted, not loaded', async () => {
    const { extra, batches } = await load('ocpa/logistics.sqlite');
    // Handling units appear in event_object and object_object but not in the object table.
    expect(extra.dangling_relations).toEqual({ event_object: 5080, object_object: 2540 });
    expect(batches[0]!.objectRelations!.length).toBe(1420);
    expect(extra.case_notion).toBe('Container');
  });

  it('ocel20_example: JSON, XML and SQLite flatten identically on every object type', async () => {
    // The XML and SQLite forms write the same instants as zone-less Amsterdam wall-clock time.
    for (const type of ['Invoice', 'Payment', 'Purchase Order', 'Purchase Requisition']) {
      const json = await load('pm4py/ocel20_example.jsonocel', { caseNotion: type });
      const xml = await load('pm4py/ocel20_example.xmlocel', { caseNotion: type, timezone: 'Europe/Amsterdam' });
      const sqlite = await load('pm4py/ocel20_example.sqlite', { caseNotion: type, timezone: 'Europe/Amsterdam' });
      expect(json.records.length).toBeGreaterThan(0);
      expect(xml.records).toEqual(json.records);
      expect(sqlite.records).toEqual(json.records);
      expect(xml.extra).toEqual({ ...json.extra, format: 'ocel2-xml' });
      expect(sqlite.extra).toEqual({ ...json.extra, format: 'ocel2-sqlite' });
      expect(sqlite.batches[0]!.objectRelations).toEqual(json.batches[0]!.objectRelations);
      expect(xml.batches[0]!.objectRelations).toEqual(json.batches[0]!.objectRelations);
      expect(sqlite.batches[0]!.objects).toEqual(json.batches[0]!.objects);
      expect(xml.batches[0]!.objects).toEqual(json.batches[0]!.objects);
    }
  });

  it.each(COMPARED)('%s: flattened on each object type, directly-follows and variants equal pm4py', async (file, kind) => {
    const expected = pm4pyFlattening(file, kind);
    const types = Object.keys(expected.types);
    const { extra } = await load(file);
    // Object types no event touches have no flattening; pm4py may not list them (ocpa's running example: its 20 products).
    expect(types).toEqual((extra.object_types as { type: string; events: number }[]).filter((t) => t.events > 0).map((t) => t.type));
    expect(expected.events).toBe(extra.ocel_events - extra.events_without_objects);
    for (const type of types) {
      const want = expected.types[type]!;
      const { records } = await load(file, { caseNotion: type });
      const tally = recompute(records);
      const dfg: [string, string, number][] = [];
      const start: Record<string, number> = {};
      const end: Record<string, number> = {};
      for (const [key, e] of tally.edges) {
        const [from, to] = splitKey(key);
        if (from === '') start[to] = e.events;
        else if (to === '') end[from] = e.events;
        else dfg.push([from, to, e.events]);
      }
      dfg.sort((a, b) => (a[0] + '\u0000' + a[1] < b[0] + '\u0000' + b[1] ? -1 : 1));
      const got = { events: tally.events, cases: tally.cases, dfg, start, end, variants: tally.variants.size };
      expect({ type, ...got }).toEqual({ type, ...want, dfg: [...want.dfg].sort((a, b) => (a[0] + '\u0000' + a[1] < b[0] + '\u0000' + b[1] ? -1 : 1)) });
    }
  });
});
