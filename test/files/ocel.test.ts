import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ProjectStore, type Batch, type WireEvent } from '../../engine/index.js';
import { detectOcel, openOcel, OcelError } from '../../connectors/files/ocel/index.js';
import type { ImportOptions } from '../../connectors/files/types.js';

/** One small log, written below in every OCEL form; the forms must read back the same. */
interface Spec {
  objects: { id: string; type: string; rel?: [string, string][] }[];
  events: { id: string; type: string; time: string; attrs?: Record<string, string | number | boolean>; rel: [string, string][] }[];
}

const ATTR_TYPES: Record<string, string> = { amount: 'float', items: 'integer', express: 'boolean', clerk: 'string' };

const SPEC: Spec = {
  objects: [
    { id: 'o1', type: 'Order', rel: [['i1', 'contains'], ['i2', 'contains']] },
    { id: 'o2', type: 'Order', rel: [['i3', 'contains']] },
    { id: 'i1', type: 'Item' },
    { id: 'i2', type: 'Item' },
    { id: 'i3', type: 'Item' },
    { id: 'p1', type: 'Package', rel: [['o1', 'ships'], ['o2', 'ships']] },
  ],
  events: [
    { id: 'e1', type: 'place order', time: '2024-03-01T09:00:00', attrs: { amount: 12.5, items: 2, express: true, clerk: 'Ann' }, rel: [['o1', 'order'], ['i1', 'item'], ['i2', 'item']] },
    { id: 'e2', type: 'place order', time: '2024-03-01T10:00:00', attrs: { amount: 3, items: 1, express: false, clerk: 'Bob' }, rel: [['o2', 'order'], ['i3', 'item']] },
    { id: 'e3', type: 'pick item', time: '2024-03-02T08:00:00', rel: [['i1', 'picked']] },
    { id: 'e4', type: 'pick item', time: '2024-03-02T08:00:00', rel: [['i2', 'picked']] },
    { id: 'e5', type: 'pick item', time: '2024-03-02T09:00:00', rel: [['i3', 'picked']] },
    { id: 'e6', type: 'pack', time: '2024-03-03T12:00:00', rel: [['p1', 'packed into'], ['i1', 'packed'], ['i2', 'packed'], ['i3', 'packed'], ['o1', 'for'], ['o2', 'for']] },
    { id: 'e7', type: 'ship', time: '2024-03-04T07:30:00', rel: [['p1', 'shipped'], ['o1', 'for'], ['o2', 'for']] },
    { id: 'e8', type: 'confirm payment', time: '2024-03-05T00:00:00', rel: [['o1', 'paid'], ['o1', 'confirmed']] },
  ],
};

