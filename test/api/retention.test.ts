import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { readConfig, readRetentionConfig, type ConfigInput } from '../../api/config.js';
import { call, expectError, GLOBAL, makeTenant, testApp, type TestApp } from './helpers.js';

/** Retention over the API: the project setting, and the passes `pcg serve` runs (api/retention.ts). */
const DAY = 86_400_000;
const T0 = Date.UTC(2025, 0, 1);
const METRICS = 'retention-metrics-token-0123456789';

let apps: TestApp[] = [];
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
});
const open = (overrides: Partial<Record<keyof ConfigInput, unknown>> = {}) => {
  const a = testApp(overrides);
  apps.push(a);
  return a;
};

/** Cases of a → b, one a day for `days` days from T0 (the newest last). */
function daily(days: number, prefix = 'c'): object[] {
  const out: object[] = [];
  for (let d = 0; d < days; d++) {
    out.push({ caseId: `${prefix}${d}`, activity: 'a', timestamp: T0 + d * DAY, eventId: `${prefix}${d}-a`, resource: 'ann' });
    out.push({ caseId: `${prefix}${d}`, activity: 'b', timestamp: T0 + d * DAY + 3_600_000, eventId: `${prefix}${d}-b`, attributes: { amount: d } });
  }
  return out;
}

describe('a project\'s retentionDays', () => {
  it('is read and set through the project routes, null keeping every event', async () => {
    const { app } = open();
    const w = await makeTenant(app, 'ret');
    const url = `/api/${w.tenantId}/project/${w.projectId}`;
    expect((await call(app, 'GET', url, w.admin)).body.retentionDays).toBeNull();
    const set = await call(app, 'PUT', url, w.admin, { retentionDays: 7 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: w.projectId, retentionDays: 7, name: 'project ret' });
    expect((await call(app, 'GET', url, w.admin)).body.retentionDays).toBe(7);
    // Other fields leave it alone; the list shows it.
    expect((await call(app, 'PUT', url, w.admin, { description: 'd' })).body.retentionDays).toBe(7);
    expect((await call(app, 'GET', `/api/${w.tenantId}/project`, w.admin)).body.items[0].retentionDays).toBe(7);
    expect((await call(app, 'PUT', url, w.admin, { retentionDays: null })).body.retentionDays).toBeNull();
    const made = await call(app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: 'short', retentionDays: 2 });
    expect(made.status).toBe(201);
    expect(made.body.retentionDays).toBe(2);
    // A reader may see it but not set it.
    expectError(await call(app, 'PUT', url, w.reader, { retentionDays: 3 }), 403, 'forbidden');
  });

  it('refuses what is not a whole number of days from 1 to 36500, naming the field', async () => {
    const { app } = open();
    const w = await makeTenant(app, 'bad');
    const url = `/api/${w.tenantId}/project/${w.projectId}`;
    for (const [value, says] of [
      [0, 'retentionDays must be at least 1'],
      [-3, 'retentionDays must be at least 1'],
      [1.5, 'retentionDays must be a whole number of days'],
      [36_501, 'retentionDays may be at most 36500'],
      ['7', 'body.retentionDays'],
      [true, 'body.retentionDays'],
    ] as const) {
      const r = await call(app, 'PUT', url, w.admin, { retentionDays: value });
      expectError(r, 400, 'validation_failed');
      expect(r.body.message).toContain(says);
    }
    expectError(await call(app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: 'x', retentionDays: 0 }), 400, 'validation_failed');
    expect((await call(app, 'GET', url, w.admin)).body.retentionDays).toBeNull();
    // The OpenAPI document describes it.
    const spec = (await call(app, 'GET', '/openapi.json')).body;
    expect(JSON.stringify(spec)).toContain('retentionDays');
  });

  it('follows PCG_RETENTION_DAYS until the project sets its own', async () => {
    const { app } = open({ retentionDays: 30 });
    const w = await makeTenant(app, 'default');
    const url = `/api/${w.tenantId}/project/${w.projectId}`;
    expect((await call(app, 'GET', url, w.admin)).body.retentionDays).toBe(30);
    expect((await call(app, 'PUT', url, w.admin, { retentionDays: null })).body.retentionDays).toBeNull();
    expect((await call(app, 'PUT', url, w.admin, { retentionDays: 10 })).body.retentionDays).toBe(10);
  });

  it('has its server settings checked like every other', () => {
    expect(() => readConfig({ PCG_RETENTION_DAYS: '0' })).toThrow(/PCG_RETENTION_DAYS/);
    expect(() => readConfig({ PCG_RETENTION_INTERVAL_S: 'soon' })).toThrow(/PCG_RETENTION_INTERVAL_S/);
    expect(readRetentionConfig({})).toEqual({ deadLetterDays: 30, deadLetterMax: 100_000 });
    expect(readRetentionConfig({ PCG_RETENTION_DAYS: '9', PCG_DEAD_LETTER_DAYS: '2', PCG_DEAD_LETTER_MAX: '50' })).toEqual({ retentionDays: 9, deadLetterDays: 2, deadLetterMax: 50 });
    expect(() => readRetentionConfig({ PCG_DEAD_LETTER_MAX: '-1' })).toThrow(/PCG_DEAD_LETTER_MAX/);
  });
});

