import Database from 'better-sqlite3';
import { readFileSync, rmSync } from 'node:fs';

/**
 * The seed logs of the file fuzz: one small valid log in every format the
 * importers read (CSV, NDJSON, XES, OCEL 2.0 JSON/XML/SQLite, OCEL 1.0
 * JSON/XML), the OCEL ones all made from one object-centric spec.
 */

const CSV = [
  'case,activity,time,resource,amount,note',
  '1,Create order,2024-01-01T09:00:00Z,ann,10,"first, with a comma"',
  '1,Check credit,2024-01-01T10:30:00Z,bob,10,',
  '1,Ship goods,2024-01-02T08:00:00Z,cy,10,"a ""quoted"" word"',
  '2,Create order,2024-01-03T09:00:00Z,ann,25,',
  '2,Ship goods,2024-01-04T11:00:00Z,cy,25,late',
  '3,Create order,2024-01-05 09:00:00,ann,7,zone-less time',
].join('\n');

const NDJSON = [
  { caseId: 'n1', activity: 'Create order', timestamp: '2024-01-01T09:00:00Z', resource: 'ann', attributes: { amount: 10 } },
  { caseId: 'n1', activity: 'Ship goods', timestamp: '2024-01-02T09:00:00Z', eventId: 'n1-2' },
  { caseId: 'n2', activity: 'Create order', timestamp: 1704358800000, objects: [{ id: 'o2', type: 'order' }] },
  { caseId: 'n2', activity: 'Cancel', timestamp: '2024-01-05T09:00:00+02:00', attributes: { reason: 'customer', express: true } },
]
  .map((e) => JSON.stringify(e))
  .join('\n');

const XES = `<?xml version="1.0" encoding="UTF-8"?>
<log xes.version="1.0" xmlns="http://www.xes-standard.org/">
  <extension name="Concept" prefix="concept" uri="http://www.xes-standard.org/concept.xesext"/>
  <classifier name="Activity" keys="concept:name"/>
  <classifier name="Both" keys="concept:name lifecycle:transition"/>
  <global scope="event"><string key="concept:name" value="__INVALID__"/></global>
  <trace><string key="concept:name" value="x1"/>
    <event><string key="concept:name" value="Create &amp; check"/><string key="lifecycle:transition" value="start"/><date key="time:timestamp" value="2024-01-01T09:00:00.000+01:00"/><string key="org:resource" value="ann"/></event>
    <event><string key="concept:name" value="Create &amp; check"/><string key="lifecycle:transition" value="complete"/><date key="time:timestamp" value="2024-01-01T09:30:00.000+01:00"/><int key="amount" value="7"/><float key="rate" value="0.5"/><boolean key="express" value="true"/></event>
    <event><string key="concept:name" value="Ship"/><date key="time:timestamp" value="2024-01-02T10:00:00.000+01:00"/><list key="items"><string key="item" value="a"/></list></event>
  </trace>
  <trace><string key="concept:name" value="x2"/>
    <event><string key="concept:name" value="Create &amp; check"/><date key="time:timestamp" value="2024-01-03T00:00:00Z"/></event>
    <event><string key="concept:name" value="Cancel"/><date key="time:timestamp" value="2024-01-03T05:00:00Z"/><string key="note" value="&lt;why&gt;"/></event>
  </trace>
</log>
`;

interface Spec {
  objects: { id: string; type: string; rel?: [string, string][] }[];
  events: { id: string; type: string; time: string; attrs?: Record<string, string | number | boolean>; rel: [string, string][] }[];
}
const SPEC: Spec = {
  objects: [
    { id: 'o1', type: 'Order', rel: [['i1', 'contains']] },
    { id: 'o2', type: 'Order' },
    { id: 'i1', type: 'Item' },
  ],
  events: [
    { id: 'e1', type: 'place order', time: '2024-03-01T09:00:00', attrs: { amount: 12.5, clerk: 'Ann' }, rel: [['o1', 'order'], ['i1', 'item']] },
    { id: 'e2', type: 'place order', time: '2024-03-01T10:00:00', attrs: { amount: 3, clerk: 'Bob' }, rel: [['o2', 'order']] },
    { id: 'e3', type: 'pick item', time: '2024-03-02T08:00:00', rel: [['i1', 'picked']] },
    { id: 'e4', type: 'ship', time: '2024-03-04T07:30:00', rel: [['o1', 'for'], ['o2', 'for']] },
  ],
};
const types = (of: 'objects' | 'events') => [...new Set(SPEC[of].map((x) => x.type))].sort();
const ATTRS = { amount: 'float', clerk: 'string' } as const;