const dir = mkdtempSync(join(tmpdir(), 'pcg-ocel-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
const write = (name: string, content: string | Buffer) => {
  const path = join(dir, `${++fileNo}-${name}`);
  writeFileSync(path, content);
  return path;
};
const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const types = (spec: Spec, of: 'objects' | 'events') => [...new Set(spec[of].map((x) => x.type))].sort();

function ocel2Json(spec: Spec): string {
  return JSON.stringify({
    objectTypes: types(spec, 'objects').map((name) => ({ name, attributes: [] })),
    eventTypes: types(spec, 'events').map((name) => ({ name, attributes: Object.entries(ATTR_TYPES).map(([n, type]) => ({ name: n, type })) })),
    objects: spec.objects.map((o) => ({ id: o.id, type: o.type, attributes: [], relationships: (o.rel ?? []).map(([objectId, qualifier]) => ({ objectId, qualifier })) })),
    events: spec.events.map((e) => ({
      id: e.id,
      type: e.type,
      time: `${e.time}Z`,
      attributes: Object.entries(e.attrs ?? {}).map(([name, value]) => ({ name, value })),
      relationships: e.rel.map(([objectId, qualifier]) => ({ objectId, qualifier })),
    })),
  }, null, 1);
}

function ocel2Xml(spec: Spec): string {
  const rel = (r: [string, string][] | undefined) => `<objects>${(r ?? []).map(([id, q]) => `<relationship object-id="${xmlEscape(id)}" qualifier="${xmlEscape(q)}"/>`).join('')}</objects>`;
  const attrDecl = Object.entries(ATTR_TYPES).map(([n, t]) => `<attribute name="${n}" type="${t}"/>`).join('');
  return [
    `<?xml version='1.0' encoding='UTF-8'?>`,
    '<!-- written by the test -->',
    '<log>',
    `<object-types>${types(spec, 'objects').map((t) => `<object-type name="${t}"><attributes/></object-type>`).join('\n')}</object-types>`,
    `<event-types>${types(spec, 'events').map((t) => `<event-type name="${t}"><attributes>${attrDecl}</attributes></event-type>`).join('\n')}</event-types>`,
    '<objects>',
    ...spec.objects.map((o) => `  <object id="${o.id}" type="${o.type}"><attributes/>${rel(o.rel)}</object>`),
    '</objects>',
    '<events>',
    ...spec.events.map(
      (e) =>
        `  <event id="${e.id}" type="${xmlEscape(e.type)}" time="${e.time}">\n    <attributes>${Object.entries(e.attrs ?? {})
          .map(([n, v]) => `<attribute name="${n}">${xmlEscape(String(v))}</attribute>`)
          .join('')}</attributes>\n    ${rel(e.rel)}\n  </event>`,
    ),
    '</events>',
    '</log>',
  ].join('\n');
}

function ocel2Sqlite(spec: Spec, options: { skip?: string[] } = {}): string {
  const path = join(dir, `${++fileNo}-log.sqlite`);
  const db = new Database(path);
  const mapName = (t: string) => t.replace(/[^A-Za-z0-9]/g, '');
  const create = (sql: string) => options.skip?.some((t) => sql.startsWith(`CREATE TABLE "${t}"`)) || db.exec(sql);
  create('CREATE TABLE "event_map_type" (ocel_type TEXT PRIMARY KEY, ocel_type_map TEXT)');
  create('CREATE TABLE "object_map_type" (ocel_type TEXT PRIMARY KEY, ocel_type_map TEXT)');
  create('CREATE TABLE "event" (ocel_id TEXT PRIMARY KEY, ocel_type TEXT)');
  create('CREATE TABLE "object" (ocel_id TEXT PRIMARY KEY, ocel_type TEXT)');
  create('CREATE TABLE "event_object" (ocel_event_id TEXT, ocel_object_id TEXT, ocel_qualifier TEXT)');
  create('CREATE TABLE "object_object" (ocel_source_id TEXT, ocel_target_id TEXT, ocel_qualifier TEXT)');
  const has = (t: string) => !options.skip?.includes(t);
  for (const t of types(spec, 'events')) {
    if (has('event_map_type')) db.prepare('INSERT INTO event_map_type VALUES (?, ?)').run(t, mapName(t));
    create(`CREATE TABLE "event_${mapName(t)}" (ocel_id TEXT, ocel_time TIMESTAMP, amount REAL, items INTEGER, express BOOLEAN, clerk TEXT)`);
  }
  for (const t of types(spec, 'objects')) {
    if (has('object_map_type')) db.prepare('INSERT INTO object_map_type VALUES (?, ?)').run(t, mapName(t));
    create(`CREATE TABLE "object_${mapName(t)}" (ocel_id TEXT, ocel_time TIMESTAMP)`);
  }
  for (const o of spec.objects) {
    if (has('object')) db.prepare('INSERT INTO object VALUES (?, ?)').run(o.id, o.type);
    for (const [to, q] of o.rel ?? []) if (has('object_object')) db.prepare('INSERT INTO object_object VALUES (?, ?, ?)').run(o.id, to, q);
  }
  for (const e of spec.events) {
    if (has('event')) db.prepare('INSERT INTO event VALUES (?, ?)').run(e.id, e.type);
    const a = e.attrs ?? {};
    if (has(`event_${mapName(e.type)}`)) {
      db.prepare(`INSERT INTO "event_${mapName(e.type)}" VALUES (?, ?, ?, ?, ?, ?)`).run(
        e.id,
        e.time.replace('T', ' '),
        a.amount ?? null,
        a.items ?? null,
        a.express === undefined ? null : a.express ? 1 : 0,
        a.clerk ?? null,
      );
    }
    for (const [to, q] of e.rel) if (has('event_object')) db.prepare('INSERT INTO event_object VALUES (?, ?, ?)').run(e.id, to, q);
  }
  db.close();
  return path;
}

function ocel1Json(spec: Spec, objectsFirst = false): string {
  const objects = { 'ocel:objects': Object.fromEntries(spec.objects.map((o) => [o.id, { 'ocel:type': o.type, 'ocel:ovmap': {} }])) };
  return JSON.stringify({
    'ocel:global-event': { 'ocel:activity': '__INVALID__' },
    'ocel:global-log': { 'ocel:attribute-names': Object.keys(ATTR_TYPES), 'ocel:object-types': types(spec, 'objects'), 'ocel:version': '1.0' },
    ...(objectsFirst ? objects : {}),
    'ocel:events': Object.fromEntries(
      spec.events.map((e) => [e.id, { 'ocel:activity': e.type, 'ocel:timestamp': e.time, 'ocel:omap': [...new Set(e.rel.map((r) => r[0]))], 'ocel:vmap': e.attrs ?? {} }]),
    ),
    ...objects,
  });
}

function ocel1Xml(spec: Spec): string {
  const typed = (k: string, v: string | number | boolean) =>
    `<${typeof v === 'boolean' ? 'boolean' : typeof v === 'number' ? (Number.isInteger(v) && ATTR_TYPES[k] === 'integer' ? 'int' : 'float') : 'string'} key="${k}" value="${xmlEscape(String(v))}"/>`;
  return [
    `<?xml version='1.0' encoding='UTF-8'?>`,
    '<log>',
    '<global scope="event"><string key="ocel:activity" value="__INVALID__"/></global>',
    '<global scope="object"><string key="ocel:type" value="__INVALID__"/></global>',
    '<events>',
    ...spec.events.map(
      (e) =>
        `<event><string key="id" value="${e.id}"/><date key="timestamp" value="${e.time}"/><string key="activity" value="${xmlEscape(e.type)}"/>` +
        `<list key="omap">${[...new Set(e.rel.map((r) => r[0]))].map((id) => `<string key="object-id" value="${id}"/>`).join('')}</list>` +
        `<list key="vmap">${Object.entries(e.attrs ?? {}).map(([k, v]) => typed(k, v)).join('')}</list></event>`,
    ),
    '</events>',
    '<objects>',
    ...spec.objects.map((o) => `<object><string key="id" value="${o.id}"/><string key="type" value="${o.type}"/><list key="ovmap"/></object>`),
    '</objects>',
    '</log>',
  ].join('\n');
}

async function load(path: string, options: ImportOptions = {}) {
  const source = await openOcel(path, options);
  const batches: Batch[] = [];
  for await (const b of source.batches()) batches.push(b);
  return { source, batches, records: batches.flatMap((b) => b.records as WireEvent[]), extra: source.extra() as Record<string, any> };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OcelError);
    return (error as OcelError).code;
  }
  return 'no error';
}

