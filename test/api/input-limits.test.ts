import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipTo, longLineNdjson, ocelSqlite, wideOcelJson } from '../tools/hostile.js';
import { call, expectError, makeTenant, testApp, type Res, type TestApp, type World } from './helpers.js';

type ConfigOverrides = Parameters<typeof testApp>[0];

/**
 * Bounded inputs (issue 32): every hostile input of the security review sent
 * through the API, small, against small limits set in the configuration. Each
 * is refused with its status and code, the message names the setting, and the
 * project is as it was: no dataset, no staged upload, the same data version.
 */
const octet = { 'content-type': 'application/octet-stream' };

interface Fixture {
  t: TestApp;
  w: World;
  upload(name: string, bytes: Buffer | string, query?: string): Promise<Res>;
  /** What a refusal must leave as it was. */
  state(): Promise<{ version: unknown; datasets: unknown[]; staged: string[] }>;
}

async function fixture(overrides: ConfigOverrides): Promise<Fixture> {
  const t = testApp(overrides);
  const w = await makeTenant(t.app, 'inputs');
  const base = `/api/${w.tenantId}/project/${w.projectId}`;
  // Events first, so that "as it was" is a project with data.
  const seed = [
    { caseId: 'c1', activity: 'a', timestamp: '2024-01-01T00:00:00Z' },
    { caseId: 'c1', activity: 'b', timestamp: '2024-01-01T01:00:00Z' },
  ];
  const first = await call(t.app, 'POST', `${base}/events`, w.admin, seed);
  expect(first.body, first.text).toMatchObject({ accepted: 2 });
  return {
    t,
    w,
    upload: (name, bytes, query = '') => call(t.app, 'POST', `${base}/dataset?name=${name}${query}`, w.admin, Buffer.from(bytes), octet),
    async state() {
      const dir = join(t.dir, 'projects', w.projectId, 'datasets');
      return {
        version: (await call(t.app, 'GET', `${base}/graph`, w.reader)).body.source.data_version,
        datasets: (await call(t.app, 'GET', `${base}/dataset`, w.reader)).body.items.map((d: { name: string; state: string }) => [d.name, d.state]),
        staged: existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith('.upload-')) : [],
      };
    },
  };
}

/** Sends `bytes`, expects the refusal, and that nothing changed. */
async function refused(f: Fixture, name: string, bytes: Buffer | string, status: number, code: string, message: RegExp): Promise<void> {
  const before = await f.state();
  const r = await f.upload(name, bytes);
  expectError(r, status, code);
  expect(r.body.message).toMatch(message);
  expect(r.body.message).toMatch(/nothing was imported$/);
  expect(r.body.message).not.toContain(f.t.dir);
  expect(await f.state()).toEqual(before);
}

describe('uploads over the bounds on reading a file', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture({ lineLimitBytes: 64 * 1024, decompressedLimitBytes: 1024 * 1024, limitOcelRelations: 10_000 });
  });
  afterAll(() => f.t.close());

  it('an OCEL-SQLite file whose event table is a view over a recursive CTE: 400, the view named, nothing read', async () => {
    const file = join(f.t.dir, 'view.sqlite');
    ocelSqlite(file, 'recursive view');
    expect(readFileSync(file).length).toBeLessThan(64 * 1024);
    await refused(f, 'view.sqlite', readFileSync(file), 400, 'validation_failed', /^the file could not be imported \(ocel_unsafe_sqlite\): SQLite: the OCEL table "event" is a view; only plain tables are read/);
  });

  it('an OCEL JSON log whose flattening would pass the relations budget: 422 naming PCG_LIMIT_OCEL_RELATIONS', async () => {
    // 30 × 30 in 64 KB: 27,000 relations once flattened (the review's 600 × 600, 28.7 MB, made 216 million).
    await refused(f, 'wide.jsonocel', wideOcelJson(30, 30), 422, 'limit_exceeded', /^the file could not be imported \(limit_exceeded\): limit PCG_LIMIT_OCEL_RELATIONS: an OCEL log may hold at most 10000 relations/);
  });

  it('an NDJSON gzip holding one long line: 413 naming PCG_LINE_LIMIT_BYTES', async () => {
    const file = join(f.t.dir, 'long.ndjson.gz');
    // 8 MiB of line in about 8 KB (the review's: 640 MiB in 652 KB).
    await gzipTo(file, () => longLineNdjson(8 * 2 ** 20));
    await refused(f, 'long.ndjson.gz', readFileSync(file), 413, 'payload_too_large', /^the file could not be imported \(content_too_large\): limit PCG_LINE_LIMIT_BYTES: a line may have at most 65536 bytes \(line 2 has more\)/);
  });

  it('a gzip whose content passes the decompressed limit: 413 naming PCG_DECOMPRESSED_LIMIT_BYTES', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ caseId: `c${i % 100}`, activity: `a${i % 7}`, timestamp: i * 1000 })).join('\n');
    const gz = gzipSync(lines);
    expect(gz.length).toBeLessThan(1024 * 1024);
    await refused(f, 'big.ndjson.gz', gz, 413, 'payload_too_large', /^the file could not be imported \(content_too_large\): limit PCG_DECOMPRESSED_LIMIT_BYTES: a file may hold at most 1048576 bytes of content/);
  });
});

