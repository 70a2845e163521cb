import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLog, fileErrorCodes, importLog, inspectLog, type ImportOptions } from '../../connectors/files/index.js';
import { ProjectStore } from '../../engine/index.js';
import { fuzzSeed, mutateBytes, nestedJson, Prng } from '../tools/fuzz.js';

/**
 * A seeded fuzzer of the file door: small valid logs in every format the
 * importers read (CSV, NDJSON, XES, OCEL 2.0 JSON/XML/SQLite, OCEL 1.0
 * JSON/XML), cut, flipped, compressed, corrupted, padded with huge fields,
 * nested deep, encoded oddly. Each is checked (checkLog, what an upload runs
 * first), inspected and imported into a fresh store: every one either reads
 * or is refused with a FileImportError carrying a documented code, never
 * anything else; the check, the import and the store agree on what the file
 * held. PCG_FUZZ_SEED=<seed> replays a run.
 */

const SEED = fuzzSeed();
const CASES = Number(process.env.PCG_FUZZ_FILE_CASES ?? 1000);

const dir = mkdtempSync(join(tmpdir(), 'pcg-file-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
const path = (name: string) => join(dir, `${++fileNo}-${name}`);

// ---------------------------------------------------------------- the seed logs

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

function ocel2Sqlite(): Buffer {
  const file = path('seed.sqlite');
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

type Format = 'csv' | 'ndjson' | 'xes' | 'ocel2-json' | 'ocel2-xml' | 'ocel2-sqlite' | 'ocel1-json' | 'ocel1-xml';
const SEEDS: Record<Format, () => Buffer> = {
  csv: () => Buffer.from(CSV),
  ndjson: () => Buffer.from(NDJSON),
  xes: () => Buffer.from(XES),
  'ocel2-json': () => Buffer.from(OCEL2_JSON),
  'ocel2-xml': () => Buffer.from(OCEL2_XML),
  'ocel2-sqlite': ocel2Sqlite,
  'ocel1-json': () => Buffer.from(OCEL1_JSON),
  'ocel1-xml': () => Buffer.from(OCEL1_XML),
};
const FORMATS = Object.keys(SEEDS) as Format[];
const xmlish = (f: Format) => f === 'xes' || f.endsWith('-xml');
const jsonish = (f: Format) => f === 'ndjson' || f.endsWith('-json');

// ---------------------------------------------------------------- the mutations

/** One damaged (or not) file of a format, and how it was made. */
function mutate(rng: Prng, format: Format, seed: Buffer): { bytes: Buffer; what: string[] } {
  let bytes: Buffer = Buffer.from(seed);
  const what: string[] = [];
  const text = () => bytes.toString('utf8');
  const kind = rng.weighted([
    ['valid', 1],
    ['bytes', 6],
    ['truncate', 3],
    ['gzip', 1],
    ['gzip cut', 2],
    ['gzip corrupt', 2],
    ['huge field', 2],
    ['entities', xmlish(format) ? 2 : 0],
    ['deep', jsonish(format) ? 2 : 0],
    ['encoding', 2],
    ['text', format === 'ocel2-sqlite' ? 0 : 3],
    ['empty', 1],
  ] as const);
  what.push(kind);
  switch (kind) {
    case 'valid':
      break;
    case 'bytes':
      for (let k = rng.between(1, 4); k > 0; k--) {
        const m = mutateBytes(rng, bytes);
        bytes = m.bytes;
        what.push(m.op);
      }
      break;
    case 'truncate': {
      const cut = rng.int(bytes.length);
      bytes = bytes.subarray(0, cut);
      what.push(`at ${cut} of ${seed.length}`);
      break;
    }
    case 'gzip':
      bytes = gzipSync(bytes);
      break;
    case 'gzip cut': {
      const gz = gzipSync(bytes);
      const cut = rng.between(2, gz.length - 1);
      bytes = gz.subarray(0, cut);
      what.push(`at ${cut} of ${gz.length}`);
      break;
    }
    case 'gzip corrupt': {
      const gz = Buffer.from(gzipSync(bytes));
      for (let k = rng.between(1, 8); k > 0; k--) {
        const i = rng.between(10, gz.length - 1);
        gz[i] = gz[i]! ^ (1 << rng.int(8));
        what.push(`flip@${i}`);
      }
      bytes = gz;
      break;
    }
    case 'huge field': {
      const size = rng.pick([70_000, 300_000, 1_500_000]);
      const big = rng.pick(['x', 'é', ',', '"', '<', '\\']).repeat(size);
      what.push(`${size} × ${JSON.stringify(big[0])}`);
      if (format === 'ocel2-sqlite') {
        // Appended garbage after the database pages.
        bytes = Buffer.concat([bytes, Buffer.from(big)]);
      } else {
        const s = text();
        // Into the middle of the first field value the format has.
        const at = format === 'csv' ? s.indexOf('Create order') : jsonish(format) ? s.indexOf('"', s.indexOf(':') + 1) + 1 : s.indexOf('value="') + 7;
        bytes = Buffer.from(s.slice(0, Math.max(0, at)) + (jsonish(format) ? JSON.stringify(big).slice(1, -1) : big) + s.slice(Math.max(0, at)));
      }
      break;
    }
    case 'entities': {
      const entity = rng.pick(['&#0;', '&#x0;', '&#xD800;', '&#55296;', '&#x110000;', '&bogus;', '&#;', '&#x;', '&', '&amp', '&#xFFFE;', '&#1114111;']);
      const s = text();
      const at = s.indexOf('value="') >= 0 ? s.indexOf('value="') + 7 : s.indexOf('type="') + 6;
      bytes = Buffer.from(s.slice(0, at) + entity + s.slice(at));
      what.push(entity);
      break;
    }
    case 'deep': {
      const depth = rng.pick([100, 3000, 20_000]);
      const s = text();
      const nest = rng.chance(0.5) ? nestedJson(depth) : nestedJson(depth, '1', '{"a":', '}');
      if (format === 'ndjson') bytes = Buffer.from(`${s}\n${nest}\n${s.split('\n')[0]}`);
      else {
        const at = s.indexOf(':') + 1;
        bytes = Buffer.from(s.slice(0, at) + nest + ',"x":' + s.slice(at));
      }
      what.push(`${depth} deep`);
      break;
    }
    case 'encoding': {
      const how = rng.pick(['bom', 'utf16le', 'utf16be', 'latin1', 'crlf', 'cr', 'nul']);
      const s = text();
      if (how === 'bom') bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
      else if (how === 'utf16le') bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);
      else if (how === 'utf16be') bytes = Buffer.from(s, 'utf16le').swap16();
      else if (how === 'latin1') bytes = Buffer.from(s.replace(/a/g, 'ä'), 'latin1');
      else if (how === 'crlf') bytes = Buffer.from(s.replace(/\n/g, '\r\n'));
      else if (how === 'cr') bytes = Buffer.from(s.replace(/\n/g, '\r'));
      else bytes = Buffer.from(s.replace(/o/g, 'o\u0000'));
      what.push(how);
      break;
    }
    case 'text': {
      // Text edits that keep the file mostly well-formed: names and values a parser must take literally.
      const s = text();
      const swap = rng.pick([
        ['Create order', 'Create\torder'],
        ['Create order', '__proto__'],
        ['Create order', 'constructor'],
        ['Create order', ' '],
        ['Create order', ''],
        ['place order', 'toString'],
        ['2024-01-01', '2024-13-45'],
        ['2024-03-01', '0000-00-00'],
        ['2024-01-02', '9999999-01-02'],
        ['Ship', 'Ship\u2028goods'],
        ['ann', '\ud83d\ude00'],
        ['o1', ''],
        ['i1', 'o1'],
        ['Order', ''],
        ['"amount"', '"amount","amount"'],
        ['amount', 'ámount'],
      ]);
      bytes = Buffer.from(s.split(swap[0]!).join(swap[1]));
      what.push(`${swap[0]} -> ${JSON.stringify(swap[1])}`);
      break;
    }
    case 'empty':
      bytes = Buffer.from(rng.pick(['', ' ', '\n\n', '\ufeff', '{}', '[]', '<log/>', 'case,activity,time\n']));
      what.push(JSON.stringify(bytes.toString()));
      break;
  }
  return { bytes, what };
}

// ---------------------------------------------------------------- the run

type Outcome = { ok: true; value: any } | { ok: false; code: string; name: string; message: string };

async function outcome(work: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    const e = error as Error & { code?: unknown };
    return { ok: false, code: String(e.code), name: e.name, message: String(e.message).slice(0, 300) };
  }
}

/** A refusal is a FileImportError with a code of the registry; anything else is a crash. */
function refusalProblem(what: string, o: Outcome): string | undefined {
  if (o.ok) return undefined;
  if (o.name !== 'FileImportError' || !(o.code in fileErrorCodes)) return `${what} threw ${o.name} (code ${o.code}): ${o.message}`;
  return undefined;
}

describe('file import fuzzing', () => {
  it(`reads or refuses with a documented code ${CASES} mutated logs of every format (seed ${SEED})`, async () => {
    const root = new Prng(SEED).fork('files');
    const seeds = Object.fromEntries(FORMATS.map((f) => [f, SEEDS[f]()])) as Record<Format, Buffer>;
    const failures: string[] = [];
    const perFormat = new Map<string, { imported: number; refused: Map<string, number> }>();
    for (let i = 0; i < CASES; i++) {
      const rng = root.fork(i);
      const format = FORMATS[i % FORMATS.length]!;
      const { bytes, what } = mutate(rng, format, seeds[format]);
      // Mostly detected from the content; now and then named, as `--format` or the upload's query does.
      const options: ImportOptions = rng.chance(0.25) ? { format } : {};
      if (format === 'csv' && rng.chance(0.2)) Object.assign(options, rng.pick([{ delimiter: ';' }, { caseColumn: 'nope' }, { timezone: 'Mars/Olympus' }, { timezone: 'Europe/Berlin' }]));
      // Now and then imported on a reader thread (what files of 8 MB or more get): the same answers are due.
      const thread = rng.chance(0.03);
      const label = `seed ${SEED} case ${i} [${format}] ${what.join(' ').slice(0, 160)} ${JSON.stringify(options)}${thread ? ' (reader thread)' : ''}`;
      const file = path(`${format}.log`);
      writeFileSync(file, bytes);
      // A fresh store per file, in memory: the same code as on disk, a sixth of the time to open.
      const store = ProjectStore.open(':memory:');
      try {
        const check = await outcome(() => checkLog(file, options));
        const inspect = await outcome(() => inspectLog(file, options));
        const imported = await outcome(() => importLog(store, file, options, { thread }));
        for (const [step, o] of [['checkLog', check], ['inspectLog', inspect], ['importLog', imported]] as const) {
          const p = refusalProblem(step, o);
          if (p) failures.push(`${label}: ${p}`);
        }
        // What an upload checks first, the import finds too: the same refusal, or both read it.
        if (check.ok !== imported.ok) failures.push(`${label}: checkLog ${check.ok ? 'read it' : `refused (${(check as { code: string }).code})`} but importLog ${imported.ok ? 'read it' : `refused (${(imported as { code: string }).code}: ${(imported as { message: string }).message})`}`);
        else if (!check.ok && !imported.ok && check.code !== imported.code) failures.push(`${label}: checkLog refused with ${check.code}, importLog with ${imported.code}`);
        if (imported.ok && check.ok) {
          const s = imported.value;
          const items = check.value.records + check.value.rejected;
          if (s.accepted + s.duplicates + s.rejected !== items) failures.push(`${label}: the import took ${s.accepted}+${s.duplicates}+${s.rejected} of the ${items} items the check read`);
          if (store.eventCount() !== s.events) failures.push(`${label}: the store holds ${store.eventCount()} events, the summary says ${s.events}`);
          if (s.rejected !== store.deadLetters({ limit: 100_000 }).length) failures.push(`${label}: ${s.rejected} rejected but ${store.deadLetters({ limit: 100_000 }).length} dead letters`);
          for (const l of store.deadLetters({ limit: 100_000 })) if (!l.reason || !l.location) failures.push(`${label}: a dead letter without reason or location: ${JSON.stringify(l).slice(0, 200)}`);
        }
        const tally = perFormat.get(format) ?? { imported: 0, refused: new Map<string, number>() };
        if (imported.ok) tally.imported += 1;
        else tally.refused.set(imported.code, (tally.refused.get(imported.code) ?? 0) + 1);
        perFormat.set(format, tally);
      } finally {
        store.close();
        rmSync(file, { force: true });
      }
    }
    const summary = [...perFormat].map(([f, t]) => `${f}: ${t.imported} imported, refused ${JSON.stringify(Object.fromEntries(t.refused))}`);
    console.log(`file fuzz seed ${SEED}: ${CASES} files\n  ${summary.join('\n  ')}`);
    expect(failures.slice(0, 25), `${failures.length} problems (replay with PCG_FUZZ_SEED=${SEED})`).toEqual([]);
  }, 240_000);
});