const FORMS2 = {
  json: () => write('log.jsonocel', ocel2Json(SPEC)),
  xml: () => write('log.xmlocel', ocel2Xml(SPEC)),
  sqlite: () => ocel2Sqlite(SPEC),
};

describe('OCEL format detection', () => {
  it('tells every form apart by content, whatever the file name', () => {
    const head = (p: string) => readFileSync(p).subarray(0, 65536);
    const json2 = write('a.txt', ocel2Json(SPEC));
    const xml2 = write('b.txt', ocel2Xml(SPEC));
    const sqlite = ocel2Sqlite(SPEC);
    const json1 = write('c.txt', ocel1Json(SPEC));
    const xml1 = write('d.txt', ocel1Xml(SPEC));
    expect([json2, xml2, sqlite, json1, xml1].map((p) => detectOcel(head(p), p))).toEqual(['ocel2-json', 'ocel2-xml', 'ocel2-sqlite', 'ocel1-json', 'ocel1-xml']);
  });

  it('says no to XES, CSV, NDJSON, other JSON, other SQLite, binary and empty files', () => {
    const xes = '<?xml version="1.0"?>\n<log xes.version="1.0"><global scope="trace"><string key="concept:name" value=""/></global><trace></trace></log>';
    const other = join(dir, 'other.sqlite');
    const db = new Database(other);
    db.exec('CREATE TABLE event (id TEXT)');
    db.close();
    const cases: [Buffer, string][] = [
      [Buffer.from(xes), 'x.xes'],
      [Buffer.from('case,activity,time\n1,a,2024-01-01\n'), 'x.csv'],
      [Buffer.from('{"caseId":"1","activity":"a","timestamp":"2024-01-01"}\n'), 'x.ndjson'],
      [Buffer.from('{"events": [], "other": 1}'), 'x.json'],
      [readFileSync(other).subarray(0, 65536), other],
      [Buffer.from([0, 1, 2, 3, 255, 254]), 'x.bin'],
      [Buffer.alloc(0), 'empty'],
    ];
    expect(cases.map(([h, p]) => detectOcel(h, p))).toEqual(cases.map(() => undefined));
  });
});

