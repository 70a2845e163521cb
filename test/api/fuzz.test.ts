import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorCodes } from '../../api/errors.js';
import type { RouteDef } from '../../api/route.js';
import { readNdjson } from '../../engine/ndjson.js';
import { referenceDocument } from '../kafka/helpers.js';
import { EDGE_TEXT, fuzzSeed, mutateBytes, nestedJson, Prng, textOfBytes } from '../tools/fuzz.js';
import { call, events, GLOBAL, makeTenant, testApp, type TestApp, type World } from './helpers.js';

/**
 * A seeded fuzzer through every HTTP door: event bodies (JSON and NDJSON),
 * other JSON bodies, dataset uploads, query strings, headers, path parameters,
 * methods, the MCP endpoint, and raw bytes on a real socket. Whatever comes in:
 * never a 5xx; every refusal in the error format (error, message, timestamp,
 * requestId = X-Request-Id) with the status its code stands for, and the
 * specific 4xx where the mutation decides it (malformed JSON 400, a wrong
 * content type or coding 415, over a limit 413 naming the limit); a refused
 * request changes nothing (catalog, project states, dead letters); what was
 * accepted is exactly what the documents count afterwards.
 *
 * The seed is printed with every failure: PCG_FUZZ_SEED=<seed> replays the run
 * (PCG_FUZZ_CASES sets how many requests, default 3000; PCG_FUZZ_TRACE=1 prints
 * every problem, not only the first 25).
 */

const SEED = fuzzSeed();
const CASES = Number(process.env.PCG_FUZZ_CASES ?? 3000);
/** Longest wait for one answer (most take a few milliseconds). */
const ANSWER_MS = 15_000;

const LIMITS = {
  bodyLimitBytes: 32 * 1024,
  uploadLimitBytes: 16 * 1024,
  limitEventsPerRequest: 25,
  limitIdBytes: 64,
  limitActivityBytes: 48,
  limitAttributeValueBytes: 96,
  limitAttributesPerEvent: 6,
  limitProjectsPerTenant: 5,
  limitSourcesPerProject: 3,
} as const;

type Key = 'admin' | 'reader' | 'global' | 'other' | 'none';

interface Case {
  door: string;
  what: string;
  req: InjectOptions & { method: string; url: string; headers: Record<string, string> };
  /** Allowed statuses (any below 500 when absent). */
  status?: readonly number[];
  code?: string;
  message?: RegExp;
  /** Per record location of an events body: accepted, or rejected for a reason. */
  records?: Map<string, true | RegExp>;
  /** A valid X-Request-Id sent, to be echoed. */
  requestId?: string;
  /** The answer need not be in the API's error format (MCP answers JSON-RPC errors). */
  foreignErrors?: boolean;
  /** Sent with a read key: whatever the answer, nothing may change. */
  readOnly?: boolean;
}

interface Failure {
  index: number;
  door: string;
  what: string;
  problem: string;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ERROR_KEYS = 'error,message,requestId,timestamp';

/** What is wrong with an error answer's format (empty when it is right). */
function errorFormatProblems(status: number, headers: Record<string, unknown>, text: string, dir: string): string[] {
  const out: string[] = [];
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return [`error body is not JSON: ${text.slice(0, 200)}`];
  }
  if (!String(headers['content-type'] ?? '').startsWith('application/json')) out.push(`error content-type ${String(headers['content-type'])}`);
  if (body === null || typeof body !== 'object') return [...out, `error body is ${text.slice(0, 100)}`];
  const keys = Object.keys(body).sort().join();
  if (keys !== ERROR_KEYS) out.push(`error body has keys ${keys}`);
  const code = body.error as keyof typeof apiErrorCodes;
  if (!(code in apiErrorCodes)) out.push(`unknown error code ${String(body.error)}`);
  else if (apiErrorCodes[code] !== status && !(status === 431 && code === 'payload_too_large')) out.push(`code ${code} answered with ${status}`);
  if (typeof body.message !== 'string' || !body.message) out.push('empty message');
  else if (body.message.includes(dir) || /\/tmp\/|node_modules|SQLITE|\n\s+at /.test(body.message)) out.push(`message leaks internals: ${body.message.slice(0, 200)}`);
  if (!ISO.test(String(body.timestamp))) out.push(`timestamp ${String(body.timestamp)}`);
  if (body.requestId !== headers['x-request-id']) out.push(`requestId ${String(body.requestId)} != X-Request-Id ${String(headers['x-request-id'])}`);
  return out;
}

