import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configEnv, readConfig } from '../../api/config.js';
import { LocalBackend, type LocalParts } from '../../api/mcp/local.js';
import { REFRESH_MS, TenantUsage } from '../../api/usage.js';
import { call, events, expectError, makeTenant, testApp, type TestApp } from './helpers.js';

/**
 * Issue 32, M6 and L1: what a tenant keeps is bounded per tenant (stored
 * events, dead letters by count and bytes, catalog records), each refusal 422
 * `limit_exceeded` naming its quota and the use; a notebook holds at most
 * PCG_LIMIT_BLOCKS_PER_NOTEBOOK blocks; readiness says when the data
 * directory's disk is nearly full. Projects are measured on the usage thread
 * (real SQLite files), then kept up to date by the writes.
 */

/** Events of `cases` cases under ids of their own (events() numbers its cases from 0 each time). */
const fresh = (cases: number, tag: string) => events(cases).map((e: any) => ({ ...e, caseId: `${tag}${e.caseId}`, eventId: `${tag}${e.eventId}` }));
const bad = (n: number, size = 10) => Array.from({ length: n }, (_, i) => ({ bad: `${i}:${'x'.repeat(size)}` }));

let apps: TestApp[] = [];
const app = (...args: Parameters<typeof testApp>) => {
  const t = testApp(...args);
  apps.push(t);
  return t;
};
afterEach(async () => {
  for (const t of apps) await t.close();
  apps = [];
});

describe('quotas: configuration', () => {
  it('reads each quota from PCG_QUOTA_* with its default; 0 turns one off', () => {
    const c = readConfig({}, { dataDir: '/tmp/x' });
    expect([c.quotaEvents, c.quotaDeadLetters, c.quotaDeadLetterBytes, c.quotaRecords, c.minFreeDiskBytes]).toEqual([50_000_000, 1_000_000, 1024 ** 3, 10_000, 1024 ** 3]);
    expect([configEnv.quotaEvents, configEnv.quotaDeadLetters, configEnv.quotaDeadLetterBytes, configEnv.quotaRecords]).toEqual([
      'PCG_QUOTA_EVENTS_PER_TENANT',
      'PCG_QUOTA_DEAD_LETTERS_PER_TENANT',
      'PCG_QUOTA_DEAD_LETTER_BYTES_PER_TENANT',
      'PCG_QUOTA_RECORDS_PER_TENANT',
    ]);
    expect(readConfig({ PCG_QUOTA_EVENTS_PER_TENANT: '0' }, { dataDir: '/tmp/x' }).quotaEvents).toBe(0);
    expect(() => readConfig({ PCG_QUOTA_RECORDS_PER_TENANT: '-1' }, { dataDir: '/tmp/x' })).toThrow(/PCG_QUOTA_RECORDS_PER_TENANT/);
  });
});