describe('OCEL 2.0 in its three forms', () => {
  it('JSON, XML and SQLite of one log give the same flattened batches and facts', async () => {
    const results = await Promise.all(Object.values(FORMS2).map((make) => load(make(), { caseNotion: 'Order' })));
    const [json, xml, sqlite] = results;
    expect(json!.records.length).toBe(7);
    for (const other of [xml!, sqlite!]) {
      expect(other.records).toEqual(json!.records);
      expect(other.batches[0]!.objects).toEqual(json!.batches[0]!.objects);
      expect(other.batches[0]!.objectRelations).toEqual(json!.batches[0]!.objectRelations);
      expect({ ...other.extra, format: '' }).toEqual({ ...json!.extra, format: '' });
    }
    expect(results.map((r) => r.source.format)).toEqual(['ocel2-json', 'ocel2-xml', 'ocel2-sqlite']);
  });

  it('flattens on the case type: activity, time, typed attributes and every related object with its qualifier', async () => {
    const { records } = await load(FORMS2.json(), { caseNotion: 'Order' });
    expect(records[0]).toEqual({
      caseId: 'o1',
      activity: 'place order',
      timestamp: Date.UTC(2024, 2, 1, 9),
      eventId: '0000000000:e1',
      attributes: { amount: 12.5, items: 2, express: true, clerk: 'Ann' },
      objects: [
        { id: 'i1', type: 'Item', qualifier: 'item' },
        { id: 'i2', type: 'Item', qualifier: 'item' },
        { id: 'o1', type: 'Order', qualifier: 'order' },
      ],
    });
    // The same object under two qualifiers: one case event, both relations kept.
    const e8 = records.filter((r) => r.eventId!.endsWith(':e8'));
    expect(e8.map((r) => [r.caseId, r.objects])).toEqual([
      ['o1', [{ id: 'o1', type: 'Order', qualifier: 'confirmed' }, { id: 'o1', type: 'Order', qualifier: 'paid' }]],
    ]);
  });

  it('an event with two objects of the case type lands in both cases under distinct ids', async () => {
    const { records, extra } = await load(FORMS2.xml(), { caseNotion: 'Order' });
    expect(records.filter((r) => /:e[67]/.test(r.eventId!)).map((r) => [r.caseId, r.activity, r.eventId])).toEqual([
      ['o1', 'pack', '0000000005:e6:o1'],
      ['o2', 'pack', '0000000005:e6:o2'],
      ['o1', 'ship', '0000000006:e7:o1'],
      ['o2', 'ship', '0000000006:e7:o2'],
    ]);
    expect(new Set(records.map((r) => r.eventId)).size).toBe(records.length);
    expect(extra.case_notion_reason).toBe('chosen by option; its 2 objects relate to 5 of 8 events (63%)');
    // e3, e4, e5 touch items only.
    expect(extra.events_without_case_object).toBe(3);
    expect(extra.events_without_objects).toBe(0);
    expect(extra.ocel_events).toBe(8);
  });

  it('reports object types with counts and activities, and object-to-object relations by type and qualifier', async () => {
    const { extra, batches } = await load(FORMS2.sqlite());
    expect(extra.object_types).toEqual([
      { type: 'Item', count: 3, events: 6, activities: ['pack', 'pick item', 'place order'] },
      { type: 'Order', count: 2, events: 5, activities: ['confirm payment', 'pack', 'place order', 'ship'] },
      { type: 'Package', count: 1, events: 2, activities: ['pack', 'ship'] },
    ]);
    expect(extra.object_relations).toEqual([
      { from_type: 'Order', to_type: 'Item', qualifier: 'contains', count: 3 },
      { from_type: 'Package', to_type: 'Order', qualifier: 'ships', count: 2 },
    ]);
    expect(batches[0]!.objectRelations).toEqual([
      { fromId: 'o1', toId: 'i1', qualifier: 'contains' },
      { fromId: 'o1', toId: 'i2', qualifier: 'contains' },
      { fromId: 'o2', toId: 'i3', qualifier: 'contains' },
      { fromId: 'p1', toId: 'o1', qualifier: 'ships' },
      { fromId: 'p1', toId: 'o2', qualifier: 'ships' },
    ]);
  });

  it('the default case notion follows the rule of case-notion.ts, and says why', async () => {
    const { source, extra, records } = await load(FORMS2.json());
    expect(source.caseNotion).toBe('Item');
    expect(extra.case_notion).toBe('Item');
    // In 8 events, 2 orders of 4 and 3 events (median 3.5 > √8) read as a handful of long-lived objects, so they link
    // nothing; the package joins every item into one execution, too few to tell a type with one object per execution.
    expect(extra.case_notion_reason).toBe(
      'default: the objects form 1 process execution, too few to find a type with one object per execution, so "Item", ' +
        "the case-like type touching the most activities (3 of 5); no type's objects mostly run from beginning to end; " +
        'executions = objects linked through shared events and object-to-object relations (resource-like types and carriers linking nothing); ' +
        'from beginning to end = first event in the first third of the activity order, last event in its last third; ' +
        'alternatives: "Package" (alone in 100% of executions, 2 of 5 activities, 0% of objects from beginning to end); ' +
        'set aside: "Order" resource-like (2 objects, median 3.5 events)',
    );
    expect(extra.events_without_case_object).toBe(2);
    expect(records.map((r) => `${r.caseId}:${r.activity}`)).toEqual([
      'i1:place order', 'i2:place order', 'i3:place order', 'i1:pick item', 'i2:pick item', 'i3:pick item', 'i1:pack', 'i2:pack', 'i3:pack',
    ]);
  });

  it('events at the same time keep the order of the log inside a case, not the order of their ids', async () => {
    const spec: Spec = {
      objects: [{ id: 'i1', type: 'Item' }],
      events: [
        { id: 'e9', type: 'pick', time: '2024-01-01T08:00:00', rel: [['i1', '']] },
        { id: 'e10', type: 'label', time: '2024-01-01T08:00:00', rel: [['i1', '']] },
        { id: 'e1', type: 'create', time: '2024-01-01T07:00:00', rel: [['i1', '']] },
      ],
    };
    const store = ProjectStore.open(join(dir, `${++fileNo}-tie.sqlite`));
    const { batches } = await load(write('ties.jsonocel', ocel2Json(spec)));
    store.apply(batches[0]!);
    expect([...store.events()].map((e) => e.activity)).toEqual(['create', 'pick', 'label']);
    store.close();
  });

  it('reads a zone-less time in the zone asked for', async () => {
    const path = FORMS2.xml();
    const utc = await load(path, { caseNotion: 'Order' });
    const amsterdam = await load(path, { caseNotion: 'Order', timezone: 'Europe/Amsterdam' });
    expect(utc.records[0]!.timestamp).toBe(Date.UTC(2024, 2, 1, 9));
    expect(amsterdam.records[0]!.timestamp).toBe(Date.UTC(2024, 2, 1, 8));
    // Times that name their zone are not moved.
    const json = await load(FORMS2.json(), { caseNotion: 'Order', timezone: 'Europe/Amsterdam' });
    expect(json.records[0]!.timestamp).toBe(Date.UTC(2024, 2, 1, 9));
    expect(await codeOf(openOcel(path, { timezone: 'Mars/Olympus' }))).toBe('ocel_bad_option');
  });

  it('loads into a project store: cases, events, object counts and relations', async () => {
    const { source, batches } = await load(FORMS2.sqlite(), { caseNotion: 'Order', batchSize: 3 });
    expect(batches.map((b) => b.records.length)).toEqual([3, 3, 1]);
    expect(batches.slice(1).every((b) => b.objects === undefined && b.objectRelations === undefined)).toBe(true);
    const store = ProjectStore.open(join(dir, `${++fileNo}-project.sqlite`));
    batches.forEach((b, i) => store.apply(b, { source: source.sourceId, partition: 0, offset: i + 1 }));
    // A second import of the same file changes nothing.
    const again = await load(FORMS2.sqlite(), { caseNotion: 'Order', batchSize: 3 });
    expect(again.source.sourceId).toBe(source.sourceId);
    expect(again.batches.map((b, i) => store.apply(b, { source: again.source.sourceId, partition: 0, offset: i + 1 }).applied)).toEqual([false, false, false]);
    const snap = store.snapshot();
    expect(snap.tally.cases).toBe(2);
    expect(snap.tally.events).toBe(7);
    expect([...snap.tally.variants.entries()].sort()).toEqual([
      ['["place order","pack","ship","confirm payment"]', 1],
      ['["place order","pack","ship"]', 1],
    ]);
    expect([...snap.objectCounts]).toEqual([['Item', 3], ['Order', 2], ['Package', 1]]);
    expect(snap.objectRelations).toEqual([
      { fromType: 'Order', toType: 'Item', qualifier: 'contains', count: 3 },
      { fromType: 'Package', toType: 'Order', qualifier: 'ships', count: 2 },
    ]);
    expect(snap.rejected).toBe(0);
    store.close();
  });

  it('XML entities, character references, CDATA, comments and a DOCTYPE read as text', async () => {
    const xml = `<?xml version="1.0"?>
<!DOCTYPE log [ <!ELEMENT log ANY> ]>
<log>
  <object-types><object-type name="R&amp;D"><attributes/></object-type></object-types>
  <event-types><event-type name="a &lt;b&gt;"><attributes><attribute name="note" type="string"/></attributes></event-type></event-types>
  <objects><object id="x&#49;" type="R&amp;D"/></objects>
  <!-- <event id="ghost" type="no" time="2024-01-01T00:00:00"/> -->
  <events>
    <event id="e1" type="a &lt;b&gt;" time="2024-01-01T00:00:00Z">
      <attributes><attribute name="note"><![CDATA[5 < 6 & "so" on]]></attribute></attributes>
      <objects><relationship object-id="x&#x31;" qualifier="it&apos;s"/></objects>
    </event>
  </events>
</log>`;
    const { records, extra } = await load(write('entities.xmlocel', xml));
    expect(extra.ocel_events).toBe(1);
    expect(records).toEqual([
      {
        caseId: 'x1',
        activity: 'a <b>',
        timestamp: Date.UTC(2024, 0, 1),
        eventId: '0000000000:e1',
        attributes: { note: '5 < 6 & "so" on' },
        objects: [{ id: 'x1', type: 'R&D', qualifier: "it's" }],
      },
    ]);
  });

  it('a gzipped JSON or XML file reads like the plain one', async () => {
    const plain = await load(FORMS2.json(), { caseNotion: 'Order' });
    const gz = await load(write('log.jsonocel.gz', gzipSync(ocel2Json(SPEC))), { caseNotion: 'Order' });
    expect(gz.records).toEqual(plain.records);
  });
});