describe('the retention passes of the server', () => {
  it('run at start and every interval: events beyond the window and old dead letters go, the document stays, metrics count them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-ret-'));
    const config = readConfig({}, { dataDir: dir, globalApiKey: GLOBAL, logLevel: 'silent', rateLimitBurst: 0, retentionIntervalS: 1, metricsToken: METRICS, deadLetterMax: 3 });
    const made = createApp({ config, runSources: false, runRetention: true });
    const { app } = made;
    try {
      const w = await makeTenant(app, 'pass');
      const plain = (await call(app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: 'kept whole' })).body.id as string;
      const base = `/api/${w.tenantId}/project`;
      expect((await call(app, 'PUT', `${base}/${w.projectId}`, w.admin, { retentionDays: 10 })).status).toBe(200);
      // Both projects get the same batches: 40 days of cases, and five records that fail.
      const bad = [1, 2, 3, 4, 5].map((i) => ({ caseId: '', activity: 'x', timestamp: i }));
      for (const p of [w.projectId, plain]) {
        expect((await call(app, 'POST', `${base}/${p}/events`, w.admin, daily(40))).status).toBe(200);
        expect((await call(app, 'POST', `${base}/${p}/events`, w.admin, bad)).status).toBe(200);
      }
      const store = made.context.states.store(w.projectId);
      // The next pass (within a second) prunes the cases closed more than 10 days before the newest event: days 0..28,
      // and the dead letters past the cap. Waited for, both (a pass prunes events first, then letters): a busy machine
      // may take a while, and the test's timeout bounds the wait.
      while (store.eventCount() > 22 || store.deadLetterTotal() > 3 || made.context.states.store(plain).deadLetterTotal() > 3) await sleep(100);
      expect(store.eventCount()).toBe(22);
      expect(made.context.states.store(plain).eventCount()).toBe(80);
      // Past PCG_DEAD_LETTER_MAX (3) per project the oldest letters went, in both projects.
      expect(store.deadLetterTotal()).toBe(3);
      const doc = async (p: string) => {
        const r = await call(app, 'GET', `${base}/${p}/graph`, w.admin);
        expect(r.status).toBe(200);
        return r.text;
      };
      expect(await doc(w.projectId)).toBe(await doc(plain));

      // Newer events move the window on; a later pass prunes again, without anyone asking.
      for (const p of [w.projectId, plain]) await call(app, 'POST', `${base}/${p}/events`, w.admin, daily(45, 'n'));
      // Newest now day 44: cases of days 29..33 and the new ones of days 0..33 go; 6 + 11 cases stay.
      while (store.eventCount() > 34) await sleep(100);
      expect(store.eventCount()).toBe(2 * (6 + 11));
      expect(await doc(w.projectId)).toBe(await doc(plain));

      const metrics = (await call(app, 'GET', '/metrics', undefined, undefined, { authorization: `Bearer ${METRICS}` })).text;
      const value = (name: string, project: string) => Number(new RegExp(`^${name}\\{project="${project}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
      expect(value('pcg_events_pruned_total', w.projectId)).toBe(58 + 78);
      expect(value('pcg_events_pruned_total', plain)).toBe(0);
      expect(value('pcg_dead_letters_pruned_total', w.projectId)).toBe(2);
      expect(value('pcg_dead_letters_pruned_total', plain)).toBe(2);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