const OCEL2_JSON = JSON.stringify(
  {
    objectTypes: types('objects').map((name) => ({ name, attributes: [] })),
    eventTypes: types('events').map((name) => ({ name, attributes: Object.entries(ATTRS).map(([n, type]) => ({ name: n, type })) })),
    objects: SPEC.objects.map((o) => ({ id: o.id, type: o.type, attributes: [], relationships: (o.rel ?? []).map(([objectId, qualifier]) => ({ objectId, qualifier })) })),
    events: SPEC.events.map((e) => ({
      id: e.id,
      type: e.type,
      time: `${e.time}Z`,
      attributes: Object.entries(e.attrs ?? {}).map(([name, value]) => ({ name, value })),
      relationships: e.rel.map(([objectId, qualifier]) => ({ objectId, qualifier })),
    })),
  },
  null,
  1,
);

const OCEL2_XML = [
  `<?xml version='1.0' encoding='UTF-8'?>`,
  '<log>',
  `<object-types>${types('objects').map((t) => `<object-type name="${t}"><attributes/></object-type>`).join('')}</object-types>`,
  `<event-types>${types('events').map((t) => `<event-type name="${t}"><attributes>${Object.entries(ATTRS).map(([n, ty]) => `<attribute name="${n}" type="${ty}"/>`).join('')}</attributes></event-type>`).join('')}</event-types>`,
  '<objects>',
  ...SPEC.objects.map((o) => `<object id="${o.id}" type="${o.type}"><attributes/><objects>${(o.rel ?? []).map(([id, q]) => `<relationship object-id="${id}" qualifier="${q}"/>`).join('')}</objects></object>`),
  '</objects>',
  '<events>',
  ...SPEC.events.map(
    (e) =>
      `<event id="${e.id}" type="${e.type}" time="${e.time}"><attributes>${Object.entries(e.attrs ?? {})
        .map(([n, v]) => `<attribute name="${n}">${String(v)}</attribute>`)
        .join('')}</attributes><objects>${e.rel.map(([id, q]) => `<relationship object-id="${id}" qualifier="${q}"/>`).join('')}</objects></event>`,
  ),
  '</events>',
  '</log>',
].join('\n');

const OCEL1_JSON = JSON.stringify({
  'ocel:global-event': { 'ocel:activity': '__INVALID__' },
  'ocel:global-log': { 'ocel:attribute-names': Object.keys(ATTRS), 'ocel:object-types': types('objects'), 'ocel:version': '1.0' },
  'ocel:events': Object.fromEntries(SPEC.events.map((e) => [e.id, { 'ocel:activity': e.type, 'ocel:timestamp': e.time, 'ocel:omap': [...new Set(e.rel.map((r) => r[0]))], 'ocel:vmap': e.attrs ?? {} }])),
  'ocel:objects': Object.fromEntries(SPEC.objects.map((o) => [o.id, { 'ocel:type': o.type, 'ocel:ovmap': {} }])),
});

const OCEL1_XML = [
  `<?xml version='1.0' encoding='UTF-8'?>`,
  '<log>',
  '<global scope="event"><string key="ocel:activity" value="__INVALID__"/></global>',
  '<events>',
  ...SPEC.events.map(
    (e) =>
      `<event><string key="id" value="${e.id}"/><date key="timestamp" value="${e.time}"/><string key="activity" value="${e.type}"/>` +
      `<list key="omap">${[...new Set(e.rel.map((r) => r[0]))].map((id) => `<string key="object-id" value="${id}"/>`).join('')}</list>` +
      `<list key="vmap">${Object.entries(e.attrs ?? {})
        .map(([k, v]) => `<${typeof v === 'number' ? 'float' : 'string'} key="${k}" value="${String(v)}"/>`)
        .join('')}</list></event>`,
  ),
  '</events>',
  '<objects>',
  ...SPEC.objects.map((o) => `<object><string key="id" value="${o.id}"/><string key="type" value="${o.type}"/><list key="ovmap"/></object>`),
  '</objects>',
  '</log>',
].join('\n');