describe('HTTP fuzzing through every door', () => {
  let t: TestApp;
  let w: World;
  let other: World;
  let ids: { A: string; B: string; C: string; inv: string; nb: string; block: string; dash: string; source: string; dataset: string; spareUser: string; spareKey: string; globalKey: string };
  let routes: readonly RouteDef[];
  /** Events each project must hold: the records answered as accepted (or duplicates), in order. */
  const kept: Record<'A' | 'B', unknown[]> = { A: [], B: [] };
  /** Dead letters each project's HTTP ingestion must hold. */
  const refused: Record<'A' | 'B', number> = { A: 0, B: 0 };
  let fingerprint: () => string;
  let graphVersion = 0;

  beforeAll(async () => {
    t = testApp(LIMITS);
    routes = t.routes;
    w = await makeTenant(t.app, 'fuzz');
    other = await makeTenant(t.app, 'fuzz-other');
    const base = `/api/${w.tenantId}/project`;
    const B = (await call(t.app, 'POST', base, w.admin, { name: 'B' })).body.id as string;
    const C = (await call(t.app, 'POST', base, w.admin, { name: 'C' })).body.id as string;
    const A = w.projectId;
    const spare = await call(t.app, 'POST', '/api/user', GLOBAL, { email: 'spare@example.com' });
    await call(t.app, 'POST', `/api/tenant/${w.tenantId}/user`, GLOBAL, { userId: spare.body.id, permissions: ['read'] });
    const spareKey = await call(t.app, 'POST', `/api/tenant/${w.tenantId}/apikey`, GLOBAL, { userId: spare.body.id, name: 'spare' });
    const globalKey = await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'spare' });
    const inv = await call(t.app, 'POST', `${base}/${A}/investigation`, w.admin, { name: 'i', scope: { activities: ['b'] } });
    const nb = await call(t.app, 'POST', `${base}/${A}/investigation/${inv.body.id}/notebook`, w.admin, { name: 'n' });
    const block = await call(t.app, 'POST', `${base}/${A}/investigation/${inv.body.id}/notebook/${nb.body.id}/block`, w.admin, { spec: { type: 'variants' } });
    const dash = await call(t.app, 'POST', `${base}/${A}/dashboard`, w.admin, { name: 'd', blockIds: [block.body.id] });
    const source = await call(t.app, 'POST', `${base}/${A}/source`, w.admin, { brokers: ['127.0.0.1:9'], topic: 'fuzz' });
    const dataset = await call(t.app, 'POST', `${base}/${C}/dataset?name=seed.csv`, w.admin, CSV, { 'content-type': 'application/octet-stream' });
    for (const r of [spare, spareKey, globalKey, inv, nb, block, dash, source, dataset]) expect(r.status, r.text).toBeLessThan(300);
    ids = {
      A,
      B,
      C,
      inv: inv.body.id,
      nb: nb.body.id,
      block: block.body.id,
      dash: dash.body.id,
      source: source.body.id,
      dataset: dataset.body.id,
      spareUser: spare.body.id,
      spareKey: spareKey.body.id,
      globalKey: globalKey.body.id,
    };
    // A baseline in A and B, and a served graph version of A for ?version=.
    const a = events(8);
    const b = events(6, Date.UTC(2024, 2, 1)).map((e: any) => ({ ...e, eventId: `b-${e.eventId}` }));
    expect((await call(t.app, 'POST', `${base}/${A}/events`, w.admin, a)).body).toMatchObject({ accepted: a.length, rejected: 0 });
    expect((await call(t.app, 'POST', `${base}/${B}/events`, w.admin, b)).body).toMatchObject({ accepted: b.length, rejected: 0 });
    kept.A.push(...a);
    kept.B.push(...b);
    const g = await call(t.app, 'GET', `${base}/${A}/graph`, w.reader);
    expect(g.status).toBe(200);
    graphVersion = Number(JSON.parse(String(g.headers.etag)));

    // Everything a refused request must leave as it was: catalog rows (not last-used times or served graph versions) and project states.
    const db = t.context.catalog.db;
    const tables = ['tenant', 'user', 'membership', 'project', 'dataset', 'investigation', 'notebook', 'block', 'dashboard', 'source'].map((name) =>
      db.prepare(`SELECT count(*) AS n, coalesce(max(updated_at), '') AS u FROM "${name}"`),
    );
    const keys = ['api_key', 'global_key'].map((name) => db.prepare(`SELECT count(*) AS n, count(revoked_at) AS r FROM ${name}`));
    fingerprint = () => {
      const parts: unknown[] = [...tables.map((q) => q.get()), ...keys.map((q) => q.get())];
      for (const p of [A, B, C]) {
        const s = t.context.states.store(p);
        parts.push([s.dataVersion, s.eventCount(), s.getMeta('rejected') ?? '0', s.deadLetterCount('direct'), s.getMeta('log_digest') ?? '']);
      }
      return JSON.stringify(parts);
    };
  }, 120_000);

  afterAll(() => t?.close());

  // ---------------------------------------------------------------- the inputs

  const CSV = 'case,activity,time,amount\n1,a,2024-01-01T00:00:00Z,10\n1,b,2024-01-01T01:00:00Z,20\n2,a,2024-01-02T00:00:00Z,30\n2,c,2024-01-02T02:00:00Z,5\n';
  const NDJSON_FILE = [
    { caseId: 'n1', activity: 'a', timestamp: '2024-01-01T00:00:00Z' },
    { caseId: 'n1', activity: 'b', timestamp: '2024-01-01T01:00:00Z', attributes: { amount: 3 } },
    { caseId: 'n2', activity: 'a', timestamp: 1704153600000, resource: 'ann' },
  ]
    .map((e) => JSON.stringify(e))
    .join('\n');
  const XES = `<?xml version="1.0" encoding="UTF-8"?>
<log xes.version="1.0">
  <trace><string key="concept:name" value="x1"/>
    <event><string key="concept:name" value="a"/><date key="time:timestamp" value="2024-01-01T00:00:00.000+00:00"/><string key="org:resource" value="ann"/></event>
    <event><string key="concept:name" value="b"/><date key="time:timestamp" value="2024-01-01T02:00:00.000+00:00"/><int key="amount" value="7"/></event>
  </trace>
  <trace><string key="concept:name" value="x2"/>
    <event><string key="concept:name" value="a"/><date key="time:timestamp" value="2024-01-03T00:00:00.000+00:00"/></event>
  </trace>
</log>
`;

  const ACTIVITIES = ['a', 'b', 'c', 'd', 'Ship goods', 'Prüfen', '発送'];
  const TIMES: readonly unknown[] = [
    '2024-02-30T00:00:00Z',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '+010000-01-01T00:00:00Z',
    '2024-01-01T00:00:00+25:00',
    '2024-01-01 10:00',
    '2024-01-01',
    '  2024-01-01T00:00:00Z',
    'yesterday',
    '',
    '1704067200000',
    1704067200000.5,
    -62135596800001,
    253402300800000,
    1e21,
    -0,
    0,
    true,
    null,
    [],
    {},
  ];
  const WRONG: readonly unknown[] = [null, true, false, 0, -1, 1.5, 1e308, [], [1], {}, { a: 1 }, '', ' ', '\u0000'];

  /** A valid wire event of a small pool of cases, activities and ids. */
  const event = (rng: Prng): Record<string, unknown> => {
    const e: Record<string, unknown> = {
      caseId: `f${rng.int(30)}`,
      activity: rng.pick(ACTIVITIES),
      timestamp: new Date(Date.UTC(2024, 5, 1) + rng.int(500_000) * 60_000).toISOString(),
    };
    if (rng.chance(0.85)) e.eventId = `fz-${rng.word(8)}`;
    if (rng.chance(0.3)) e.resource = rng.pick(['ann', 'bob', 'cy']);
    if (rng.chance(0.5)) e.attributes = { region: rng.pick(['north', 'south']), amount: rng.int(1000), ...(rng.chance(0.3) ? { role: rng.pick(['clerk', 'lead']) } : {}) };
    if (rng.chance(0.1)) e.objects = [{ id: `o${rng.int(5)}`, type: 'order', qualifier: 'main' }];
    return e;
  };
  /** Events sent before, re-sent now and then (duplicates, and new bodies under a known id). */
  const sent: Record<string, unknown>[] = [];
  const batch = (rng: Prng, n: number) =>
    Array.from({ length: n }, () => {
      if (sent.length && rng.chance(0.08)) {
        const old = { ...rng.pick(sent) };
        if (rng.chance(0.3)) old.activity = rng.pick(ACTIVITIES);
        return old;
      }
      const e = event(rng);
      if (sent.length < 500) sent.push(e);
      return e;
    });

  /** Marks inside an event that serialize() swaps for raw JSON text (nesting too deep for JSON.stringify, keys JSON.stringify cannot write). */
  const RAW = new Map<string, string>();
  let rawNo = 0;
  const raw = (json: string): string => {
    const mark = `\u0001raw${++rawNo}\u0001`;
    RAW.set(mark, json);
    return mark;
  };
  const serialize = (value: unknown, indent?: number): string => {
    let text = JSON.stringify(value, null, indent);
    for (const [mark, json] of RAW) {
      const quoted = JSON.stringify(mark);
      if (text.includes(quoted)) text = text.split(quoted).join(json);
    }
    return text;
  };

  /** One change to one event; what it was, and whether it decides the record's fate (accepted, or rejected for a reason). */
  const mutateEvent = (rng: Prng, e: Record<string, unknown>): { what: string; fate?: true | RegExp; replace?: string } => {
    const kind = rng.weighted([
      ['wrong-type', 3],
      ['missing', 1],
      ['unknown-field', 1],
      ['limit-id', 3],
      ['limit-activity', 2],
      ['limit-value', 2],
      ['limit-attributes', 2],
      ['timestamp', 2],
      ['unicode', 3],
      ['deep', 2],
      ['names', 2],
    ] as const);
    const units = ['x', 'é', '€', '\ud83d\ude00'];
    switch (kind) {
      case 'wrong-type': {
        const field = rng.pick(['caseId', 'activity', 'timestamp', 'eventId', 'resource', 'attributes', 'objects']);
        const value = rng.pick(WRONG);
        e[field] = value;
        const decided = (field === 'caseId' || field === 'activity') && typeof value !== 'string';
        return { what: `${field}=${JSON.stringify(value)}`, ...(decided ? { fate: new RegExp(field) } : {}) };
      }
      case 'missing': {
        const field = rng.pick(['caseId', 'activity', 'timestamp']);
        delete e[field];
        return { what: `no ${field}`, fate: new RegExp(field) };
      }
      case 'unknown-field':
        e[`x_${rng.word(4)}`] = 1;
        return { what: 'unknown field', fate: /Unrecognized key/ };
      case 'limit-id': {
        const over = rng.chance(0.5);
        const bytes = LIMITS.limitIdBytes + (over ? rng.between(1, 4) : -rng.between(0, 2));
        const text = textOfBytes(bytes, rng.pick(units));
        const field = rng.pick(['caseId', 'eventId', 'resource', 'object id', 'attribute name']);
        if (field === 'object id') e.objects = [{ id: text, type: 'order' }];
        else if (field === 'attribute name') e.attributes = { [text]: 1 };
        else e[field] = text;
        return { what: `${field} of ${bytes} bytes`, fate: over ? /limit PCG_LIMIT_ID_BYTES/ : true };
      }
      case 'limit-activity': {
        const over = rng.chance(0.5);
        const bytes = LIMITS.limitActivityBytes + (over ? rng.between(1, 4) : -rng.between(0, 2));
        e.activity = textOfBytes(bytes, rng.pick(units));
        return { what: `activity of ${bytes} bytes`, fate: over ? /^activity: limit PCG_LIMIT_ACTIVITY_BYTES/ : true };
      }
      case 'limit-value': {
        const over = rng.chance(0.5);
        const bytes = LIMITS.limitAttributeValueBytes + (over ? rng.between(1, 4) : -rng.between(0, 2));
        e.attributes = { note: textOfBytes(bytes, rng.pick(units)) };
        return { what: `attribute value of ${bytes} bytes`, fate: over ? /^attributes\.note: limit PCG_LIMIT_ATTRIBUTE_VALUE_BYTES/ : true };
      }
      case 'limit-attributes': {
        const n = LIMITS.limitAttributesPerEvent + rng.between(-1, 2);
        e.attributes = Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
        return { what: `${n} attributes`, fate: n > LIMITS.limitAttributesPerEvent ? /^attributes: limit PCG_LIMIT_ATTRIBUTES_PER_EVENT/ : true };
      }
      case 'timestamp': {
        const value = rng.pick(TIMES);
        e.timestamp = value;
        return { what: `timestamp ${JSON.stringify(value)}` };
      }
      case 'unicode': {
        const text = rng.chance(0.5) ? rng.pick(EDGE_TEXT) : `${rng.word(2)}${rng.pick(EDGE_TEXT)}${rng.word(2)}`;
        const field = rng.pick(['caseId', 'activity', 'resource', 'eventId', 'attribute value', 'attribute name', 'object type']);
        if (field === 'attribute value') e.attributes = { note: text };
        else if (field === 'attribute name') e.attributes = { [text]: 'v' };
        else if (field === 'object type') e.objects = [{ id: 'o1', type: text }];
        else e[field] = text;
        // NUL (the counters' keys join names with it) and lone surrogates (not Unicode) are refused in any text of an event.
        const unfit = text.includes('\u0000') || !(text as string & { isWellFormed(): boolean }).isWellFormed();
        return { what: `${field} ${JSON.stringify(text)}`, ...(unfit ? { fate: /must not contain (NUL|a lone surrogate)/ } : {}) };
      }
      case 'deep': {
        const depth = rng.pick([8, 64, 700, 2000, 4000]);
        const where = rng.pick(['attribute', 'objects', 'record', 'record with toString']);
        const json = rng.chance(0.5) ? nestedJson(depth) : nestedJson(depth, '1', '{"a":', '}');
        if (where === 'attribute') e.attributes = { deep: raw(json) };
        else if (where === 'objects') e.objects = raw(json);
        else if (where === 'record') return { what: `record nested ${depth} deep`, fate: /./, replace: raw(json) };
        else {
          Object.defineProperty(e, 'toString', { value: 1, enumerable: true, writable: true, configurable: true });
          e.attributes = { deep: raw(json) };
        }
        return { what: `${where} nested ${depth} deep`, fate: /./ };
      }
      case 'names': {
        const name = rng.pick(['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype', '__defineGetter__']);
        const field = rng.pick(['caseId', 'activity', 'resource', 'attribute name', 'attribute value', 'role value', 'eventId']);
        if (field === 'attribute name') {
          // A key JSON.stringify would drop or that would set the prototype: written as raw JSON.
          e.attributes = raw(`{${JSON.stringify(name)}:"v","region":"north"}`);
        } else if (field === 'attribute value') e.attributes = { region: name };
        else if (field === 'role value') e.attributes = { role: name, team: name };
        else e[field] = name;
        return { what: `${field} ${name}` };
      }
    }
  };

  // ---------------------------------------------------------------- the doors

  const keyOf = (key: Key): string | undefined => ({ admin: w.admin, reader: w.reader, global: GLOBAL, other: other.admin, none: undefined })[key];
  const headersFor = (key: Key, extra: Record<string, string> = {}): Record<string, string> => {
    const k = keyOf(key);
    return { ...(k ? { authorization: `Bearer ${k}` } : {}), ...extra };
  };
  const eventsUrl = (p: 'A' | 'B') => `/api/${w.tenantId}/project/${ids[p]}/events`;

  /** An events request (JSON array, one object, or NDJSON) with some of its records changed, or its bytes. */
  const ingestCase = (rng: Prng): Case => {
    RAW.clear();
    const project = rng.pick(['A', 'B'] as const);
    const ndjson = rng.chance(0.35);
    const n = rng.between(1, 12);
    const records: unknown[] = batch(rng, n);
    const fates = new Map<string, true | RegExp>();
    const whats: string[] = [];
    const changed = new Map<number, { count: number; fate?: true | RegExp }>();
    const mutations = rng.chance(0.15) ? 0 : rng.between(1, 3);
    for (let m = 0; m < mutations; m++) {
      const i = rng.int(records.length);
      const before = records[i];
      if (typeof before !== 'object' || before === null) continue;
      const e = { ...(before as Record<string, unknown>) };
      const r = mutateEvent(rng, e);
      records[i] = r.replace ?? e;
      whats.push(`#${i + 1} ${r.what}`);
      const seen = changed.get(i);
      // Only a single change to a record decides its fate.
      changed.set(i, seen ? { count: seen.count + 1 } : { count: 1, ...(r.fate ? { fate: r.fate } : {}) });
    }
    for (const [i, { count, fate }] of changed) if (count === 1 && fate) fates.set(ndjson ? `line ${i + 1}` : `record ${i + 1}`, fate);
    const headers = headersFor('admin', { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' });
    let text = ndjson ? records.map((r) => serialize(r)).join('\n') : rng.chance(0.1) && records.length === 1 ? serialize(records[0]) : serialize(records);
    let payload: string | Buffer = text;
    let status: readonly number[] = [200];
    let code: string | undefined;
    let message: RegExp | undefined;
    const body = rng.weighted([
      ['as is', 10],
      ['truncate', 2],
      ['bytes', 2],
      ['duplicate keys', 1],
      ['bom', 1],
      ['pretty', 1],
      ['proto', 1],
      ['near body limit', 1],
      ['over body limit', 1],
      ['count', 1],
      ['shape', 1],
      ['ndjson lines', ndjson ? 3 : 0],
    ] as const);
    let fatesHold = true;
    switch (body) {
      case 'as is':
        break;
      case 'truncate': {
        if (ndjson) {
          // A line cut short is one rejected line; the rest go on.
          const cut = rng.between(1, Math.max(1, text.length - 1));
          text = text.slice(0, cut);
          payload = text;
          fatesHold = false;
          whats.push(`truncated at ${cut}`);
        } else {
          const cut = rng.int(Math.max(1, text.length - 1));
          payload = text.slice(0, cut);
          status = [400];
          code = 'validation_failed';
          message = cut === 0 ? /empty/ : /not valid JSON/;
          whats.push(`truncated at ${cut}`);
        }
        break;
      }
      case 'bytes': {
        let bytes: Buffer = Buffer.from(text);
        for (let k = rng.between(1, 3); k > 0; k--) {
          const m = mutateBytes(rng, bytes);
          bytes = m.bytes;
          whats.push(m.op);
        }
        payload = bytes;
        status = ndjson ? [200] : [200, 400];
        fatesHold = false;
        break;
      }
      case 'duplicate keys':
        text = text.replace('{"caseId":', '{"caseId":"dup-key","caseId":');
        payload = text;
        whats.push('duplicate keys');
        break;
      case 'bom':
        payload = `\ufeff${text}`;
        if (ndjson) fatesHold = false;
        whats.push('BOM');
        break;
      case 'pretty':
        if (!ndjson) payload = text.startsWith('[') ? serialize(records, 2) : serialize(records[0], 2);
        whats.push('pretty-printed');
        break;
      case 'proto': {
        const key = rng.pick(['"__proto__":{"polluted":1}', '"constructor":{"prototype":{"polluted":1}}']);
        payload = text.replace('{', `{${key},`);
        whats.push(`key ${key}`);
        if (payload === text) break;
        if (!ndjson) {
          status = [400];
          code = 'validation_failed';
        } else fates.set('line 1', /./);
        break;
      }
      case 'near body limit': {
        // Whitespace after the JSON up to the limit: still one body within it.
        const pad = LIMITS.bodyLimitBytes - Buffer.byteLength(text) - rng.int(3);
        if (pad > 0) payload = text + (ndjson ? '\n' : ' ').repeat(pad);
        whats.push(`padded to ${Buffer.byteLength(payload)} bytes`);
        break;
      }
      case 'over body limit': {
        const over = rng.pick([1, 2, 100, 5000, 200_000]);
        const pad = LIMITS.bodyLimitBytes - Buffer.byteLength(text) + over;
        payload = rng.chance(0.5) ? text + ' '.repeat(Math.max(0, pad)) : text.replace('"caseId"', `"huge":"${'h'.repeat(Math.max(0, pad - 9))}","caseId"`);
        if (Buffer.byteLength(payload) > LIMITS.bodyLimitBytes) {
          status = [413];
          code = 'payload_too_large';
          message = /PCG_BODY_LIMIT_BYTES/;
        }
        whats.push(`${Buffer.byteLength(payload)} bytes`);
        break;
      }
      case 'count': {
        const count = LIMITS.limitEventsPerRequest + rng.between(-1, 3);
        const many = batch(rng, count);
        text = ndjson ? many.map((r) => JSON.stringify(r)).join('\n') : JSON.stringify(many);
        payload = text;
        fates.clear();
        whats.length = 0;
        whats.push(`${count} events`);
        if (count > LIMITS.limitEventsPerRequest) {
          status = [413];
          code = 'payload_too_large';
          message = /^limit PCG_LIMIT_EVENTS_PER_REQUEST: /;
        }
        break;
      }
      case 'shape': {
        const shape = rng.pick(['null', '1', '"x"', 'true', '[]', '{}', '[null]', '[1,"a",[]]', '[[]]', '{"events":[]}', '']);
        payload = shape;
        fates.clear();
        whats.length = 0;
        whats.push(`body ${shape || '(empty)'}`);
        if (!ndjson) {
          if (['null', '1', '"x"', 'true', ''].includes(shape)) {
            status = [400];
            code = 'validation_failed';
          }
        }
        break;
      }
      case 'ndjson lines': {
        const lines = text.split('\n');
        const op = rng.pick(['crlf', 'blank', 'garbage', 'nul', 'deep', 'array', 'invalid-utf8', 'ws', 'unicode-separator']);
        whats.push(`lines: ${op}`);
        fatesHold = false;
        if (op === 'crlf') payload = lines.join('\r\n');
        else if (op === 'blank') payload = lines.flatMap((l) => [l, '', '   ']).join('\n');
        else if (op === 'garbage') payload = [...lines, rng.pick(['not json', '{', '[1,', '}', 'nul', '{"a":1}{"b":2}'])].join('\n');
        else if (op === 'nul') payload = lines.map((l, i) => (i === 0 ? l.replace(',', ',\u0000') : l)).join('\n');
        else if (op === 'deep') payload = [...lines, nestedJson(rng.pick([100, 3000, 5000]))].join('\n');
        else if (op === 'array') payload = [...lines, '[]', '[{"caseId":"x","activity":"a","timestamp":0}]'].join('\n');
        else if (op === 'invalid-utf8') payload = Buffer.concat([Buffer.from(lines[0]!.slice(0, 5)), Buffer.from([0xff, 0xc3]), Buffer.from(lines.join('\n').slice(5))]);
        else if (op === 'ws') payload = lines.map((l) => ` \t${l}\t `).join('\n');
        else payload = lines.join('\u2028');
        break;
      }
    }
    // A body over the limit is refused before it is read as JSON; JSON with a __proto__ key is refused whole.
    if (Buffer.byteLength(payload) > LIMITS.bodyLimitBytes) {
      status = [413];
      code = 'payload_too_large';
      message = /PCG_BODY_LIMIT_BYTES/;
    } else if (!ndjson && status.includes(200) && /"__proto__"\s*:/.test(payload.toString())) {
      status = [400];
      code = 'validation_failed';
    }
    return {
      door: ndjson ? 'ingest-ndjson' : 'ingest-json',
      what: `${project} ${n} events; ${whats.join('; ') || 'valid'}`,
      req: { method: 'POST', url: eventsUrl(project), headers, payload },
      status,
      ...(code ? { code } : {}),
      ...(message ? { message } : {}),
      ...(fatesHold && status.includes(200) && fates.size ? { records: fates } : {}),
    };
  };

  const isStream = (def: RouteDef) => def.url.endsWith('/graph/stream');
  const isEvents = (def: RouteDef) => def.url.endsWith('/events');
  const isUpload = (def: RouteDef) => def.bodyKind === 'raw';

  /** Real ids for a route's parameters; a DELETE gets an unknown last id, so nothing the fuzz needs is ever deleted. */
  const fill = (def: RouteDef, rng: Prng): { url: string; params: [string, string][] } => {
    const names = [...def.url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
    const values: Record<string, string> = {
      tenantId: w.tenantId,
      projectId: def.url.includes('/dataset') ? ids.C : def.url.endsWith('/events') ? ids[rng.pick(['A', 'B'] as const)] : ids.A,
      investigationId: ids.inv,
      notebookId: ids.nb,
      blockId: ids.block,
      dashboardId: ids.dash,
      sourceId: ids.source,
      datasetId: ids.dataset,
      userId: ids.spareUser,
      keyId: ids.spareKey,
      id: ids.globalKey,
    };
    if (def.method === 'DELETE' && names.length) values[names[names.length - 1]!] = crypto.randomUUID();
    const params = names.map((n) => [n, values[n]!] as [string, string]);
    let url = def.url;
    for (const [n, v] of params) url = url.replace(`:${n}`, v);
    return { url, params };
  };

  const keyFor = (def: RouteDef): Key => (def.access === 'public' ? 'none' : def.access === 'global' ? 'global' : def.access === 'any-key' ? 'admin' : def.access.tenant === 'read' ? 'reader' : 'admin');

  /** A valid body for each JSON route (the spare user and its key stand in wherever a user is named). */
  const bodyFor = (def: RouteDef, rng: Prng): unknown => {
    const u = def.url;
    if (u === '/api/tenant') return { name: `t ${rng.word(6)}`, description: 'fuzz' };
    if (u === '/api/tenant/:tenantId') return { name: `tenant ${rng.word(4)}` };
    if (u === '/api/tenant/:tenantId/user') return { userId: ids.spareUser, permissions: ['read'] };
    if (u === '/api/user') return { email: `u-${rng.word(10)}@example.com`, name: 'u' };
    if (u === '/api/user/:userId') return { name: `user ${rng.word(4)}` };
    if (u.endsWith('/apikey')) return { userId: ids.spareUser, name: 'k', permissions: ['read'] };
    if (u === '/admin/global-api-keys') return { name: 'g' };
    if (u === '/api/:tenantId/project') return { name: `p ${rng.word(5)}` };
    if (u === '/api/:tenantId/project/:projectId') return { name: 'A', description: rng.word(8) };
    if (u.endsWith('/investigation')) return { name: 'i', scope: { activities: ['b'], from: '2024-01-01T00:00:00Z' } };
    if (u.endsWith('/investigation/:investigationId')) return { name: 'i' };
    if (u.endsWith('/notebook') || u.endsWith('/notebook/:notebookId')) return { name: 'n' };
    if (u.endsWith('/block')) return { spec: { type: rng.pick(['variants', 'kpi']) } };
    if (u.endsWith('/block/:blockId')) return { name: 'b', position: 0 };
    if (u.endsWith('/dashboard')) return { name: 'd', blockIds: [ids.block] };
    if (u.endsWith('/dashboard/:dashboardId')) return { name: 'd' };
    if (u.endsWith('/source')) return { brokers: ['127.0.0.1:9'], topic: `fuzz-${rng.word(3)}` };
    if (u.endsWith('/source/:sourceId')) return { name: 'src' };
    return undefined;
  };

  /** What a valid request of a route is answered (the statuses its own limits allow too). */
  const successOf = (def: RouteDef): number[] => {
    // A DELETE names an unknown last id (see fill).
    if (def.method === 'DELETE') return [404];
    if (isStream(def)) return [400];
    if (def.url === '/metrics') return [404];
    if (def.url === '/api/:tenantId/project' && def.method === 'POST') return [201, 422];
    if (def.url.endsWith('/source') && def.method === 'POST') return [201, 422];
    if (def.url === '/api/user' && def.method === 'POST') return [201, 409];
    return [def.status ?? 200];
  };

  /** A valid request of a route: the right key, real ids, a valid body (a stream is always refused: bogus=1). */
  const baseRequest = (def: RouteDef, rng: Prng): Case => {
    const { url } = fill(def, rng);
    const headers = headersFor(keyFor(def));
    if (def.access === 'any-key') Object.assign(headers, { 'x-tenant-id': w.tenantId, 'x-project-id': ids.A });
    let payload: string | Buffer | undefined;
    if (isEvents(def)) {
      payload = JSON.stringify(batch(rng, rng.between(1, 4)));
      headers['content-type'] = 'application/json';
    } else if (isUpload(def)) {
      payload = CSV;
      headers['content-type'] = 'application/octet-stream';
    } else if (def.body) {
      const body = bodyFor(def, rng);
      if (body !== undefined) {
        payload = JSON.stringify(body);
        headers['content-type'] = 'application/json';
      }
    }
    return {
      door: 'base',
      what: `${def.method} ${def.url}`,
      req: { method: def.method, url: isStream(def) ? `${url}?bogus=1` : url, headers, ...(payload !== undefined ? { payload } : {}) },
      status: successOf(def),
    };
  };

  const pickRoute = (rng: Prng, filter: (d: RouteDef) => boolean = () => true) => rng.pick(routes.filter(filter));

  /** Authorization, content type and coding, request ids, big and many headers, conditional requests. */
  const headerCase = (rng: Prng): Case => {
    const def = pickRoute(rng);
    const c = baseRequest(def, rng);
    c.door = 'header';
    const h = c.req.headers;
    const hasBody = c.req.payload !== undefined;
    const kind = rng.weighted([
      ['auth', 4],
      ['wrong key', 3],
      ['content-type', hasBody ? 4 : 0],
      ['content-encoding', hasBody ? 3 : 0],
      ['request id', 2],
      ['huge header', 1],
      ['many headers', 1],
      ['if-none-match', def.url.endsWith('/graph') ? 2 : 0],
      ['ping headers', def.access === 'any-key' ? 4 : 0],
    ] as const);
    const needsKey = def.access !== 'public';
    switch (kind) {
      case 'auth': {
        const key = keyOf(keyFor(def)) ?? w.admin;
        const value = rng.pick([
          null,
          `Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
          `Token ${key}`,
          'Bearer',
          'Bearer ',
          `Bearer ${key} extra`,
          `Bearer ${key}x`,
          `Bearer ${'k'.repeat(20_000)}`,
          `Bearer ${key.slice(0, -1)}`,
          `Bearer ü${key}`,
          `bearer ${key}`,
          `BEARER\t${key}`,
          `Bearer ${key}  `,
          key,
          '',
        ]);
        if (value === null) delete h.authorization;
        else h.authorization = value;
        c.what = `Authorization ${value === null ? '(none)' : JSON.stringify(value.slice(0, 40))}`;
        const valid = value !== null && /^Bearer[ \t]+\S+[ \t]*$/i.test(value) && value.trim().split(/[ \t]+/)[1] === key;
        if (needsKey && !valid) {
          c.status = [401];
          c.code = 'invalid_token';
        }
        break;
      }
      case 'wrong key': {
        if (!needsKey) break;
        const key = rng.pick(['reader', 'global', 'other', 'admin'] as const);
        h.authorization = `Bearer ${keyOf(key)}`;
        c.what = `${key} key`;
        if (def.access === 'global') {
          if (key !== 'global') {
            c.status = [401];
            c.code = 'invalid_token';
          }
        } else if (def.access === 'any-key') {
          if (key === 'global' || key === 'other') {
            c.status = [403];
            c.code = 'forbidden';
          }
        } else if (key === 'global' || key === 'other' || (key === 'reader' && typeof def.access === 'object' && def.access.tenant !== 'read')) {
          c.status = [403];
          c.code = 'forbidden';
        }
        break;
      }
      case 'content-type': {
        const json = !isUpload(def);
        const value = rng.pick([
          null,
          'text/plain',
          'application/xml',
          'multipart/form-data; boundary=x',
          'application/x-www-form-urlencoded',
          'application/json; charset=utf-8',
          'application/json; charset=utf-16',
          'application/x-ndjson',
          'application/octet-stream',
          'application/json+x',
          ';;;',
          'image/png',
        ]);
        if (value === null) delete h['content-type'];
        else h['content-type'] = value;
        c.what = `Content-Type ${String(value)}`;
        const jsonLike = value !== null && /^application\/json(;|$)/.test(value);
        const ndjson = value === 'application/x-ndjson';
        const fine = json ? jsonLike || (ndjson && isEvents(def)) : value === 'application/octet-stream';
        if (!fine) {
          c.status = [415];
          c.code = 'unsupported_media_type';
        } else if (ndjson && isEvents(def)) {
          // The JSON array on one line is one record, an array: refused as a dead letter.
          c.status = [200];
        }
        break;
      }
      case 'content-encoding': {
        const coding = rng.pick(['gzip', 'gzip', 'deflate', 'br', 'x-custom', 'identity', 'gzip, identity']);
        const body = Buffer.from(c.req.payload as string | Buffer);
        const encoded = rng.chance(0.7) && coding.startsWith('gzip') ? gzipSync(body) : coding === 'deflate' && rng.chance(0.7) ? deflateSync(body) : coding === 'br' && rng.chance(0.7) ? brotliCompressSync(body) : body;
        h['content-encoding'] = coding;
        c.req.payload = encoded;
        c.what = `Content-Encoding ${coding}${encoded === body ? ' (body not encoded)' : ''}`;
        if (coding !== 'identity' && !isUpload(def)) {
          c.status = [415];
          c.code = 'unsupported_media_type';
        } else if (isUpload(def) && coding !== 'identity') {
          // The upload is the file as sent: a compressed one is read as the file it is (gzip by its magic number).
          c.status = [201, 400];
        }
        break;
      }
      case 'request id': {
        const good = rng.chance(0.5);
        const value = good ? `fuzz-${rng.word(rng.between(1, 40))}.${rng.int(1000)}:${rng.word(3)}` : rng.pick(['has space', 'x'.repeat(129), '', '<script>', 'ünï', 'a\tb', '../..']);
        h['x-request-id'] = value;
        if (good) c.requestId = value;
        c.what = `X-Request-Id ${JSON.stringify(value.slice(0, 40))}`;
        break;
      }
      case 'huge header':
        h[`x-fuzz-${rng.word(3)}`] = 'v'.repeat(rng.pick([1000, 20_000, 100_000]));
        c.what = 'a huge header';
        break;
      case 'many headers':
        for (let i = 0; i < 300; i++) h[`x-many-${i}`] = rng.word(4);
        c.what = '300 headers';
        break;
      case 'if-none-match': {
        const value = rng.pick(['*', '"0"', 'W/"1"', 'garbage', '', `"${graphVersion}"`, '"a", "b", *']);
        h['if-none-match'] = value;
        c.what = `If-None-Match ${value}`;
        c.status = [200, 304];
        break;
      }
      case 'ping headers': {
        const field = rng.pick(['x-tenant-id', 'x-project-id']);
        const value = rng.pick([null, '', 'not-a-guid', w.tenantId.toUpperCase(), ids.A.toUpperCase(), crypto.randomUUID(), other.tenantId, `${w.tenantId}, ${w.tenantId}`, ' ']);
        if (value === null) delete h[field];
        else h[field] = value;
        c.what = `${field} ${JSON.stringify(value)}`;
        const expected = field === 'x-tenant-id' ? w.tenantId : ids.A;
        if (value === null || value === '') {
          c.status = [400];
          c.code = 'missing_headers';
        } else if (value.toLowerCase() === expected) c.status = [200];
        else if (!/^[0-9a-f-]{36}$/i.test(value)) {
          c.status = [400];
          c.code = value.trim() ? 'validation_failed' : undefined!;
          if (!value.trim()) delete c.code;
        } else {
          c.status = [403];
          c.code = 'forbidden';
        }
        break;
      }
    }
    return c;
  };

  /** Unknown, repeated, badly encoded, huge and boundary values of every route's query. */
  const queryCase = (rng: Prng): Case => {
    const def = pickRoute(rng, (d) => d.method === 'GET' || isUpload(d) || rng.chance(0.2));
    const c = baseRequest(def, rng);
    c.door = 'query';
    const url = c.req.url.split('?')[0]!;
    const graph = def.url.endsWith('/graph');
    const deadLetters = def.url.endsWith('/dead-letters');
    const kind = rng.weighted([
      ['unknown', 2],
      ['bad encoding', 2],
      ['huge', 1],
      ['odd', 1],
      ['version', graph ? 5 : 0],
      ['investigation', graph || isStream(def) ? 4 : 0],
      ['dead letters', deadLetters ? 5 : 0],
      ['upload options', isUpload(def) ? 5 : 0],
    ] as const);
    const refused = () => {
      c.status = [400];
      c.code = 'validation_failed';
    };
    const set = (q: string) => {
      c.req.url = `${url}?${q}`;
      c.what = `?${q.slice(0, 80)}`;
    };
    switch (kind) {
      case 'unknown':
        set(rng.pick(['x=1', 'bogus', '__proto__=1', 'constructor[prototype]=1', 'a[b]=c', `${rng.word(5)}=${rng.word(5)}`, '=1', 'toString=1']));
        refused();
        break;
      case 'bad encoding': {
        const q = rng.pick(['%zz=1', 'x=%zz', '%=1', 'x=%e2%82', 'x=%00', '%C0%AF=1', 'x=%ff%fe']);
        set(q);
        refused();
        break;
      }
      case 'huge': {
        const name = graph ? rng.pick(['version', 'investigation', 'x']) : 'x';
        set(`${name}=${'9'.repeat(rng.pick([400, 5000, 60_000]))}`);
        refused();
        break;
      }
      case 'odd': {
        const q = rng.pick(['', '&', '&&&', '#frag', ';', '+']);
        c.req.url = `${url}?${q}`;
        c.what = `?${q}`;
        if (q === ';' || q === '+') refused();
        break;
      }
      case 'version': {
        const v = rng.pick([String(graphVersion), '0', '123456', '-1', '1.5', 'abc', '', '1e3', '0x10', ' 1', '9007199254740993', 'Infinity', 'NaN']);
        const both = rng.chance(0.2);
        const repeated = rng.chance(0.15);
        set(`version=${encodeURIComponent(v)}${repeated ? `&version=${encodeURIComponent(v)}` : ''}${both ? `&investigation=${ids.inv}` : ''}`);
        const n = v.trim() === '' ? 0 : Number(v);
        if (repeated || !Number.isSafeInteger(n) || n < 0) refused();
        else if (both) {
          c.status = [404];
          c.code = 'not_found';
        } else if (n === graphVersion) c.status = [200];
        else {
          // A version served since (the fuzz serves new ones) or none.
          c.status = [200, 404];
        }
        break;
      }
      case 'investigation': {
        const v = rng.pick([ids.inv, ids.inv.toUpperCase(), crypto.randomUUID(), 'not-a-guid', '', `${ids.inv}x`, ids.inv.replace(/-/g, '')]);
        const repeated = rng.chance(0.15);
        set(`investigation=${v}${repeated ? `&investigation=${v}` : ''}${isStream(def) ? '&bogus=1' : ''}`);
        if (repeated || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v) || isStream(def)) refused();
        else if (v.toLowerCase() === ids.inv) c.status = [200];
        else {
          c.status = [404];
          c.code = 'not_found';
        }
        break;
      }
      case 'dead letters': {
        const after = rng.pick([null, '0:0', '1:2', 'x', '1:2:3', '-1:0', '', '00:00', '99999999999999999999:1']);
        const limit = rng.pick([null, '0', '1', '1000', '1001', '1.5', '', '-1', 'ten']);
        const q = [after !== null ? `after=${after}` : '', limit !== null ? `limit=${limit}` : ''].filter(Boolean).join('&');
        set(q);
        const badAfter = after !== null && !/^\d+:\d+$/.test(after);
        const n = limit === null ? 100 : limit.trim() === '' ? 0 : Number(limit);
        const badLimit = !Number.isInteger(n) || n < 1 || n > 1000;
        if (badAfter || badLimit) refused();
        else c.status = [200];
        break;
      }
      case 'upload options': {
        const options = rng.pick([
          'format=csv',
          'format=xes',
          'format=ndjson',
          'format=ocel2-json',
          'format=bogus',
          'lifecycle=complete',
          'lifecycle=x',
          'delimiter=;',
          `delimiter=${'x'.repeat(9)}`,
          'delimiter=',
          'caseColumn=nope',
          'caseColumn=case&activityColumn=activity&timestampColumn=time',
          'timezone=Europe/Berlin',
          'timezone=Mars/Olympus',
          'partial=keep',
          'partial=yes',
          `name=${'n'.repeat(201)}`,
          'name=%20',
          'classifier=x',
          'caseNotion=order',
        ]);
        set(options);
        c.status = [201, 400];
        if (/format=bogus|lifecycle=x|delimiter=x{9}|delimiter=(&|$)|partial=yes|name=n{201}|name=%20/.test(options)) refused();
        break;
      }
    }
    // A stream that could open would never end: it always carries a parameter it refuses.
    if (isStream(def) && !c.req.url.split('#')[0]!.includes('bogus=1')) {
      const [before, fragment] = c.req.url.split('#') as [string, string | undefined];
      c.req.url = `${before}${before.includes('?') ? '&' : '?'}bogus=1${fragment === undefined ? '' : `#${fragment}`}`;
      refused();
    }
    return c;
  };

  /** Path parameters: upper-case GUIDs, unknown ones, overlong, dotted, badly encoded. */
  const pathCase = (rng: Prng): Case => {
    const def = pickRoute(rng, (d) => d.url.includes(':'));
    const c = baseRequest(def, rng);
    c.door = 'path';
    const { params } = fill(def, rng);
    const [name] = rng.pick(params);
    const last = params[params.length - 1]![0] === name;
    const kind = rng.weighted([
      ['upper', def.method === 'DELETE' ? 0 : 4],
      ['unknown', 3],
      ['malformed', 3],
      ['overlong', 2],
      // Dot segments are resolved by the client: on a DELETE they could name the project itself.
      ['dots', def.method === 'DELETE' ? 0 : 2],
      ['encoding', 2],
    ] as const);
    const [path, query] = c.req.url.split('?') as [string, string | undefined];
    // The value in the filled URL (a DELETE's last one is a fresh unknown id).
    const segments = path.split('/');
    const at = segments.findIndex((s, i) => def.url.split('/')[i] === `:${name}`);
    const current = segments[at]!;
    let replacement = current;
    const refused = (code: string, status: number, message?: RegExp) => {
      c.status = [status];
      c.code = code;
      if (message) c.message = message;
    };
    switch (kind) {
      case 'upper':
        replacement = current.toUpperCase();
        break;
      case 'unknown':
        replacement = crypto.randomUUID();
        // A tenant the key does not hold is 403 (checked before the query); any other unknown id is 404 (a stream's bogus query is refused first).
        if (name === 'tenantId' && typeof def.access === 'object') refused('forbidden', 403);
        else if (isStream(def)) refused('validation_failed', 400);
        else refused('not_found', 404);
        break;
      case 'malformed':
        replacement = rng.pick(['not-a-guid', current.replace(/-/g, ''), `{${current}}`, `${current}0`, 'x'.repeat(100), '%20', '%E2%82%AC', '0', '-1', 'null', "'1'"]);
        refused('validation_failed', 400);
        break;
      case 'overlong':
        replacement = 'a'.repeat(rng.between(201, 600));
        refused('validation_failed', 400, /^a path segment is longer than allowed$/);
        break;
      case 'dots':
        replacement = rng.pick(['.', '..', '%2e', '%2e%2e', '...', '.%2e']);
        c.status = undefined;
        break;
      case 'encoding':
        replacement = rng.pick(['%zz', '%', '%e2%82', `${current.slice(0, 8)}%2F${current.slice(9)}`, '%00', '%C0%AF']);
        refused('validation_failed', 400);
        break;
    }
    segments[at] = replacement;
    c.req.url = segments.join('/') + (query !== undefined ? `?${query}` : '');
    c.what = `${def.method} ${def.url} ${name}=${replacement.slice(0, 60)}${replacement.length > 60 ? `…(${replacement.length})` : ''}${last ? '' : ' (not last)'}`;
    // Refusals of the path come after the key check: a route's key errors stay as they are.
    return c;
  };

  /** Methods a path does not serve: 405 with Allow; HEAD on a GET route answers as GET, without a body. */
  const methodCase = (rng: Prng): Case => {
    const def = pickRoute(rng, (d) => !isStream(d));
    const c = baseRequest(def, rng);
    c.door = 'method';
    const path = c.req.url.split('?')[0]!;
    const served: string[] = routes.filter((r) => new RegExp(`^${r.url.replace(/:[A-Za-z]+/g, '[^/]+')}$`).test(path)).map((r) => r.method);
    if (served.includes('GET') && def.method === 'GET' && rng.chance(0.3)) {
      c.req.method = 'HEAD';
      c.what = `HEAD ${def.url}`;
      return c;
    }
    const free = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'].filter((m) => !served.includes(m));
    if (!free.length) return c;
    const method = rng.pick(free);
    c.req.method = method;
    c.what = `${method} ${def.url}`;
    c.status = [405];
    c.code = 'method_not_allowed';
    return c;
  };

  /** JSON bodies of every other route: wrong types, missing and unknown keys, huge strings, deep nesting, edge text, broken bytes. */
  const bodyCase = (rng: Prng): Case => {
    const def = pickRoute(rng, (d) => d.body !== undefined && !isEvents(d) && !isUpload(d));
    const c = baseRequest(def, rng);
    c.door = 'body';
    const body = JSON.parse(c.req.payload as string) as Record<string, unknown>;
    const keys = Object.keys(body);
    const kind = rng.weighted([
      ['wrong type', 3],
      ['missing', 1],
      ['unknown key', 2],
      ['long string', 2],
      ['over body limit', 1],
      ['deep', 1],
      ['edge text', 3],
      ['shape', 1],
      ['truncate', 1],
      ['bytes', 2],
      ['proto', 1],
    ] as const);
    const refused = () => {
      c.status = [400];
      c.code = 'validation_failed';
    };
    let text: string | Buffer = '';
    switch (kind) {
      case 'wrong type': {
        const k = rng.pick(keys);
        body[k] = rng.pick(WRONG);
        text = JSON.stringify(body);
        c.what = `${k}=${JSON.stringify(body[k])}`;
        c.status = undefined;
        break;
      }
      case 'missing': {
        const k = rng.pick(keys);
        delete body[k];
        text = JSON.stringify(body);
        c.what = `no ${k}`;
        c.status = undefined;
        break;
      }
      case 'unknown key':
        body[`x_${rng.word(4)}`] = rng.pick(WRONG);
        text = JSON.stringify(body);
        c.what = 'an unknown key';
        refused();
        break;
      case 'long string': {
        const k = rng.pick(keys);
        body[k] = 'L'.repeat(rng.pick([199, 200, 201, 2001, 20_000]));
        text = JSON.stringify(body);
        c.what = `${k} of ${(body[k] as string).length} characters`;
        c.status = undefined;
        break;
      }
      case 'over body limit': {
        const k = rng.pick(keys);
        body[k] = 'L'.repeat(LIMITS.bodyLimitBytes + rng.pick([0, 1, 1000]));
        text = JSON.stringify(body);
        c.what = `body of ${text.length} bytes`;
        c.status = [413];
        c.code = 'payload_too_large';
        c.message = /PCG_BODY_LIMIT_BYTES/;
        break;
      }
      case 'deep': {
        const k = rng.pick(keys);
        const depth = rng.pick([50, 2000, 5000]);
        text = JSON.stringify(body).replace(`"${k}":`, `"${k}":${nestedJson(depth, JSON.stringify(body[k]))},"${k}_":`);
        c.what = `${k} nested ${depth} deep`;
        refused();
        break;
      }
      case 'edge text': {
        const k = rng.pick(keys);
        const v = rng.pick(EDGE_TEXT);
        body[k] = typeof body[k] === 'string' ? v : Array.isArray(body[k]) ? [v] : v;
        text = JSON.stringify(body);
        c.what = `${k}=${JSON.stringify(body[k])}`;
        c.status = undefined;
        break;
      }
      case 'shape': {
        text = rng.pick(['null', '[]', '"x"', '1', 'true', '{}', '[{}]']);
        c.what = `body ${text}`;
        if (text !== '{}') refused();
        else c.status = undefined;
        break;
      }
      case 'truncate': {
        const full = JSON.stringify(body);
        const cut = rng.int(full.length - 1);
        text = full.slice(0, cut);
        c.what = `truncated at ${cut}`;
        refused();
        break;
      }
      case 'bytes': {
        let bytes: Buffer = Buffer.from(JSON.stringify(body));
        const ops = [];
        for (let k = rng.between(1, 3); k > 0; k--) {
          const m = mutateBytes(rng, bytes);
          bytes = m.bytes;
          ops.push(m.op);
        }
        text = bytes;
        c.what = ops.join(', ');
        c.status = undefined;
        break;
      }
      case 'proto':
        text = JSON.stringify(body).replace('{', rng.pick(['{"__proto__":{"admin":true},', '{"constructor":{"prototype":{"admin":true}},']));
        c.what = 'prototype keys';
        refused();
        break;
    }
    c.req.payload = text;
    c.what = `${def.method} ${def.url}: ${c.what}`;
    return c;
  };

  /** Dataset uploads: log files valid, cut, flipped, compressed and broken, near and over the upload limit. */
  const uploadCase = (rng: Prng): Case => {
    const def = routes.find((d) => isUpload(d))!;
    const c = baseRequest(def, rng);
    c.door = 'upload';
    const [name, file] = rng.pick([
      ['csv', CSV],
      ['ndjson', NDJSON_FILE],
      ['xes', XES],
    ] as const);
    let bytes: Buffer = Buffer.from(file);
    const ops: string[] = [];
    const kind = rng.weighted([
      ['valid', 2],
      ['bytes', 4],
      ['truncate', 2],
      ['gzip', 1],
      ['gzip cut', 2],
      ['gzip corrupt', 2],
      ['huge field', 1],
      ['near limit', 1],
      ['over limit', 2],
      ['empty', 1],
      ['binary', 1],
    ] as const);
    c.status = [201, 400];
    switch (kind) {
      case 'valid':
        c.status = [201];
        break;
      case 'bytes':
        for (let k = rng.between(1, 3); k > 0; k--) {
          const m = mutateBytes(rng, bytes);
          bytes = m.bytes;
          ops.push(m.op);
        }
        break;
      case 'truncate': {
        const cut = rng.int(bytes.length);
        bytes = bytes.subarray(0, cut);
        ops.push(`cut at ${cut}`);
        break;
      }
      case 'gzip':
        bytes = gzipSync(bytes);
        c.status = [201];
        break;
      case 'gzip cut': {
        const gz = gzipSync(bytes);
        const cut = rng.between(10, gz.length - 1);
        bytes = gz.subarray(0, cut);
        ops.push(`cut at ${cut} of ${gz.length}`);
        break;
      }
      case 'gzip corrupt': {
        const gz = Buffer.from(gzipSync(bytes));
        for (let k = rng.between(1, 6); k > 0; k--) {
          const i = rng.between(10, gz.length - 9);
          gz[i] = gz[i]! ^ (1 << rng.int(8));
        }
        bytes = gz;
        break;
      }
      case 'huge field': {
        const big = 'F'.repeat(rng.pick([LIMITS.limitAttributeValueBytes + 1, 4000, 12_000]));
        bytes = Buffer.from(name === 'csv' ? file.replace(',10\n', `,${big}\n`) : name === 'ndjson' ? file.replace('"amount":3', `"amount":"${big}"`) : file.replace('value="7"', `value="${big}"`));
        ops.push(`a field of ${big.length} bytes`);
        break;
      }
      case 'near limit': {
        const pad = LIMITS.uploadLimitBytes - bytes.length - rng.int(3);
        bytes = Buffer.concat([bytes, Buffer.from(name === 'xes' ? ' '.repeat(pad) : '\n'.repeat(pad))]);
        ops.push(`${bytes.length} bytes`);
        break;
      }
      case 'over limit': {
        const over = rng.pick([1, 2, 1000, 100_000]);
        bytes = Buffer.concat([bytes, Buffer.from('\n'.repeat(LIMITS.uploadLimitBytes - bytes.length + over))]);
        ops.push(`${bytes.length} bytes`);
        c.status = [413];
        c.code = 'payload_too_large';
        c.message = /PCG_UPLOAD_LIMIT_BYTES/;
        break;
      }
      case 'empty':
        bytes = Buffer.alloc(0);
        c.status = [400];
        c.code = 'validation_failed';
        break;
      case 'binary':
        bytes = rng.bytes(rng.between(1, 2000));
        break;
    }
    c.req.payload = bytes;
    c.req.url = `${c.req.url}?name=${name}-${rng.word(4)}${rng.chance(0.3) ? '&partial=keep' : ''}`;
    c.what = `${name} ${kind}${ops.length ? ` (${ops.join(', ')})` : ''}${c.req.url.includes('partial') ? ' partial=keep' : ''}`;
    return c;
  };

  /** The MCP endpoint: JSON-RPC right and wrong, tool calls with odd arguments. Its own errors are JSON-RPC; the key errors are the API's. */
  const mcpCase = (rng: Prng): Case => {
    const headers = headersFor('reader', { 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    const id = rng.pick([1, 'a', null, -1, 1.5, {}, 'x'.repeat(1000)]);
    const args = rng.pick([
      { projectId: ids.A },
      { projectId: ids.A.toUpperCase() },
      { projectId: crypto.randomUUID() },
      { projectId: 'not-a-guid' },
      { projectId: ids.A, limit: -1 },
      { projectId: ids.A, cursor: '%zz' },
      {},
      { projectId: ids.B, block: { type: 'variants', limit: 5 } },
      { projectId: ids.A, block: { type: 'conformance', allowedTransitions: [['a', 'b']] } },
      { projectId: ids.A, events: [{ caseId: 'mcp', activity: 'a', timestamp: 0 }] },
    ]);
    const body = rng.pick([
      { jsonrpc: '2.0', id, method: 'tools/list' },
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: rng.pick(['get_graph', 'list_projects', 'graph_versions', 'list_cases', 'run_block', 'ingest_events', 'explain_decision', 'diff_graphs', 'nope']), arguments: args } },
      { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } },
      { jsonrpc: '1.0', id, method: 'tools/list' },
      { id, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'ping' }],
      { jsonrpc: '2.0', id, method: 'x'.repeat(5000) },
      [],
      null,
    ]);
    let payload: string | Buffer = JSON.stringify(body);
    const what = [`${JSON.stringify(body).slice(0, 80)}`];
    let status: number[] | undefined;
    let code: string | undefined;
    const kind = rng.weighted([
      ['as is', 5],
      ['bytes', 2],
      ['no key', 1],
      ['global key', 1],
    ] as const);
    if (kind === 'bytes') {
      const m = mutateBytes(rng, Buffer.from(payload));
      payload = m.bytes;
      what.push(m.op);
    } else if (kind === 'no key') {
      delete headers.authorization;
      status = [401];
      code = 'invalid_token';
    } else if (kind === 'global key') {
      headers.authorization = `Bearer ${GLOBAL}`;
      status = [403];
      code = 'forbidden';
    }
    return { door: 'mcp', what: `${kind}: ${what.join(' ')}`, req: { method: 'POST', url: '/mcp', headers, payload }, ...(status ? { status } : {}), ...(code ? { code } : {}), foreignErrors: !code, readOnly: true };
  };

  const doors: readonly (readonly [(rng: Prng) => Case, number])[] = [
    [ingestCase, 24],
    [headerCase, 15],
    [queryCase, 14],
    [pathCase, 13],
    [methodCase, 5],
    [bodyCase, 12],
    [uploadCase, 4],
    [mcpCase, 3],
    [(rng) => baseRequest(pickRoute(rng), rng), 3],
  ];

  // ---------------------------------------------------------------- the run

  /** The records an answered events request carried, with their locations, as the server reads them. */
  const recordsOf = (c: Case): { records: unknown[]; locations: string[]; lines: number } => {
    const text = Buffer.from(c.req.payload as string | Buffer).toString('utf8');
    if (/ndjson/i.test(c.req.headers['content-type'] ?? '')) {
      const part = readNdjson(text);
      return { records: part.records, locations: part.locations, lines: part.rejected.length };
    }
    const body = JSON.parse(text.replace(/^\ufeff/, ''));
    const records = Array.isArray(body) ? body : [body];
    return { records, locations: records.map((_, i) => `record ${i + 1}`), lines: 0 };
  };

  const stagedLeft = () => {
    const dir = join(t.context.states.dirOf(ids.C), 'datasets');
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith('.upload-')) : [];
  };

  async function run(c: Case): Promise<string[]> {
    const problems: string[] = [];
    const before = fingerprint();
    const stagedBefore = c.req.url.includes('/dataset') ? stagedLeft() : [];
    let r;
    let timer: NodeJS.Timeout | undefined;
    try {
      // A request left unanswered is a failure of its own (and must not stall the run).
      r = await Promise.race([
        t.app.inject(c.req),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ANSWER_MS} ms`)), ANSWER_MS))),
      ]);
    } catch (error) {
      return [`inject: ${String(error)}`];
    } finally {
      clearTimeout(timer);
    }
    const status = r.statusCode;
    const text = r.body;
    if (status >= 500) problems.push(`${status}: ${text.slice(0, 300)}`);
    if (c.status && !c.status.includes(status)) problems.push(`status ${status}, expected ${c.status.join(' or ')}: ${text.slice(0, 300)}`);
    const requestId = r.headers['x-request-id'];
    if (typeof requestId !== 'string' || !requestId) problems.push('no X-Request-Id');
    if (c.requestId && requestId !== c.requestId) problems.push(`X-Request-Id ${String(requestId)}, sent ${c.requestId}`);
    const apiError = status >= 400 && c.req.method !== 'HEAD' && !(c.foreignErrors && !/"requestId"/.test(text));
    if (apiError) problems.push(...errorFormatProblems(status, r.headers, text, t.dir));
    if (status >= 400 && (c.code || c.message)) {
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = {};
      }
      if (c.code && body.error !== c.code) problems.push(`error ${String(body.error)}, expected ${c.code}`);
      if (c.message && !c.message.test(String(body.message))) problems.push(`message ${JSON.stringify(body.message)} does not match ${c.message}`);
    }
    if (c.req.method === 'HEAD' && text.length) problems.push('HEAD answered with a body');
    if ((status >= 400 || c.readOnly) && fingerprint() !== before) problems.push(`a refused request changed the state:\n  before ${before}\n  after  ${fingerprint()}`);
    const staged = (c.req.url.includes('/dataset') ? stagedLeft() : []).filter((f) => !stagedBefore.includes(f));
    if (staged.length) problems.push(`an upload (answered ${status}) left staged files: ${staged.join(', ')}`);

    // An answered events request: what it says it took is what the project must hold.
    const m = /^\/api\/[^/]+\/project\/([^/?]+)\/events/.exec(c.req.url);
    const project = m ? (['A', 'B'] as const).find((p) => ids[p] === m[1]!.toLowerCase()) : undefined;
    if (project && status === 200 && c.req.method === 'POST') {
      const answer = JSON.parse(text);
      const { records, locations, lines } = recordsOf(c);
      if (answer.accepted + answer.duplicates + answer.rejected !== records.length + lines) {
        problems.push(`answer ${JSON.stringify(answer).slice(0, 200)} does not add up to ${records.length} records and ${lines} broken lines`);
      }
      if (answer.rejected > answer.rejections.length) problems.push(`more rejections (${answer.rejected}) than listed: the fuzz cannot tell which records were kept`);
      const reasons = new Map<string, string>(answer.rejections.map((x: { location: string; reason: string }) => [x.location, x.reason]));
      records.forEach((record, i) => {
        if (!reasons.has(locations[i]!)) kept[project].push(record);
      });
      refused[project] += answer.rejected;
      for (const [location, fate] of c.records ?? []) {
        const reason = reasons.get(location);
        if (fate === true && reason !== undefined) problems.push(`${location} refused (${reason}), expected accepted`);
        if (fate instanceof RegExp && (reason === undefined || !fate.test(reason))) problems.push(`${location} ${reason === undefined ? 'accepted' : `refused for ${reason}`}, expected refused for ${fate}`);
      }
    }
    return problems;
  }

  it(`answers ${CASES} mutated requests through every door without a 5xx, in the error format, changing nothing it refuses (seed ${SEED})`, async () => {
    const root = new Prng(SEED);
    const failures: Failure[] = [];
    const perDoor = new Map<string, number>();
    for (let i = 0; i < CASES; i++) {
      const rng = root.fork(i);
      const c = rng.weighted(doors)(rng);
      perDoor.set(c.door, (perDoor.get(c.door) ?? 0) + 1);
      const problems = await run(c);
      for (const problem of problems) failures.push({ index: i, door: c.door, what: c.what, problem });
      if (i % 250 === 249) {
        const ready = await t.app.inject({ method: 'GET', url: '/health/ready' });
        if (ready.statusCode !== 200) failures.push({ index: i, door: 'health', what: 'GET /health/ready', problem: `${ready.statusCode} ${ready.body}` });
      }
    }
    console.log(`HTTP fuzz seed ${SEED}: ${CASES} requests by door ${JSON.stringify(Object.fromEntries(perDoor))}`);
    if (process.env.PCG_FUZZ_TRACE) for (const f of failures) console.log(`case ${f.index} [${f.door}] ${f.what.slice(0, 150)}: ${f.problem.slice(0, 400)}`);
    const shown = failures.slice(0, 25).map((f) => `seed ${SEED} case ${f.index} [${f.door}] ${f.what.slice(0, 200)}: ${f.problem}`);
    expect(shown, `${failures.length} problems (replay with PCG_FUZZ_SEED=${SEED})`).toEqual([]);
  }, 240_000);

  it(`stays healthy and counts exactly what it accepted (seed ${SEED})`, async () => {
    expect((await t.app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
    // A valid ingest after the fuzz still works.
    const late = events(5, Date.UTC(2025, 0, 1)).map((e: any) => ({ ...e, caseId: `late-${e.caseId}`, eventId: `late-${e.eventId}` }));
    const r = await call(t.app, 'POST', eventsUrl('A'), w.admin, late);
    expect(r.body, `seed ${SEED}`).toMatchObject({ accepted: late.length, rejected: 0 });
    kept.A.push(...late);
    for (const p of ['A', 'B'] as const) {
      const g = await call(t.app, 'GET', `/api/${w.tenantId}/project/${ids[p]}/graph`, w.reader);
      expect(g.status, `seed ${SEED} project ${p}: ${g.text.slice(0, 300)}`).toBe(200);
      const reference = referenceDocument(kept[p] as never);
      const counted = (d: any) => ({
        log_digest: d.source.log_digest,
        events: d.source.events,
        cases: d.source.cases,
        period: [d.source.period_start, d.source.period_end],
        nodes: d.nodes,
        edges: d.edges,
        variants: d.variants,
      });
      expect(counted(g.body), `seed ${SEED} project ${p}: the document counts what the answers said was accepted`).toEqual(counted(reference));
      expect(t.context.states.store(ids[p]).deadLetterCount('direct'), `seed ${SEED} project ${p}: one dead letter per refused record`).toBe(refused[p]);
    }
  }, 120_000);

  /** Bytes Node's HTTP parser refuses before any route, and requests only a socket can send. */
  it(`answers raw bytes on a real socket in the error format (seed ${SEED})`, async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const rng = new Prng(SEED).fork('socket');
    const key = w.admin;
    const eventsPath = `/api/${w.tenantId}/project/${ids.A}/events`;
    const templates: [string, () => string | Buffer, number[]][] = [
      ['headers over the limit', () => `GET /api/Action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: ${'a'.repeat(rng.between(17_000, 60_000))}\r\n\r\n`, [431]],
      ['a URL over the header limit', () => `GET /api/Action/ping?x=${'9'.repeat(rng.between(17_000, 40_000))} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`, [431, 414]],
      ['a garbage request line', () => `${rng.pick(['GARBAGE', 'GET', 'GET / HTTP/9.9', 'GET / HTTP/1.1 extra', '\u0000\u0001\u0002', 'FOO / HTTP/1.1'])}\r\n\r\n`, [400]],
      ['a header without a colon', () => 'GET /api/Action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\nno colon here\r\n\r\n', [400]],
      ['a control character in a header value', () => `GET /api/Action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\nx-a: a${rng.pick(['\u0000', '\u0001', '\u007f'])}b\r\n\r\n`, [400]],
      ['a space in a header name', () => 'GET /api/Action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\nx a: b\r\n\r\n', [400]],
      ['both Content-Length and Transfer-Encoding', () => `POST ${eventsPath} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n`, [400]],
      ['a broken chunk', () => `POST ${eventsPath} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n[]\r\n0\r\n\r\n`, [400]],
      ['a Content-Length that is not a number', () => `POST ${eventsPath} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${rng.pick(['abc', '-1', '1.5', '2, 3'])}\r\n\r\n[]`, [400]],
      ['a Content-Length over the body limit', () => `POST ${eventsPath} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${LIMITS.bodyLimitBytes + rng.between(1, 1e6)}\r\n\r\n[`, [413]],
      ['bytes that are not UTF-8 in the path', () => Buffer.concat([Buffer.from('GET /api/'), rng.pick([Buffer.from([0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0x80])]), Buffer.from(' HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n')]), [400, 404]],
      ['a bad percent-encoding in the path', () => `GET /api/${rng.pick(['%zz', '%', '%e2%82'])} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`, [400]],
      ['two Host headers', () => 'GET /api/Action/ping HTTP/1.1\r\nhost: a\r\nhost: b\r\nconnection: close\r\n\r\n', [200, 400]],
      ['HTTP/1.0', () => 'GET /api/Action/ping HTTP/1.0\r\n\r\n', [200]],
      ['a valid ping, connection close', () => 'GET /api/Action/ping HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n', [200]],
      ['a body shorter than its Content-Length, then close', () => `POST ${eventsPath} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n[{"caseId"`, [400, 0]],
    ];
    const failures: string[] = [];
    let sentCases = 0;
    for (let i = 0; i < 48; i++) {
      const [what, make, allowed] = templates[i < templates.length ? i : rng.int(templates.length)]!;
      const request = make();
      const half = what.startsWith('a body shorter');
      const answer = await exchange(port, request, half ? 400 : 5000);
      sentCases += 1;
      const label = `seed ${SEED} socket case ${i} [${what}]`;
      if (!answer) {
        if (!allowed.includes(0)) failures.push(`${label}: no answer`);
        continue;
      }
      const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
      if (!allowed.includes(status)) failures.push(`${label}: status ${status}, expected ${allowed.join(' or ')}: ${answer.slice(0, 200)}`);
      if (!(status < 500)) failures.push(`${label}: ${status}`);
      const headers = Object.fromEntries(
        head
          .split('\r\n')
          .slice(1)
          .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      if (!headers['x-request-id']) failures.push(`${label}: no X-Request-Id`);
      if (status >= 400) {
        const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
        for (const p of errorFormatProblems(status, headers, body.slice(0, Number(headers['content-length'] ?? body.length)), t.dir)) failures.push(`${label}: ${p}`);
      }
    }
    expect(sentCases).toBe(48);
    expect(failures).toEqual([]);
    // Still serving.
    expect(await exchange(port, 'GET /health/ready HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n', 5000)).toMatch(/^HTTP\/1\.1 200/);
  }, 60_000);
});

/** Sends bytes on a fresh connection; the answer (latin1 text) once the server closes, a whole answer arrived, or `ms` passed. */
function exchange(port: number, request: string | Buffer, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let data = Buffer.alloc(0);
    let finished = false;
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(data.toString('latin1'));
    };
    const timer = setTimeout(finish, ms);
    socket.on('data', (d) => {
      data = Buffer.concat([data, d]);
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
      if (length && data.length >= end + 4 + Number(length[1])) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', finish);
  });
}