describe('objects of one event and object types of a project, over HTTP ingestion', () => {
  let t: TestApp;
  let w: World;
  let url: string;
  beforeAll(async () => {
    t = testApp({ limitObjectsPerEvent: 100, limitObjectTypesPerProject: 50 });
    w = await makeTenant(t.app, 'objects');
    url = `/api/${w.tenantId}/project/${w.projectId}/events`;
  });
  afterAll(() => t.close());

  const objects = (n: number, types: number, prefix = 't') => Array.from({ length: n }, (_, i) => ({ id: `o${i}`, type: `${prefix}${i % types}` }));
  const graph = async () => (await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph`, w.reader)).body;

  it('refuses one event carrying thousands of objects across hundreds of types, naming PCG_LIMIT_OBJECTS_PER_EVENT; the document lists no type of it', async () => {
    // The review's event: 300,000 objects across 50,000 types, 10.9 MB; here 3,000 across 500 against a limit of 100.
    const before = await graph();
    const r = await call(t.app, 'POST', url, w.admin, { caseId: 'c1', activity: 'a', timestamp: '2024-01-01T00:00:00Z', objects: objects(3000, 500) });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ accepted: 0, rejected: 1 });
    expect(r.body.rejections).toEqual([{ location: 'record 1', reason: 'objects: limit PCG_LIMIT_OBJECTS_PER_EVENT: an event may have at most 100 objects (this one has 3000)' }]);
    const after = await graph();
    expect(after.object_types).toEqual([]);
    expect(after.source.events).toBe(before.source.events);
  });

  it('takes object types up to PCG_LIMIT_OBJECT_TYPES_PER_PROJECT, then refuses the event bringing one more as a dead letter naming it', async () => {
    // Within the per-event bound, 40 types, then 10 more, then one more.
    const first = await call(t.app, 'POST', url, w.admin, [
      { caseId: 'c2', activity: 'a', timestamp: '2024-01-01T00:00:00Z', objects: objects(80, 40) },
      { caseId: 'c2', activity: 'b', timestamp: '2024-01-01T01:00:00Z', objects: objects(10, 10, 'u') },
    ]);
    expect(first.body).toMatchObject({ accepted: 2, rejected: 0 });
    const over = await call(t.app, 'POST', url, w.admin, [
      { caseId: 'c3', activity: 'a', timestamp: '2024-01-01T02:00:00Z', objects: [{ id: 'x1', type: 'one-too-many' }] },
      { caseId: 'c3', activity: 'b', timestamp: '2024-01-01T03:00:00Z', objects: [{ id: 'x2', type: 't3' }] },
    ]);
    expect(over.body).toMatchObject({ accepted: 1, rejected: 1 });
    expect(over.body.rejections).toEqual([
      { location: 'record 1', reason: 'objects: limit PCG_LIMIT_OBJECT_TYPES_PER_PROJECT: a project may have at most 50 object types (it has 50; this one brings 1 more)' },
    ]);
    const doc = await graph();
    expect(doc.object_types).toHaveLength(50);
    expect(doc.object_types.map((o: { name: string }) => o.name)).not.toContain('one-too-many');
    const letters = t.context.states.store(w.projectId).deadLetters({ limit: 10 });
    expect(letters.map((l) => l.reason)).toEqual([expect.stringMatching(/^objects: limit PCG_LIMIT_OBJECTS_PER_EVENT/), expect.stringMatching(/^objects: limit PCG_LIMIT_OBJECT_TYPES_PER_PROJECT/)]);
  });
});

describe('the check of an upload runs on a thread, under a time and a memory budget', () => {
  it('past PCG_CHECK_BUDGET_MS: 422 naming it, nothing imported', async () => {
    const f = await fixture({ checkBudgetMs: 1 });
    try {
      // About 2 MB: reading it takes far more than a millisecond on any machine.
      const lines = Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ caseId: `c${i % 100}`, activity: `a${i % 7}`, timestamp: i * 1000 })).join('\n');
      await refused(f, 'slow.ndjson', lines, 422, 'limit_exceeded', /^limit PCG_CHECK_BUDGET_MS: checking the file took longer than 1 ms; nothing was imported$/);
    } finally {
      await f.t.close();
    }
  }, 120_000);

  it('past PCG_READ_HEAP_MIB: 422 naming it', async () => {
    const f = await fixture({ readHeapMiB: 64, limitOcelRelations: 2_000_000_000, limitObjectsPerEvent: 1_000_000 });
    try {
      // About 14 MB of OCEL JSON, parsed whole and flattened: more than 64 MiB of heap.
      await refused(f, 'heavy.jsonocel', wideOcelJson(300, 1000), 422, 'limit_exceeded', /^limit PCG_READ_HEAP_MIB: checking the file needs more than 64 MiB of heap; nothing was imported$/);
      // The next check gets a fresh thread.
      const ok = await f.upload('small.jsonocel', wideOcelJson(5, 5));
      expect(ok.status, ok.text).toBe(201);
    } finally {
      await f.t.close();
    }
  }, 120_000);
});