function ocel2Sqlite(file: string): Buffer {
  const db = new Database(file);
  const mapName = (t: string) => t.replace(/[^A-Za-z0-9]/g, '');
  db.exec('CREATE TABLE "event_map_type" (ocel_type TEXT PRIMARY KEY, ocel_type_map TEXT)');
  db.exec('CREATE TABLE "object_map_type" (ocel_type TEXT PRIMARY KEY, ocel_type_map TEXT)');
  db.exec('CREATE TABLE "event" (ocel_id TEXT PRIMARY KEY, ocel_type TEXT)');
  db.exec('CREATE TABLE "object" (ocel_id TEXT PRIMARY KEY, ocel_type TEXT)');
  db.exec('CREATE TABLE "event_object" (ocel_event_id TEXT, ocel_object_id TEXT, ocel_qualifier TEXT)');
  db.exec('CREATE TABLE "object_object" (ocel_source_id TEXT, ocel_target_id TEXT, ocel_qualifier TEXT)');
  for (const t of types('events')) {
    db.prepare('INSERT INTO event_map_type VALUES (?, ?)').run(t, mapName(t));
    db.exec(`CREATE TABLE "event_${mapName(t)}" (ocel_id TEXT, ocel_time TIMESTAMP, amount REAL, clerk TEXT)`);
  }
  for (const t of types('objects')) {
    db.prepare('INSERT INTO object_map_type VALUES (?, ?)').run(t, mapName(t));
    db.exec(`CREATE TABLE "object_${mapName(t)}" (ocel_id TEXT, ocel_time TIMESTAMP)`);
  }
  for (const o of SPEC.objects) {
    db.prepare('INSERT INTO object VALUES (?, ?)').run(o.id, o.type);
    for (const [to, q] of o.rel ?? []) db.prepare('INSERT INTO object_object VALUES (?, ?, ?)').run(o.id, to, q);
  }
  for (const e of SPEC.events) {
    db.prepare('INSERT INTO event VALUES (?, ?)').run(e.id, e.type);
    db.prepare(`INSERT INTO "event_${mapName(e.type)}" VALUES (?, ?, ?, ?)`).run(e.id, e.time.replace('T', ' '), e.attrs?.amount ?? null, e.attrs?.clerk ?? null);
    for (const [to, q] of e.rel) db.prepare('INSERT INTO event_object VALUES (?, ?, ?)').run(e.id, to, q);
  }
  db.close();
  const bytes = readFileSync(file);
  rmSync(file);
  return bytes;
}

export type Format = 'csv' | 'ndjson' | 'xes' | 'ocel2-json' | 'ocel2-xml' | 'ocel2-sqlite' | 'ocel1-json' | 'ocel1-xml';
const SEEDS: Record<Format, (scratch: string) => Buffer> = {
  csv: () => Buffer.from(CSV),
  ndjson: () => Buffer.from(NDJSON),
  xes: () => Buffer.from(XES),
  'ocel2-json': () => Buffer.from(OCEL2_JSON),
  'ocel2-xml': () => Buffer.from(OCEL2_XML),
  'ocel2-sqlite': ocel2Sqlite,
  'ocel1-json': () => Buffer.from(OCEL1_JSON),
  'ocel1-xml': () => Buffer.from(OCEL1_XML),
};
export const FORMATS = Object.keys(SEEDS) as Format[];
export const xmlish = (f: Format) => f === 'xes' || f.endsWith('-xml');
export const jsonish = (f: Format) => f === 'ndjson' || f.endsWith('-json');

/** The seed log of every format (`scratch`: a file path the SQLite one is built at, removed after). */
export function seedLogs(scratch: string): Record<Format, Buffer> {
  return Object.fromEntries(FORMATS.map((f) => [f, SEEDS[f](scratch)])) as Record<Format, Buffer>;
}