describe('quotas: stored events', () => {
  it('refuses a request that would take the tenant past PCG_QUOTA_EVENTS_PER_TENANT, naming the use; another tenant writes on', async () => {
    const t = app({ quotaEvents: 10 });
    const a = await makeTenant(t.app, 'qa');
    const b = await makeTenant(t.app, 'qb');
    const url = (w: typeof a) => `/api/${w.tenantId}/project/${w.projectId}/events`;
    // 3 cases: 8 events.
    expect((await call(t.app, 'POST', url(a), a.admin, events(3))).body.accepted).toBe(8);
    const over = await call(t.app, 'POST', url(a), a.admin, fresh(1, 'n'));
    expectError(over, 422, 'limit_exceeded');
    expect(over.body.message).toBe("limit PCG_QUOTA_EVENTS_PER_TENANT: a tenant's projects may keep at most 10 events; they keep 8 and this request brings 3");
    // Nothing of it was applied; a request that fits still is.
    expect((await call(t.app, 'GET', `/api/${a.tenantId}/project/${a.projectId}`, a.reader)).body.dataVersion).toBe(1);
    expect((await call(t.app, 'POST', url(a), a.admin, fresh(1, 'm').slice(0, 2))).status).toBe(200);
    expect(await t.context.usage.of(a.tenantId)).toMatchObject({ events: 10 });
    // The quota is the tenant's, over all its projects.
    const second = (await call(t.app, 'POST', `/api/${a.tenantId}/project`, a.admin, { name: 'second' })).body.id;
    expectError(await call(t.app, 'POST', `/api/${a.tenantId}/project/${second}/events`, a.admin, events(1)), 422, 'limit_exceeded');
    expect((await call(t.app, 'POST', url(b), b.admin, events(3))).status).toBe(200);
  });

  it('counts what the stores kept before the quota was first asked (measured on the thread), and forgets a deleted project', async () => {
    const t = app({ quotaEvents: 10 });
    const a = await makeTenant(t.app, 'qm');
    // Written past the API (as a worker or an import would): the usage has not seen it.
    t.context.states.ingest(a.projectId, { records: events(3), rejected: [] });
    const over = await call(t.app, 'POST', `/api/${a.tenantId}/project/${a.projectId}/events`, a.admin, fresh(1, 'n'));
    expectError(over, 422, 'limit_exceeded');
    expect(over.body.message).toMatch(/they keep 8 and this request brings 3$/);
    const other = (await call(t.app, 'POST', `/api/${a.tenantId}/project`, a.admin, { name: 'other' })).body.id;
    expect((await call(t.app, 'DELETE', `/api/${a.tenantId}/project/${a.projectId}`, a.admin)).status).toBe(204);
    expect((await call(t.app, 'POST', `/api/${a.tenantId}/project/${other}/events`, a.admin, events(3))).status).toBe(200);
    expect(await t.context.usage.of(a.tenantId)).toEqual({ events: 8, deadLetters: 0, deadLetterBytes: 0 });
  });

  it('holds a dataset upload to the quotas: refused before it is staged when one is reached, and when its records would pass the events quota', async () => {
    const t = app({ quotaEvents: 10, quotaDeadLetters: 1 });
    const a = await makeTenant(t.app, 'qd');
    const url = `/api/${a.tenantId}/project/${a.projectId}/dataset?format=ndjson`;
    const ndjson = (n: number, tag: string) => `${fresh(n, tag).map((e) => JSON.stringify(e)).join('\n')}\n`;
    const octet = { 'content-type': 'application/octet-stream' };
    const dir = join(t.dir, 'projects', a.projectId, 'datasets');
    const big = await call(t.app, 'POST', url, a.admin, ndjson(4, 'a'), octet);
    expectError(big, 422, 'limit_exceeded');
    expect(big.body.message).toMatch(/^limit PCG_QUOTA_EVENTS_PER_TENANT: .* they keep 0 and this request brings 11$/);
    // The staged upload went with the refusal.
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    expect((await call(t.app, 'POST', url, a.admin, ndjson(3, 'b'), octet)).status).toBe(201);
    const over = await call(t.app, 'POST', url, a.admin, ndjson(1, 'c'), octet);
    expectError(over, 422, 'limit_exceeded');
    expect(over.body.message).toMatch(/they keep 8 and this request brings 3$/);
    // A dead letter reaches PCG_QUOTA_DEAD_LETTERS_PER_TENANT: the next upload is refused before its bytes are written.
    expect((await call(t.app, 'POST', `/api/${a.tenantId}/project/${a.projectId}/events`, a.admin, bad(1))).body.rejected).toBe(1);
    const full = await call(t.app, 'POST', url, a.admin, ndjson(1, 'd'), octet);
    expectError(full, 422, 'limit_exceeded');
    expect(full.body.message).toMatch(/^limit PCG_QUOTA_DEAD_LETTERS_PER_TENANT: .* they keep 1: /);
    expect(readdirSync(dir).length).toBe(1);
  });

  it("holds MCP's ingest_events to the same quota", async () => {
    const t = app({ quotaEvents: 5 });
    const a = await makeTenant(t.app, 'qmcp');
    const principal = t.context.catalog.keys.matchTenant(a.admin)!;
    const parts = { catalog: t.context.catalog, states: t.context.states, config: t.context.config, usage: t.context.usage } as unknown as LocalParts;
    const backend = new LocalBackend(parts, () => ({
      kind: 'tenant',
      keyId: principal.id,
      tenantId: a.tenantId,
      userId: principal.userId,
      permissions: ['read', 'write'],
      projectIds: null,
      expiresAt: null,
    }));
    expect((await backend.ingest(a.projectId, events(1))).accepted).toBe(3);
    await expect(backend.ingest(a.projectId, fresh(1, 'n'))).rejects.toMatchObject({ code: 'limit_exceeded', message: expect.stringMatching(/they keep 3 and this request brings 3$/) });
  });
});

