import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectStore } from '../../engine/store/project-store.js';
import { call, events, expectError, GLOBAL, makeTenant, openCluster, testApp, type TestApp, type World } from './helpers.js';

const TOKEN = 'metrics-token-0123456789abcdef';

/** Prometheus text → value of the one sample named `name` whose labels include `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found: number[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (.+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) found.push(Number(m[3]));
  }
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0];
}

const scrape = async (t: TestApp) => {
  const r = await call(t.app, 'GET', '/metrics', undefined, undefined, { authorization: `Bearer ${TOKEN}` });
  expect(r.status).toBe(200);
  expect(String(r.headers['content-type'])).toMatch(/^text\/plain; version=0\.0\.4/);
  return r.text;
};

describe('health probes', () => {
  it('live and ready answer 200 without credentials, in the health format, even for a key past its rate limit', async () => {
    const t = testApp({ rateLimitBurst: 3, rateLimitPerSecond: 0 });
    try {
      // Spend the key's budget (never refilled here): the probes do not count against it.
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) codes.push((await call(t.app, 'GET', '/api/tenant', GLOBAL)).status);
      expect(codes).toEqual([200, 200, 200, 429]);
      for (let i = 0; i < 10; i++) {
        const live = await call(t.app, 'GET', '/health/live', GLOBAL);
        expect(live.status).toBe(200);
        expect(live.body).toEqual({ status: 'ok', checks: { process: { status: 'ok' } } });
        const ready = await call(t.app, 'GET', '/health/ready', GLOBAL);
        expect(ready.status).toBe(200);
        expect(ready.body).toEqual({ status: 'ok', checks: { catalog: { status: 'ok' }, disk: { status: 'ok' } } });
        expect(ready.headers['cache-control']).toBe('no-store');
      }
      expectError(await call(t.app, 'GET', '/health/ready?verbose=1'), 400, 'validation_failed');
      expectError(await call(t.app, 'POST', '/health/ready'), 405, 'method_not_allowed');
    } finally {
      await t.close();
    }
  });

  it('ready is 503 naming the check when the catalog stops answering; live stays 200', async () => {
    const t = testApp();
    try {
      t.context.catalog.close();
      const ready = await call(t.app, 'GET', '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'unavailable', checks: { catalog: { status: 'unavailable', message: 'the catalog is closed' }, disk: { status: 'ok' } } });
      expect((await call(t.app, 'GET', '/health/live')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('with sources on, ready waits for the source thread and reports it', async () => {
    const t = testApp({}, { runSources: true });
    try {
      let ready = await call(t.app, 'GET', '/health/ready');
      // The thread registers tsx and opens the catalog first: starting, then running.
      while (ready.status !== 200) {
        expect(ready.status).toBe(503);
        expect(ready.body.checks.sources).toEqual({ status: 'unavailable', message: 'the source thread is starting' });
        await sleep(100);
        ready = await call(t.app, 'GET', '/health/ready');
      }
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({ catalog: { status: 'ok' }, disk: { status: 'ok' }, sources: { status: 'ok' } });
    } finally {
      await t.close();
    }
  });

  it('are in the OpenAPI document as public routes, ready with its 503', async () => {
    const t = testApp();
    try {
      const spec = (await call(t.app, 'GET', '/openapi.json')).body;
      for (const path of ['/health/live', '/health/ready', '/metrics']) {
        expect(spec.paths[path]?.get, path).toBeDefined();
        expect(spec.paths[path].get.security).toEqual([]);
      }
      expect(spec.paths['/health/ready'].get.responses['503'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Health' });
      expect(Object.keys(spec.paths['/metrics'].get.responses['200'].content)).toEqual(['text/plain; version=0.0.4; charset=utf-8']);
    } finally {
      await t.close();
    }
  });
});

describe('metrics', () => {
  it('answer 404 in the error format when no metrics token is configured', async () => {
    const t = testApp();
    try {
      expect(t.metrics).toBeUndefined();
      expectError(await call(t.app, 'GET', '/metrics'), 404, 'not_found');
      expectError(await call(t.app, 'GET', '/metrics', TOKEN), 404, 'not_found');
    } finally {
      await t.close();
    }
  });

  describe('with a token', () => {
    let t: TestApp;
    let a: World;
    let b: World;
    beforeAll(async () => {
      // No descriptor limit: the cap shown is the configured one, whatever this machine's `ulimit -n` (api/descriptors.ts).
      t = testApp({ metricsToken: TOKEN, kafkaClusters: openCluster(['127.0.0.1:1']) }, { fileLimit: null });
      a = await makeTenant(t.app, 'ma');
      b = await makeTenant(t.app, 'mb');
    });
    afterAll(() => t.close());

    it('refuses a missing or wrong token with 401 invalid_token', async () => {
      expectError(await call(t.app, 'GET', '/metrics'), 401, 'invalid_token');
      expectError(await call(t.app, 'GET', '/metrics', 'x'.repeat(30)), 401, 'invalid_token');
      expectError(await call(t.app, 'GET', '/metrics', a.admin), 401, 'invalid_token');
      const r = await call(t.app, 'GET', '/metrics', undefined, undefined, { authorization: `Basic ${TOKEN}` });
      expectError(r, 401, 'invalid_token');
      expect(r.headers['www-authenticate']).toBe('Bearer');
    });

    it('count events applied, rejected and duplicate per project, as ingested over HTTP and by upload', async () => {
      const pa = `/api/${a.tenantId}/project/${a.projectId}`;
      const pb = `/api/${b.tenantId}/project/${b.projectId}`;
      const good = events(12);
      const first = await call(t.app, 'POST', `${pa}/events`, a.admin, good);
      expect(first.body.accepted).toBe(good.length);
      // The same events again: duplicates, not applied twice.
      const again = await call(t.app, 'POST', `${pa}/events`, a.admin, good);
      expect(again.body.duplicates).toBe(good.length);
      // Project B: 6 good events and 3 refused (no activity, bad timestamp, no case).
      const mixed = [
        ...events(2),
        { caseId: 'x1', timestamp: '2024-01-01T00:00:00Z' },
        { caseId: 'x2', activity: 'a', timestamp: 'yesterday' },
        { activity: 'a', timestamp: '2024-01-01T00:00:00Z' },
      ];
      const rb = await call(t.app, 'POST', `${pb}/events`, b.admin, mixed);
      expect(rb.body).toMatchObject({ accepted: 6, rejected: 3 });
      // A dataset upload goes through the same registry (importers apply via target()).
      const csv = 'c,a,t\nu1,x,2024-02-01T00:00:00Z\nu1,y,2024-02-01T01:00:00Z\nu2,x,2024-02-01T02:00:00Z\n';
      const up = await call(t.app, 'POST', `${pb}/dataset?format=csv&caseColumn=c&activityColumn=a&timestampColumn=t`, b.admin, csv, { 'content-type': 'application/octet-stream' });
      expect(up.status).toBe(201);

      const text = await scrape(t);
      expect(sample(text, 'pcg_events_applied_total', { project: a.projectId })).toBe(good.length);
      expect(sample(text, 'pcg_events_duplicate_total', { project: a.projectId })).toBe(good.length);
      expect(sample(text, 'pcg_events_rejected_total', { project: a.projectId })).toBeUndefined();
      expect(sample(text, 'pcg_events_applied_total', { project: b.projectId })).toBe(6 + 3);
      expect(sample(text, 'pcg_events_rejected_total', { project: b.projectId })).toBe(3);
      // Each batch timed once: two for A, one for B, and the upload's batch(es).
      expect(sample(text, 'pcg_batch_apply_seconds_count', { store: 'project' })).toBeGreaterThanOrEqual(4);
      expect(sample(text, 'pcg_max_open_project_stores')).toBe(256);
      // Both projects' stores are open on the loop, and on the work thread that applied their batches (one thread:
      // each batch came after the one before was answered, and a project's work goes back to its thread). The
      // threads are asked at a scrape and answer for the next: scraped until their answer is in (a turn of the
      // event loop between scrapes, for the thread's answer to be read).
      let summed = text;
      while (sample(summed, 'pcg_open_project_stores') !== 2 + 2) {
        await new Promise((resolve) => setImmediate(resolve));
        summed = await scrape(t);
      }
      // The thread's stores hold the keys the same batches make in stores of their own; the loop's stores theirs.
      const dir = mkdtempSync(join(tmpdir(), 'pcg-keys-'));
      const own = (name: string, ...batches: object[][]) => {
        const store = ProjectStore.open(join(dir, name));
        for (const records of batches) store.apply({ records } as never);
        const n = store.counterKeys;
        store.close();
        return n;
      };
      const uploaded = [
        { caseId: 'u1', activity: 'x', timestamp: '2024-02-01T00:00:00Z' },
        { caseId: 'u1', activity: 'y', timestamp: '2024-02-01T01:00:00Z' },
        { caseId: 'u2', activity: 'x', timestamp: '2024-02-01T02:00:00Z' },
      ];
      const threadKeys = own('a.sqlite', good, good) + own('b.sqlite', mixed, uploaded);
      rmSync(dir, { recursive: true, force: true });
      const loopKeys = t.context.states.store(a.projectId).counterKeys + t.context.states.store(b.projectId).counterKeys;
      expect(threadKeys).toBeGreaterThan(100);
      expect(sample(summed, 'pcg_counter_keys')).toBe(loopKeys + threadKeys);
      // The loop's stores cache no folds (they apply nothing); the thread's one for each case it applied: A's 12,
      // B's 2 posted and 2 uploaded.
      expect(t.context.states.folds.size).toBe(0);
      expect(sample(summed, 'pcg_cached_case_folds')).toBe(12 + 2 + 2);
      expect(sample(summed, 'pcg_work_thread_heap_bytes')).toBeGreaterThan(1 << 20);
    });

    it('give the live heap: the heap used right after the latest full collection', async () => {
      // A full collection on demand (the test runner has no --expose-gc).
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      // The observer hears of a collection asynchronously: collect and look again until it has.
      let live = 0;
      while (!(live > 0)) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 25));
        live = sample(await scrape(t), 'pcg_heap_live_bytes') ?? 0;
      }
      expect(live).toBeGreaterThan(1 << 20);
      // Right after a full collection the heap holds the live data alone: what is used now is at least that, less what got collected since.
      expect(live).toBeLessThanOrEqual(getHeapStatistics().used_heap_size * 1.5);
    });

    it('drop a deleted project’s series, so that project churn does not grow every scrape', async () => {
      const kept = sample(await scrape(t), 'pcg_events_applied_total', { project: a.projectId });
      expect(kept).toBeGreaterThan(0);
      const created = await call(t.app, 'POST', `/api/${a.tenantId}/project`, a.admin, { name: 'short-lived' });
      expect(created.status).toBe(201);
      const project = created.body.id as string;
      const path = `/api/${a.tenantId}/project/${project}`;
      const batch = events(3);
      expect((await call(t.app, 'POST', `${path}/events`, a.admin, [...batch, { caseId: 'x', activity: 'a' }])).body).toMatchObject({ accepted: batch.length, rejected: 1 });
      let text = await scrape(t);
      expect(sample(text, 'pcg_events_applied_total', { project })).toBe(batch.length);
      expect(sample(text, 'pcg_events_rejected_total', { project })).toBe(1);
      expect((await call(t.app, 'DELETE', path, a.admin)).status).toBe(204);
      text = await scrape(t);
      expect(text).not.toContain(project);
      // The other projects' series stay.
      expect(sample(text, 'pcg_events_applied_total', { project: a.projectId })).toBe(kept);
    });

    it('time requests by route pattern and status, not by raw path', async () => {
      const before = await scrape(t);
      const route = '/api/:tenantId/project/:projectId';
      const n0 = sample(before, 'pcg_http_request_duration_seconds_count', { method: 'GET', route, status: '200' }) ?? 0;
      for (const w of [a, b, a]) await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}`, w.reader);
      expectError(await call(t.app, 'GET', `/api/${b.tenantId}/project/${b.projectId}`, a.reader), 403, 'forbidden');
      expectError(await call(t.app, 'GET', '/no/such/path'), 404, 'not_found');
      const text = await scrape(t);
      expect(sample(text, 'pcg_http_request_duration_seconds_count', { method: 'GET', route, status: '200' })).toBe(n0 + 3);
      expect(sample(text, 'pcg_http_request_duration_seconds_count', { method: 'GET', route, status: '403' })).toBe(1);
      expect(sample(text, 'pcg_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
      expect(text).not.toMatch(/route="\/api\/[0-9a-f]{8}-/);
      // Scrapes are timed too, and the sum of durations is positive.
      expect(sample(text, 'pcg_http_request_duration_seconds_sum', { method: 'GET', route, status: '200' })!).toBeGreaterThan(0);
    });

    it('time document builds, once per new data version', async () => {
      const before = sample(await scrape(t), 'pcg_document_build_seconds_count', { outcome: 'ok' }) ?? 0;
      const g = `/api/${a.tenantId}/project/${a.projectId}/graph`;
      expect((await call(t.app, 'GET', g, a.reader)).status).toBe(200);
      expect((await call(t.app, 'GET', g, a.reader)).status).toBe(200);
      const text = await scrape(t);
      expect(sample(text, 'pcg_document_build_seconds_count', { outcome: 'ok' })).toBe(before + 1);
      expect(sample(text, 'pcg_document_build_seconds_sum', { outcome: 'ok' })!).toBeGreaterThan(0);
    });

    it('report each source partition from its state file and the workers’ status rows, and the event-loop delay', async () => {
      const created = await call(t.app, 'POST', `/api/${a.tenantId}/project/${a.projectId}/source`, a.admin, { cluster: 'local', topic: 't', format: 'pcg' });
      expect(created.status).toBe(201);
      const sourceId = created.body.id as string;
      let text = await scrape(t);
      // Declared, no worker runs it (runSources off here).
      expect(sample(text, 'pcg_sources', { state: 'waiting' })).toBe(1);
      expect(sample(text, 'pcg_source_lag_messages', { source: sourceId })).toBeUndefined();
      // A worker stored offsets 0..41 of partition 0 (as the runner does) and reports a high watermark of 100.
      const batch = { records: (events(4) as any[]).map((e) => ({ ...e, caseId: `k-${e.caseId}` })), rejected: [] };
      t.context.states.ingestPart(a.projectId, batch as never, { source: sourceId, partition: 0, offset: 41, first: 0 });
      const now = new Date().toISOString();
      t.context.catalog.sources.report(sourceId, 'host:1', {
        state: 'running',
        assigned: [0],
        partitions: [{ partition: 0, applied: 41, committed: 42, highWatermark: 100, lag: 58 }],
        eventsApplied: batch.records.length,
        deadLetters: 0,
        lastError: null,
        updatedAt: now,
      });
      text = await scrape(t);
      const labels = { project: a.projectId, source: sourceId, partition: '0' };
      expect(sample(text, 'pcg_source_lag_messages', labels)).toBe(100 - 41 - 1);
      expect(sample(text, 'pcg_source_stored_offset', labels)).toBe(41);
      expect(sample(text, 'pcg_source_events', labels)).toBe(batch.records.length);
      expect(sample(text, 'pcg_source_dead_letters', labels)).toBe(0);
      expect(sample(text, 'pcg_sources', { state: 'running' })).toBe(1);
      expect(sample(text, 'pcg_sources', { state: 'waiting' })).toBeUndefined();
      // The two projects' own stores and the partition's state are open on the loop (the series adds the work threads' stores).
      expect(t.context.states.openCount).toBe(3);
      expect(sample(text, 'pcg_open_project_stores')).toBeGreaterThanOrEqual(3);
      expect(sample(text, 'pcg_batch_apply_seconds_count', { store: 'partition' })).toBe(1);
      // prom-client's default metrics: the event-loop delay, open file descriptors.
      expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'process_open_fds')).toBeGreaterThan(0);
    });
  });
});