describe('OCEL 1.0', () => {
  it('JSON and XML give the same flattening, without qualifiers or object relations', async () => {
    const json = await load(write('log1.jsonocel', ocel1Json(SPEC)), { caseNotion: 'Order' });
    const xml = await load(write('log1.xmlocel', ocel1Xml(SPEC)), { caseNotion: 'Order' });
    expect(json.source.format).toBe('ocel1-json');
    expect(xml.source.format).toBe('ocel1-xml');
    expect(xml.records).toEqual(json.records);
    expect(json.records.map((r) => `${r.caseId}:${r.activity}`)).toEqual(['o1:place order', 'o2:place order', 'o1:pack', 'o2:pack', 'o1:ship', 'o2:ship', 'o1:confirm payment']);
    expect(json.records[0]).toEqual({
      caseId: 'o1',
      activity: 'place order',
      timestamp: Date.UTC(2024, 2, 1, 9),
      eventId: '0000000000:e1',
      attributes: { amount: 12.5, items: 2, express: true, clerk: 'Ann' },
      objects: [{ id: 'i1', type: 'Item' }, { id: 'i2', type: 'Item' }, { id: 'o1', type: 'Order' }],
    });
    expect(json.batches[0]!.objectRelations).toEqual([]);
    expect(json.extra.object_relations).toEqual([]);
    expect(json.extra.object_types.map((t: { type: string; count: number }) => [t.type, t.count])).toEqual([['Item', 3], ['Order', 2], ['Package', 1]]);
  });
});