describe('quotas: measurements', () => {
  it('refuses only on a measurement at most REFRESH_MS old, and measures a project written since again in the background', async () => {
    const t = app({ quotaEvents: 10 });
    const a = await makeTenant(t.app, 'qt');
    let now = 1_000_000;
    let stored = 10;
    const measured: number[] = [];
    const usage = new TenantUsage(t.context, async (files) => {
      expect(files[0]).toBe(t.context.states.fileOf(a.projectId));
      measured.push(now);
      return { events: stored, deadLetters: 0, deadLetterBytes: 0 };
    }, () => now);
    await expect(usage.check(a.tenantId, 1)).rejects.toMatchObject({ code: 'limit_exceeded', message: expect.stringMatching(/they keep 10 and this request brings 1$/) });
    // Pruned by a retention pass (or written by a worker): not seen by the writes this process applies.
    stored = 4;
    now += REFRESH_MS - 1;
    await expect(usage.check(a.tenantId, 1)).rejects.toMatchObject({ code: 'limit_exceeded' });
    expect(measured).toHaveLength(1);
    // Older than REFRESH_MS: measured again before refusing, and then it fits.
    now += 2;
    await usage.check(a.tenantId, 1);
    expect(measured).toHaveLength(2);
    // A write this process applies moves the count at once...
    usage.observe(a.projectId, 'project', { applied: true, accepted: 5, duplicates: 0, rejected: 0, rejections: [], dataVersion: 2 });
    await expect(usage.check(a.tenantId, 2)).rejects.toMatchObject({ message: expect.stringMatching(/they keep 9 and this request brings 2$/) });
    expect(measured).toHaveLength(2);
    // ...and once the measurement is older than REFRESH_MS, a check measures it again in the background.
    stored = 9;
    now += REFRESH_MS + 1;
    await usage.check(a.tenantId, 1);
    await expect.poll(() => measured.length).toBe(3);
  });
});

