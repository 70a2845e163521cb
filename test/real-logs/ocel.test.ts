import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cmp, ProjectStore, recompute, splitKey, type Batch, type WireEvent } from '../../engine/index.js';
import { buildDocument } from '../../engine/document/index.js';
import { importLog } from '../../connectors/files/index.js';
import { detectOcel, openOcel } from '../../connectors/files/ocel/index.js';
import { typeShapes } from '../../connectors/files/ocel/case-notion.js';
import { logFacts, type LogFacts } from '../../connectors/files/ocel/flatten.js';
import { readOcel1Json, readOcel2Json } from '../../connectors/files/ocel/json-reader.js';
import { readOcel2Sqlite } from '../../connectors/files/ocel/sqlite-reader.js';
import { readOcel1Xml, readOcel2Xml } from '../../connectors/files/ocel/xml-reader.js';
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

  // The rule of case-notion.ts on each log: the type with one object per process execution touching the most
  // activities (the recruiting applications; the P2P purchase orders, the transport documents once the vessels that
  // carry many of them are set apart), else, where shared objects melt executions together, the type touching the most
  // activities from beginning to end (the order process's items, the example's orders).
  const ONE_PER = 'the most of the types with one object per execution (in ≥ 90% of executions and for ≥ 90% of their objects)';
  it.each([
    ['pm4py/ocel20_example.jsonocel', 'Purchase Order', 8, `one object per process execution (alone of its type in 2 of 2 executions, 100%), touching 3 of 8 activities, ${ONE_PER}`, '"Payment" single-event (median 1)'],
    ['pm4py/ocel20_example.xmlocel', 'Purchase Order', 8, `one object per process execution (alone of its type in 2 of 2 executions, 100%), touching 3 of 8 activities, ${ONE_PER}`, '"Payment" single-event (median 1)'],
    ['pm4py/ocel20_example.sqlite', 'Purchase Order', 8, `one object per process execution (alone of its type in 2 of 2 executions, 100%), touching 3 of 8 activities, ${ONE_PER}`, '"Payment" single-event (median 1)'],
    ['pm4py/example_log.jsonocel', 'order', 11, 'the type touching the most activities (8 of 15) whose objects mostly run from beginning to end (2 of 3, 67%)', 'alternatives: "element"'],
    ['pm4py/example_log.xmlocel', 'order', 11, 'the type touching the most activities (8 of 15) whose objects mostly run from beginning to end (2 of 3, 67%)', 'alternatives: "element"'],
    ['pm4py/recruiting-red.jsonocel', 'applications', 0, `one object per process execution (alone of its type in 916 of 916 executions, 100%), touching 12 of 12 activities, ${ONE_PER}`, 'alternatives: "offers" (alone in 15% of executions, 3 of 12 activities'],
    ['ocpa/p2p-normal.jsonocel', 'PURCHORD', 320, `one object per process execution (alone of its type in 80 of 80 executions, 100%), touching 5 of 9 activities, ${ONE_PER}`, '"MATERIAL" (alone in 0% of executions, 7 of 9 activities, 100% of objects from beginning to end)'],
    ['ocpa/order_process.jsonocel', 'item', 596, 'the type touching the most activities (8 of 11) whose objects mostly run from beginning to end (398 of 398, 100%)', '"order" (alone in 94% of executions, 4 of 11 activities'],
    [
      'ocpa/logistics.sqlite',
      'Transport Document',
      8127,
      `one object per process execution (alone of its type in 200 of 200 executions, 100%), touching 3 of 13 activities, ${ONE_PER}`,
      'set aside: "Vehicle" carries executions (78% of those holding one fall apart without it), "Customer Order" single-event (median 1), "Forklift" resource-like (3 objects, median 597 events), "Truck" resource-like (6 objects, median 529 events)',
    ],
  ])('%s: the default case notion is %s', async (file, type, withoutCase, numbers, aside) => {
    const source = await openOcel(join(realLogs!, file));
    const extra = source.extra() as Record<string, any>;
    expect(source.caseNotion).toBe(type);
    expect(extra.case_notion).toBe(type);
    expect(extra.case_notion_reason).toContain(`"${type}", ${numbers}`);
    expect(extra.case_notion_reason).toContain(aside);
    expect(extra.events_without_case_object).toBe(withoutCase);
    expect(source.eventsWithoutCase).toBe(withoutCase);
  });

  it('logistics.sqlite: relations to undeclared objects are counted, not loaded', async () => {
    const { extra, batches } = await load('ocpa/logistics.sqlite');
    // Handling units appear in event_object and object_object but not in the object table.
    expect(extra.dangling_relations).toEqual({ event_object: 5080, object_object: 2540 });
    expect(batches[0]!.objectRelations!.length).toBe(1420);
    expect(extra.case_notion).toBe('Transport Document');
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

/** The OCEL files of both manifests (the suite's and the one added for outside checks). */
function everyOcelFile(): string[] {
  return ['MANIFEST.tsv', 'MANIFEST-added.tsv'].flatMap((m) =>
    readFileSync(join(realLogs!, m), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split('\t'))
      .filter((c) => /ocel/.test(c[1]!))
      .map((c) => c[0]!),
  );
}

function readWhole(file: string): LogFacts {
  const path = join(realLogs!, file);
  const bytes = readFileSync(path);
  const text = () => bytes.toString('utf8').replace(/^\uFEFF/, '');
  const format = detectOcel(bytes.subarray(0, 65536), path);
  const log =
    format === 'ocel2-sqlite' ? readOcel2Sqlite(path) : format === 'ocel2-json' ? readOcel2Json(text()) : format === 'ocel1-json' ? readOcel1Json(text()) : format === 'ocel2-xml' ? readOcel2Xml(text()) : readOcel1Xml(text());
  return logFacts(log);
}

/**
 * Written apart from executions.ts, from the definition: objects linked through shared events and o2o relations,
 * the `apart` types linking nothing; per type, the executions holding exactly one of its objects (with events).
 */
function onePerExecution(facts: LogFacts, apart: Set<string>): { executions: number; types: Map<string, { single: number; objects: number }> } {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r)! !== r) r = parent.get(r)!;
    for (let y = x; y !== r; ) {
      const next = parent.get(y)!;
      parent.set(y, r);
      y = next;
    }
    return r;
  };
  const typeOf = new Map<string, string>();
  for (const refs of facts.related.values()) for (const o of refs) if (!parent.has(o.id)) (parent.set(o.id, o.id), typeOf.set(o.id, o.type));
  const join = (a: string, b: string) => parent.set(find(a), find(b));
  for (const refs of facts.related.values()) {
    const linking = refs.filter((o) => !apart.has(o.type));
    for (const o of linking.slice(1)) join(linking[0]!.id, o.id);
  }
  for (const r of facts.o2o) if (parent.has(r.fromId) && parent.has(r.toId) && !apart.has(typeOf.get(r.fromId)!) && !apart.has(typeOf.get(r.toId)!)) join(r.fromId, r.toId);
  const executions = new Set<string>();
  for (const refs of facts.related.values()) {
    const first = refs.find((o) => !apart.has(o.type));
    if (first) executions.add(find(first.id));
  }
  const perType = new Map<string, Map<string, number>>();
  for (const [id, type] of typeOf) {
    if (apart.has(type)) continue;
    const m = perType.get(type) ?? new Map<string, number>();
    m.set(find(id), (m.get(find(id)) ?? 0) + 1);
    perType.set(type, m);
  }
  const types = new Map([...perType].map(([type, m]) => [type, { single: [...m.values()].filter((n) => n === 1).length, objects: [...m.values()].reduce((a, b) => a + b, 0) }]));
  return { executions: executions.size, types };
}