describe('OCEL errors', () => {
  it('truncated JSON keeps every complete event and reports the cut with its line', async () => {
    const text = ocel2Json(SPEC);
    const cut = text.indexOf('"id": "e6"') + 5;
    for (const [format, body] of [['ocel2-json', text.slice(0, cut)], ['ocel1-json', ocel1Json(SPEC, true).slice(0, ocel1Json(SPEC, true).indexOf('"e6"') + 30)]] as const) {
      const path = write('cut.jsonocel', body);
      expect(detectOcel(readFileSync(path), path)).toBe(format);
      const { records, batches, extra } = await load(path, { caseNotion: 'Item' });
      expect(extra.ocel_events).toBe(5);
      expect(records.map((r) => r.eventId!.split(':')[1])).toEqual(['e1', 'e1', 'e2', 'e3', 'e4', 'e5']);
      expect(batches[0]!.rejected).toEqual([
        { location: `line ${body.split('\n').length}`, reason: 'JSON: the input ends early: the file looks truncated; what came before is kept', payload: '' },
      ]);
    }
  });

  it('JSON broken before any complete event fails with ocel_malformed and says where', async () => {
    const text = ocel2Json(SPEC);
    const early = write('early.jsonocel', text.slice(0, text.indexOf('"events"') + 30));
    const error = await openOcel(early, { format: 'ocel2-json' }).catch((e: unknown) => e as OcelError);
    expect((error as OcelError).code).toBe('ocel_malformed');
    expect((error as OcelError).message).toMatch(/^JSON: the input ends early: the file looks truncated \(line \d+\), before any complete event$/);
    const garbled = write('garbled.jsonocel', '{"objectTypes": [}, "events": []}');
    const second = await openOcel(garbled, { format: 'ocel2-json' }).catch((e: unknown) => e as OcelError);
    expect((second as OcelError).message).toBe('JSON: unexpected "}" (line 1), before any complete event');
    // OCEL 1.0 may list the objects after the events: a cut among the events leaves none.
    const late = write('late.jsonocel', ocel1Json(SPEC).slice(0, ocel1Json(SPEC).indexOf('"e6"') + 30));
    const third = await openOcel(late, {}).catch((e: unknown) => e as OcelError);
    expect((third as OcelError).message).toBe('JSON: the input ends early: the file looks truncated (line 1), before the objects (this file lists them after the events)');
    expect(await codeOf(openOcel(write('list.json', '[1, 2]'), { format: 'ocel1-json' }))).toBe('ocel_not_ocel');
  });

  it('truncated XML keeps every complete event and reports the cut with its line', async () => {
    const text = ocel2Xml(SPEC);
    const cut = text.indexOf('<event id="e6"') + 40;
    const path = write('cut.xmlocel', text.slice(0, cut));
    expect(detectOcel(readFileSync(path), path)).toBe('ocel2-xml');
    const { records, batches, extra } = await load(path, { caseNotion: 'Item' });
    expect(extra.ocel_events).toBe(5);
    expect(records.map((r) => r.eventId!.split(':')[1])).toEqual(['e1', 'e1', 'e2', 'e3', 'e4', 'e5']);
    expect(batches[0]!.rejected).toEqual([{ location: `line ${text.slice(0, cut).split('\n').length}`, reason: 'XML: input ends inside <event>; what came before is kept', payload: '' }]);
  });

  it('at every cut point, a truncated JSON or XML file either fails with a code or keeps only whole, unchanged events', async () => {
    for (const [name, text] of [['cut.jsonocel', ocel2Json(SPEC)], ['cut.xmlocel', ocel2Xml(SPEC)]] as const) {
      const full = new Map((await load(write(name, text), { caseNotion: 'Item' })).records.map((r) => [r.eventId, r]));
      let kept = 0;
      for (let at = 1; at < text.length; at += 17) {
        const path = write(name, text.slice(0, at));
        try {
          const { records, batches } = await load(path, { caseNotion: 'Item', format: name.includes('json') ? 'ocel2-json' : 'ocel2-xml' });
          for (const r of records) expect(r).toEqual(full.get(r.eventId));
          expect(batches[0]!.rejected!.length).toBe(1);
          kept++;
        } catch (error) {
          expect(error).toBeInstanceOf(OcelError);
        }
      }
      expect(kept).toBeGreaterThan(10);
    }
  });

  it('XML that is not OCEL or not XML fails with a code', async () => {
    expect(await codeOf(openOcel(write('x.xml', '<root><a/></root>'), { format: 'ocel2-xml' }))).toBe('ocel_not_ocel');
    expect(await codeOf(openOcel(write('y.xml', '<log <<'), { format: 'ocel2-xml' }))).toBe('ocel_malformed');
    expect(await codeOf(openOcel(write('z.txt', 'just text'), {}))).toBe('ocel_not_ocel');
  });

  it('a SQLite file without the OCEL tables fails with ocel_missing_table', async () => {
    const path = ocel2Sqlite(SPEC, { skip: ['event_object'] });
    const error = await openOcel(path, { format: 'ocel2-sqlite' }).catch((e: unknown) => e as OcelError);
    expect((error as OcelError).code).toBe('ocel_missing_table');
    expect((error as OcelError).message).toBe('SQLite: missing OCEL 2.0 table event_object');
    // Detection does not take it for OCEL at all.
    expect(detectOcel(readFileSync(path), path)).toBeUndefined();
  });

  it('a missing per-type table leaves out that type only, and says so', async () => {
    const { records, batches, extra } = await load(ocel2Sqlite(SPEC, { skip: ['event_ship'] }), { caseNotion: 'Order' });
    expect(records.map((r) => r.activity)).toEqual(['place order', 'place order', 'pack', 'pack', 'confirm payment']);
    expect(batches[0]!.rejected).toEqual([{ location: 'table event_ship', reason: 'missing: the events of type "ship" have no time and are left out', payload: '' }]);
    expect(extra.ocel_events).toBe(7);
  });

  it('a damaged SQLite file fails with ocel_malformed', async () => {
    const good = readFileSync(ocel2Sqlite(SPEC));
    const path = write('broken.sqlite', Buffer.concat([good.subarray(0, 100), Buffer.alloc(4000, 7)]));
    expect(await codeOf(openOcel(path, { format: 'ocel2-sqlite' }))).toBe('ocel_malformed');
  });

  it('a bad time rejects its event with its id; everything else is kept', async () => {
    const spec: Spec = { ...SPEC, events: SPEC.events.map((e) => (e.id === 'e7' ? { ...e, time: '2024-13-45T99:00:00' } : e)) };
    for (const path of [write('bad.jsonocel', ocel2Json(spec).replace('2024-13-45T99:00:00Z', 'yesterday')), write('bad.xmlocel', ocel2Xml(spec)), ocel2Sqlite(spec)]) {
      const { records, batches, extra } = await load(path, { caseNotion: 'Order' });
      expect(records.map((r) => r.activity)).toEqual(['place order', 'place order', 'pack', 'pack', 'confirm payment']);
      const rejected = batches[0]!.rejected!;
      expect(rejected.map((r) => [r.location, r.reason.replace(/".*"/, '"…"')])).toEqual([['event e7', 'unreadable time "…"']]);
      expect(JSON.parse(rejected[0]!.payload).id).toBe('e7');
      expect(extra.events_with_bad_time).toBe(1);
      const store = ProjectStore.open(join(dir, `${++fileNo}-bad.sqlite`));
      for (const b of batches) store.apply(b);
      expect(store.snapshot().rejected).toBe(1);
      expect(store.deadLetters().map((d) => d.location)).toEqual(['event e7']);
      store.close();
    }
  });

  it('an unknown case notion names the types there are', async () => {
    const error = await openOcel(FORMS2.json(), { caseNotion: 'Invoice' }).catch((e: unknown) => e as OcelError);
    expect((error as OcelError).code).toBe('ocel_unknown_case_notion');
    expect((error as OcelError).message).toBe('case notion "Invoice" is not an object type of this log (types: "Item", "Order", "Package")');
  });

  it('malformed entries are rejected with their place, valid ones kept', async () => {
    const log = JSON.parse(ocel2Json(SPEC));
    delete log.events[2].type;
    log.events.push({ ...log.events[0] }); // the same id twice
    log.events[0].relationships.push({ objectId: 'ghost', qualifier: 'who' });
    const { records, batches, extra } = await load(write('entries.jsonocel', JSON.stringify(log)), { caseNotion: 'Item' });
    expect(batches[0]!.rejected!.map((r) => [r.location, r.reason])).toEqual([
      ['event e3', 'type: Invalid input: expected string, received undefined'],
      ['event e1', 'duplicate event id: the first one is kept'],
    ]);
    expect(extra.dangling_relations).toEqual({ event_object: 1, object_object: 0 });
    expect(records.filter((r) => r.caseId === 'i1').map((r) => r.activity)).toEqual(['place order', 'pack']);
  });
});
