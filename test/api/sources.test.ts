import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, makeTenant, testApp, type TestApp, type World } from './helpers.js';

/** The source routes alone (no broker: the app's source thread is off, so nothing connects). */
describe('source routes', () => {
  let t: TestApp;
  let w: World;
  let base: string;

  beforeAll(async () => {
    t = testApp();
    w = await makeTenant(t.app, 'sources');
    base = `/api/${w.tenantId}/project/${w.projectId}/source`;
  });
  afterAll(() => t.close());

  it('the minimal body subscribes with the wire-event preset from the earliest offset, in a group of its own', async () => {
    const r = await call(t.app, 'POST', base, w.admin, { brokers: ['127.0.0.1:9092'], topic: 'events', format: 'pcg' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: r.body.id,
      tenantId: w.tenantId,
      projectId: w.projectId,
      name: 'events',
      brokers: ['127.0.0.1:9092'],
      topic: 'events',
      groupId: `pcg-${r.body.id}`,
      format: 'pcg',
      mapping: {},
      start: 'earliest',
      sasl: null,
      tls: null,
      paused: false,
      createdAt: r.body.createdAt,
      updatedAt: r.body.updatedAt,
    });
    const got = await call(t.app, 'GET', `${base}/${r.body.id}`, w.reader);
    expect(got.body.status).toEqual({ state: 'waiting', workers: [], partitions: [], eventsApplied: 0, deadLetters: 0, lastError: null });
  });

  it('answers 400 with the field path for a bad declaration', async () => {
    const cases: [unknown, RegExp][] = [
      [{ topic: 'events' }, /body\.brokers/],
      [{ brokers: ['no-port'], topic: 'events' }, /body\.brokers\.0: expected host:port/],
      [{ brokers: ['127.0.0.1:9092'], topic: 'bad topic!' }, /body\.topic/],
      [{ brokers: ['127.0.0.1:9092'], topic: 'e', format: 'json' }, /body\.mapping\.caseId: format json needs mapping\.caseId/],
      [{ brokers: ['127.0.0.1:9092'], topic: 'e', start: 'yesterday' }, /body\.start/],
      [{ brokers: ['127.0.0.1:9092'], topic: 'e', start: { timestamp: 'soon' } }, /body\.start/],
      [{ brokers: ['127.0.0.1:9092'], topic: 'e', sasl: { mechanism: 'gssapi', username: 'u', password: 'p' } }, /body\.sasl\.mechanism/],
      [{ brokers: ['127.0.0.1:9092'], topic: 'e', mapping: { caseId: '/a/~2' } }, /body\.mapping\.caseId/],
      [{ brokers: ['127.0.0.1:9092'], topic: 'e', surprise: 1 }, /surprise/],
    ];
    for (const [body, message] of cases) {
      const r = await call(t.app, 'POST', base, w.admin, body);
      expectError(r, 400, 'validation_failed');
      expect(r.body.message, JSON.stringify(body)).toMatch(message);
    }
  });

  it('never returns a secret, and seals it at rest', async () => {
    const password = 'hunter2-but-longer-and-secret';
    const tlsKey = '-----BEGIN PRIVATE KEY-----\nsecret-key-material\n-----END PRIVATE KEY-----';
    const r = await call(t.app, 'POST', base, w.admin, {
      name: 'secure',
      brokers: ['127.0.0.1:9093'],
      topic: 'secure',
      sasl: { mechanism: 'scram-sha-512', username: 'svc', password },
      tls: { key: tlsKey, cert: 'CERT', rejectUnauthorized: true },
    });
    expect(r.status).toBe(201);
    expect(r.body.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'svc' });
    expect(r.body.tls).toEqual({ cert: 'CERT', rejectUnauthorized: true, hasKey: true });
    for (const text of [r.text, (await call(t.app, 'GET', base, w.reader)).text, (await call(t.app, 'GET', `${base}/${r.body.id}`, w.admin)).text]) {
      expect(text).not.toContain(password);
      expect(text).not.toContain('secret-key-material');
    }
    const db = new Database(join(t.dir, 'catalog.sqlite'), { readonly: true });
    const row = db.prepare('SELECT body, secret FROM source WHERE id = ?').get(r.body.id) as { body: string; secret: string };
    db.close();
    expect(row.body + row.secret).not.toContain(password);
    expect(row.body + row.secret).not.toContain('secret-key-material');
    expect(row.secret).toMatch(/^v1\./);
    // The runners get the secrets back in clear.
    const active = t.context.catalog.sources.active().find((s) => s.id === r.body.id)!;
    expect(active.sasl?.password).toBe(password);
    expect(typeof active.tls === 'object' && active.tls.key).toBe(tlsKey);
  });

  it('pauses, resumes, changes the mapping and deletes; the supervisor sees each change', async () => {
    const r = await call(t.app, 'POST', base, w.admin, { brokers: ['127.0.0.1:9092'], topic: 'lifecycle' });
    const url = `${base}/${r.body.id}`;
    const activeIds = () => t.context.catalog.sources.active().map((s) => s.id);
    expect(activeIds()).toContain(r.body.id);
    expect((await call(t.app, 'POST', `${url}/pause`, w.admin)).body.paused).toBe(true);
    expect(activeIds()).not.toContain(r.body.id);
    expect((await call(t.app, 'GET', url, w.reader)).body.status.state).toBe('paused');
    expect((await call(t.app, 'POST', `${url}/resume`, w.admin)).body.paused).toBe(false);
    expect(activeIds()).toContain(r.body.id);
    const revision = t.context.catalog.sources.active().find((s) => s.id === r.body.id)!.revision;
    const put = await call(t.app, 'PUT', url, w.admin, { format: 'json', mapping: { caseId: '/order/id', activity: 'status', timestamp: 'at' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ format: 'json', mapping: { caseId: '/order/id', activity: 'status', timestamp: 'at' } });
    expect(t.context.catalog.sources.active().find((s) => s.id === r.body.id)!.revision).not.toBe(revision);
    expectError(await call(t.app, 'PUT', url, w.admin, { format: 'json', mapping: { caseId: 'id' } }), 400, 'validation_failed');
    expect((await call(t.app, 'DELETE', url, w.admin)).status).toBe(204);
    expectError(await call(t.app, 'GET', url, w.reader), 404, 'not_found');
    expect(activeIds()).not.toContain(r.body.id);
  });

  it('a read key cannot subscribe, and a project holds at most 20 sources', async () => {
    expectError(await call(t.app, 'POST', base, w.reader, { brokers: ['127.0.0.1:9092'], topic: 'e' }), 403, 'forbidden');
    const other = (await call(t.app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: 'many sources' })).body.id;
    const url = `/api/${w.tenantId}/project/${other}/source`;
    for (let i = 0; i < 20; i++) expect((await call(t.app, 'POST', url, w.admin, { brokers: ['127.0.0.1:9092'], topic: `t${i}` })).status).toBe(201);
    const r = await call(t.app, 'POST', url, w.admin, { brokers: ['127.0.0.1:9092'], topic: 'one-too-many' });
    expectError(r, 422, 'limit_exceeded');
    expect(r.body.message).toMatch(/sources per project/);
    // Deleting the project deletes its sources.
    expect((await call(t.app, 'DELETE', `/api/${w.tenantId}/project/${other}`, w.admin)).status).toBe(204);
    expect(t.context.catalog.sources.active().filter((s) => s.projectId === other)).toEqual([]);
  });
});