describe.skipIf(!realLogs)('OCEL case notion and object types on every shared OCEL log', () => {
  const files = realLogs ? everyOcelFile() : [];
  const work = realLogs ? mkdtempSync(join(tmpdir(), 'pcg-real-ocel-')) : '';
  afterAll(() => work && rmSync(work, { recursive: true, force: true }));

  it('both manifests hold the twelve OCEL files', () => {
    expect(files.length).toBe(12);
  });

  it.each(files)('%s: the default touches the most activities of the types with one object per execution', async (file) => {
    const source = await openOcel(join(realLogs!, file));
    const facts = readWhole(file);
    const shapes = typeShapes(facts);
    const reason = source.caseNotionReason!;
    // The reason names the carriers it set apart; resource-like types link nothing (unless every type is one).
    const carriers = [...reason.matchAll(/"([^"]+)" carries executions/g)].map((m) => m[1]!);
    const resources = shapes.filter((s) => s.kind === 'resource-like').map((s) => s.type);
    const apart = new Set([...(resources.length < shapes.length ? resources : []), ...carriers]);
    const { executions, types } = onePerExecution(facts, apart);
    const activities = new Map(facts.objectTypes.map((t) => [t.type, t.activities.length]));
    const onePer = shapes
      .filter((s) => s.kind === 'case-like' && !carriers.includes(s.type))
      .map((s) => s.type)
      .filter((t) => executions >= 2 && types.has(t) && types.get(t)!.single >= 0.9 * executions && types.get(t)!.single >= 0.9 * types.get(t)!.objects);
    if (onePer.length === 0) {
      expect(reason).toMatch(/^default: (no type has one object per process execution|the objects form 1 process execution)/);
      return;
    }
    expect(onePer).toContain(source.caseNotion);
    expect(activities.get(source.caseNotion)).toBe(Math.max(...onePer.map((t) => activities.get(t)!)));
    expect(reason).toContain(`"${source.caseNotion}", one object per process execution (alone of its type in ${types.get(source.caseNotion)!.single} of ${executions} executions`);
  });

  it.each(files)('%s: every object type with events lists the activities that touch it, in the document as in the log', async (file) => {
    const facts = readWhole(file);
    // From the log's event-to-object relation, over every event.
    const touch = new Map<string, Set<string>>();
    for (const e of facts.events) for (const o of facts.related.get(e.id) ?? []) touch.set(o.type, (touch.get(o.type) ?? new Set()).add(e.type));
    const store = ProjectStore.open(join(work, `${file.replace(/\W/g, '_')}.sqlite`));
    try {
      await importLog(store, join(realLogs!, file));
      const doc = buildDocument(store.snapshot());
      for (const t of doc.object_types) expect({ type: t.name, activities: t.activities }).toEqual({ type: t.name, activities: [...(touch.get(t.name) ?? [])].sort(cmp) });
      for (const type of touch.keys()) expect(doc.object_types.find((t) => t.name === type)!.activities.length).toBeGreaterThan(0);
      for (const n of doc.nodes.filter((x) => x.kind === 'activity')) {
        expect({ activity: n.label, types: n.object_types }).toEqual({ activity: n.label, types: doc.object_types.filter((t) => t.activities.includes(n.label)).map((t) => t.name) });
      }
    } finally {
      store.close();
    }
  });
});