describe('quotas: dead letters', () => {
  it('refuses writes once the tenant keeps PCG_QUOTA_DEAD_LETTERS_PER_TENANT dead letters', async () => {
    const t = app({ quotaDeadLetters: 5 });
    const a = await makeTenant(t.app, 'ql');
    const url = `/api/${a.tenantId}/project/${a.projectId}/events`;
    expect((await call(t.app, 'POST', url, a.admin, bad(5))).body.rejected).toBe(5);
    const over = await call(t.app, 'POST', url, a.admin, events(1));
    expectError(over, 422, 'limit_exceeded');
    expect(over.body.message).toMatch(/^limit PCG_QUOTA_DEAD_LETTERS_PER_TENANT: a tenant's projects may keep at most 5 dead letters; they keep 5: /);
  });

  it('counts the stored bytes of dead letters exactly as written, and refuses past PCG_QUOTA_DEAD_LETTER_BYTES_PER_TENANT', async () => {
    const t = app({ quotaDeadLetterBytes: 100_000 });
    const a = await makeTenant(t.app, 'qb');
    const url = `/api/${a.tenantId}/project/${a.projectId}/events`;
    // Measured once (nothing yet), then moved by each write.
    expect(await t.context.usage.of(a.tenantId)).toEqual({ events: 0, deadLetters: 0, deadLetterBytes: 0 });
    expect((await call(t.app, 'POST', url, a.admin, [...bad(2, 30_000), ...events(1)])).body.rejected).toBe(2);
    const store = t.context.states.store(a.projectId);
    const stored = store.db.prepare('SELECT sum(octet_length(payload) + coalesce(octet_length(raw), 0)) FROM dead_letter').pluck().get() as number;
    expect(stored).toBeGreaterThan(60_000);
    expect(await t.context.usage.of(a.tenantId)).toEqual({ events: 3, deadLetters: 2, deadLetterBytes: stored });
    expect((await call(t.app, 'POST', url, a.admin, bad(1, 50_000))).body.rejected).toBe(1);
    const over = await call(t.app, 'POST', url, a.admin, fresh(1, 'n'));
    expectError(over, 422, 'limit_exceeded');
    const now = store.db.prepare('SELECT sum(octet_length(payload) + coalesce(octet_length(raw), 0)) FROM dead_letter').pluck().get() as number;
    expect(over.body.message).toBe(
      `limit PCG_QUOTA_DEAD_LETTER_BYTES_PER_TENANT: a tenant's dead letters may take at most 100000 bytes; they take ${now}: delete datasets that brought them, or let retention remove them (PCG_DEAD_LETTER_DAYS)`,
    );
  });
});

describe('quotas: catalog records and blocks per notebook', () => {
  it('refuses an investigation, notebook, block or dashboard past PCG_QUOTA_RECORDS_PER_TENANT; another tenant is not counted', async () => {
    const t = app({ quotaRecords: 3 });
    const a = await makeTenant(t.app, 'qr');
    const b = await makeTenant(t.app, 'qr2');
    const base = `/api/${a.tenantId}/project/${a.projectId}`;
    const inv = (await call(t.app, 'POST', `${base}/investigation`, a.admin, { name: 'i' })).body.id;
    const nb = (await call(t.app, 'POST', `${base}/investigation/${inv}/notebook`, a.admin, { name: 'n' })).body.id;
    expect((await call(t.app, 'POST', `${base}/investigation/${inv}/notebook/${nb}/block`, a.admin, { spec: { type: 'kpi' } })).status).toBe(201);
    const refusals = [
      await call(t.app, 'POST', `${base}/dashboard`, a.admin, { name: 'd' }),
      await call(t.app, 'POST', `${base}/investigation`, a.admin, { name: 'i2' }),
      await call(t.app, 'POST', `${base}/investigation/${inv}/notebook`, a.admin, { name: 'n2' }),
      await call(t.app, 'POST', `${base}/investigation/${inv}/notebook/${nb}/block`, a.admin, { spec: { type: 'kpi' } }),
    ];
    for (const r of refusals) {
      expectError(r, 422, 'limit_exceeded');
      expect(r.body.message).toBe('limit PCG_QUOTA_RECORDS_PER_TENANT: a tenant may keep at most 3 investigations, notebooks, blocks and dashboards together; it keeps 3');
    }
    expect((await call(t.app, 'POST', `/api/${b.tenantId}/project/${b.projectId}/investigation`, b.admin, { name: 'i' })).status).toBe(201);
    // Deleting frees the room again (the investigation takes its notebook and block along).
    expect((await call(t.app, 'DELETE', `${base}/investigation/${inv}`, a.admin)).status).toBe(204);
    expect((await call(t.app, 'POST', `${base}/dashboard`, a.admin, { name: 'd' })).status).toBe(201);
  });

  it('refuses a block past PCG_LIMIT_BLOCKS_PER_NOTEBOOK, and does not run a notebook made past it before', async () => {
    const t = app({ limitBlocksPerNotebook: 2 });
    const a = await makeTenant(t.app, 'qn');
    const base = `/api/${a.tenantId}/project/${a.projectId}/investigation`;
    const inv = (await call(t.app, 'POST', base, a.admin, { name: 'i' })).body.id;
    const nb = (await call(t.app, 'POST', `${base}/${inv}/notebook`, a.admin, { name: 'n' })).body.id;
    const blocks = `${base}/${inv}/notebook/${nb}/block`;
    for (let i = 0; i < 2; i++) expect((await call(t.app, 'POST', blocks, a.admin, { spec: { type: 'kpi' } })).status).toBe(201);
    const third = await call(t.app, 'POST', blocks, a.admin, { spec: { type: 'kpi' } });
    expectError(third, 422, 'limit_exceeded');
    expect(third.body.message).toBe('limit PCG_LIMIT_BLOCKS_PER_NOTEBOOK: a notebook may have at most 2 blocks; this one has 2');
    expect((await call(t.app, 'POST', `${base}/${inv}/notebook/${nb}/execute`, a.reader)).status).toBe(200);
    // Made before the limit (straight into the catalog): not run.
    t.context.catalog.blocks.create(a.tenantId, a.projectId, nb, 'old', { spec: { type: 'kpi' } });
    const run = await call(t.app, 'POST', `${base}/${inv}/notebook/${nb}/execute`, a.reader);
    expectError(run, 422, 'limit_exceeded');
    expect(run.body.message).toBe('limit PCG_LIMIT_BLOCKS_PER_NOTEBOOK: a notebook may have at most 2 blocks; this one, made before the limit, has 3');
  });
});

describe('readiness: the data directory nearly full', () => {
  it('is 503 naming the disk check while free space is under PCG_MIN_FREE_DISK_BYTES, 200 once there is room again', async () => {
    let free = 100 * 1024 * 1024;
    const seen: string[] = [];
    const t = app({ minFreeDiskBytes: 512 * 1024 * 1024 }, { statfs: (dir) => (seen.push(dir), { bavail: free / 4096, bsize: 4096 }) });
    const ready = await call(t.app, 'GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({
      status: 'unavailable',
      checks: { catalog: { status: 'ok' }, disk: { status: 'unavailable', message: `the data directory's file system has ${free} bytes free, under PCG_MIN_FREE_DISK_BYTES (536870912)` } },
    });
    expect(seen).toEqual([t.context.config.dataDir]);
    expect((await call(t.app, 'GET', '/health/live')).status).toBe(200);
    free = 600 * 1024 * 1024;
    expect((await call(t.app, 'GET', '/health/ready')).body).toEqual({ status: 'ok', checks: { catalog: { status: 'ok' }, disk: { status: 'ok' } } });
  });

  it('does not check the disk with PCG_MIN_FREE_DISK_BYTES=0', async () => {
    const t = app({ minFreeDiskBytes: 0 }, { statfs: () => ({ bavail: 0, bsize: 4096 }) });
    expect((await call(t.app, 'GET', '/health/ready')).body).toEqual({ status: 'ok', checks: { catalog: { status: 'ok' } } });
  });
});
