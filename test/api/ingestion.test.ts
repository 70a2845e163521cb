import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { simulate } from '../../connectors/simulator/index.js';
import { ProjectStore, tallyToJson } from '../../engine/index.js';
import { builtDocument } from '../../engine/projects/index.js';
import { readIngestBody } from '../../api/ingest-body.js';
import { DEFAULT_EVENT_LIMITS } from '../../engine/event.js';
import type { Applied, WorkOutcome } from '../../api/work-thread.js';
import { unwrap } from '../../api/thread-errors.js';
import { WorkThreads } from '../../api/work-threads.js';
import { call, events, holdThread, makeTenant, testApp, type TestApp } from './helpers.js';

/**
 * Ingestion off the request loop (api/ingestion.ts, api/work-thread.ts): the body crosses to a work thread as the
 * bytes that came, is parsed and applied there, and the state is exactly the one a direct apply of the same batches
 * makes; positions keep their exactly-once rule on the thread; and the loop answers other requests meanwhile.
 */
describe('ingestion on the work threads', () => {
  const dirs: string[] = [];
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const fresh = (overrides = {}) => {
    const a = testApp(overrides);
    apps.push(a);
    return a;
  };

  it('gives exactly the state, answers and document of applying the same batches directly', async () => {
    const t = fresh();
    const w = await makeTenant(t.app, 'same');
    const url = `/api/${w.tenantId}/project/${w.projectId}/events`;
    const log = [...simulate({ model: 'order-to-cash', cases: 300, seed: 11 })] as Record<string, unknown>[];
    // Batches as clients send them: JSON arrays, one object, NDJSON with a line that is not JSON and an invalid
    // event, replays (duplicates) and late events out of order.
    const ndjson = (records: object[]) => [...records.map((r) => JSON.stringify(r)), '{not json', JSON.stringify({ caseId: 'x', activity: '' })].join('\n');
    const bodies: { text: string; ndjson: boolean }[] = [
      { text: JSON.stringify(log.slice(0, 900)), ndjson: false },
      { text: ndjson(log.slice(1200, 2000)), ndjson: true },
      { text: JSON.stringify(log[2000]), ndjson: false },
      { text: JSON.stringify([...log.slice(900, 1200).reverse(), ...log.slice(0, 50)]), ndjson: false },
      { text: ndjson(log.slice(2001)), ndjson: true },
    ];
    const dir = mkdtempSync(join(tmpdir(), 'pcg-direct-'));
    dirs.push(dir);
    const direct = ProjectStore.open(join(dir, 'state.sqlite'));
    try {
      for (const b of bodies) {
        const r = await call(t.app, 'POST', url, w.admin, b.text, { 'content-type': b.ndjson ? 'application/x-ndjson' : 'application/json' });
        expect(r.status).toBe(200);
        const { applied: _a, ...expected } = direct.apply(readIngestBody(b.text, b.ndjson, 100_000));
        expect(r.body).toEqual(expected);
      }
      const store = t.context.states.store(w.projectId);
      expect(store.dataVersion).toBe(direct.dataVersion);
      expect(tallyToJson(store.currentTally())).toEqual(tallyToJson(direct.currentTally()));
      expect(store.allMeta().log_digest).toBe(direct.allMeta().log_digest);
      const graph = await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph`, w.admin);
      expect(graph.status).toBe(200);
      expect(graph.text).toBe(builtDocument(direct.snapshot()).json);
    } finally {
      direct.close();
    }
  });

  it('keeps exactly once on the thread: a batch at an applied position changes nothing, nor does a re-sent request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-once-'));
    dirs.push(dir);
    const file = join(dir, 'state.sqlite');
    ProjectStore.open(file).close();
    const threads = new WorkThreads(1, { limits: DEFAULT_EVENT_LIMITS, cachedCases: 10_000, cachedCaseTextBytes: 2 ** 20 });
    try {
      const records = [...simulate({ model: 'claims', cases: 50, seed: 2 })];
      const apply = async (position: { source: string; partition: number; offset: number }) =>
        unwrap(await threads.run<WorkOutcome<Applied>>(0, { ingest: { file, records, position } })).result;
      const first = await apply({ source: 'client', partition: 0, offset: 7 });
      expect([first.applied, first.accepted]).toEqual([true, records.length]);
      // The same position again (a retry after a lost answer): not applied, nothing counted twice.
      const again = await apply({ source: 'client', partition: 0, offset: 7 });
      expect([again.applied, again.accepted, again.duplicates]).toEqual([false, 0, 0]);
      const store = ProjectStore.open(file);
      try {
        expect(store.dataVersion).toBe(first.dataVersion);
        expect(store.position('client', 0)).toBe(7);
        expect(store.eventCount()).toBe(records.length);
      } finally {
        store.close();
      }
    } finally {
      await threads.close();
    }

    // Over HTTP a batch carries no position: a re-sent body is recognised by its events (ids), all duplicates.
    const t = fresh();
    const w = await makeTenant(t.app, 'once');
    const url = `/api/${w.tenantId}/project/${w.projectId}/events`;
    const batch = [...simulate({ model: 'claims', cases: 20, seed: 4 })];
    const a = await call(t.app, 'POST', url, w.admin, batch);
    const b = await call(t.app, 'POST', url, w.admin, batch);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([b.body.accepted, b.body.duplicates, b.body.dataVersion]).toEqual([0, batch.length, a.body.dataVersion]);
  });

  it('answers on the loop while a large body is parsed and applied on a thread (the request loop only routes)', async () => {
    const t = fresh();
    const w = await makeTenant(t.app, 'loop');
    const big = [...simulate({ model: 'order-to-cash', cases: 8000, seed: 5 })].slice(0, 80_000);
    const order: string[] = [];
    const ingest = call(t.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/events`, w.admin, big).then((r) => {
      order.push('ingest');
      return r;
    });
    // While the batch is parsed and applied on its thread, pings are answered: the loop holds no part of it
    // (on the loop, the pings' answers came after the ingestion's, all of it being one synchronous stretch).
    for (let i = 0; i < 3; i++) {
      const ping = await call(t.app, 'GET', '/api/Action/ping');
      expect(ping.status).toBe(200);
      order.push('ping');
    }
    const r = await ingest;
    expect(r.status).toBe(200);
    expect(r.body.accepted).toBe(big.length);
    expect(order.slice(0, 3)).toEqual(['ping', 'ping', 'ping']);
  });

  it('refuses what the route refused when it parsed bodies itself: bad JSON, a __proto__ key, too many events, other types', async () => {
    const t = fresh({ limitEventsPerRequest: 5 });
    const w = await makeTenant(t.app, 'refusals');
    const url = `/api/${w.tenantId}/project/${w.projectId}/events`;
    const json = { 'content-type': 'application/json' };
    const cases = [
      { body: '[{"caseId":', headers: json, status: 400, code: 'validation_failed' },
      { body: '[{"__proto__":{"x":1},"caseId":"c","activity":"a","timestamp":0}]', headers: json, status: 400, code: 'validation_failed' },
      { body: '[{"constructor":{"prototype":{"x":1}},"caseId":"c","activity":"a","timestamp":0}]', headers: json, status: 400, code: 'validation_failed' },
      { body: JSON.stringify(Array.from({ length: 6 }, (_, i) => ({ caseId: 'c', activity: 'a', timestamp: i }))), headers: json, status: 413, code: 'payload_too_large' },
      { body: '"text"', headers: json, status: 400, code: 'validation_failed' },
      { body: 'a,b', headers: { 'content-type': 'text/csv' }, status: 415, code: 'unsupported_media_type' },
    ];
    for (const c of cases) {
      const r = await call(t.app, 'POST', url, w.admin, c.body, c.headers);
      expect([r.status, r.body?.error], c.body).toEqual([c.status, c.code]);
    }
    // A byte order mark before JSON is taken, as before; nothing refused above was applied.
    const ok = await call(t.app, 'POST', url, w.admin, `\ufeff${JSON.stringify([{ caseId: 'c', activity: 'a', timestamp: 0 }])}`, json);
    expect([ok.status, ok.body.accepted, ok.body.dataVersion]).toEqual([200, 1, 1]);
  });

  it("answers 429 with Retry-After to the tenant whose work queue is full, before reading its body, and serves the other", async () => {
    // Two threads: a tenant holds at most one; one batch may wait per tenant.
    const t = fresh({ buildThreads: 2, tenantQueue: 1 });
    const a = await makeTenant(t.app, 'full');
    const b = await makeTenant(t.app, 'other');
    const { release, blocker } = await holdThread(t, a);
    const urlA = `/api/${a.tenantId}/project/${a.projectId}/events`;
    const waiting = call(t.app, 'POST', urlA, a.admin, events(2));
    // Wait until the first batch is in the queue (the request's body read and its task queued), never for a time.
    while (!(await queued(t, a.tenantId))) await new Promise((r) => setImmediate(r));
    const refused = await call(t.app, 'POST', urlA, a.admin, events(2));
    expect([refused.status, refused.body.error, refused.headers['retry-after']]).toEqual([429, 'rate_limited', '1']);
    const other = await call(t.app, 'POST', `/api/${b.tenantId}/project/${b.projectId}/events`, b.admin, events(2));
    expect([other.status, other.body.accepted]).toEqual([200, 6]);
    // Another tenant's key on the full tenant's path is refused for its access, learning nothing of the queue.
    const foreign = await call(t.app, 'POST', urlA, b.admin, events(1));
    expect(foreign.status).toBe(403);
    release();
    await blocker;
    const first = await waiting;
    expect([first.status, first.body.accepted]).toEqual([200, 6]);
  });

  it("applies a dataset's batches on a work thread in its tenant's queue; a full queue makes the import wait, not fail", async () => {
    const t = fresh({ buildThreads: 2, tenantQueue: 1 });
    const a = await makeTenant(t.app, 'upload');
    const log = [...simulate({ model: 'order-to-cash', cases: 1500, seed: 8 })] as Record<string, unknown>[];
    const ndjson = Buffer.from(log.map((r) => JSON.stringify(r)).join('\n') + '\n');
    // The tenant holds one of the two threads; one of its batches may wait.
    const { release, blocker } = await holdThread(t, a);
    const urlA = `/api/${a.tenantId}/project/${a.projectId}`;
    // An HTTP batch waits behind the blocker (the project's one write lane) and fills the tenant's queue ...
    const waiting = call(t.app, 'POST', `${urlA}/events`, a.admin, events(2));
    while (!(await queued(t, a.tenantId))) await new Promise((r) => setImmediate(r));
    // ... so the import's first batch is refused a place: it waits and asks again instead of failing the upload.
    const upload = call(t.app, 'POST', `${urlA}/dataset?name=orders.ndjson`, a.admin, ndjson, { 'content-type': 'application/octet-stream' });
    const before = t.context.queue.refused;
    while (t.context.queue.refused === before) await new Promise((r) => setTimeout(r, 5));
    release();
    await blocker;
    expect((await waiting).status).toBe(200);
    const done = await upload;
    expect([done.status, done.body.state, done.body.summary.accepted]).toEqual([201, 'ready', log.length]);
    // Every batch of the file went through the queue: nothing of it is left there, and the state is whole.
    expect([t.context.queue.waiting(a.tenantId), t.context.queue.running(a.tenantId)]).toEqual([0, 0]);
    expect(t.context.states.store(a.projectId).eventCount()).toBe(log.length + 6);
  });
});

/** Whether the tenant has a task waiting in the app's queue (asked through admit: full at one waiting). */
async function queued(t: TestApp, tenantId: string): Promise<boolean> {
  try {
    t.context.queue.admit(tenantId);
    return false;
  } catch {
    return true;
  }
}
