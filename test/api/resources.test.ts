import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, events, expectError, GLOBAL, makeTenant, testApp, type TestApp, type World } from './helpers.js';

describe('global resources: tenants, users, memberships, keys', () => {
  let t: TestApp;
  beforeAll(() => {
    t = testApp();
  });
  afterAll(() => t.close());

  it('creates, lists, reads, updates and deletes a tenant', async () => {
    const c = await call(t.app, 'POST', '/api/tenant', GLOBAL, { name: 'Acme', description: 'first' });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ name: 'Acme', description: 'first' });
    expect(c.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await call(t.app, 'GET', '/api/tenant', GLOBAL)).body.items.map((x: { id: string }) => x.id)).toContain(c.body.id);
    expect((await call(t.app, 'GET', `/api/tenant/${c.body.id}`, GLOBAL)).body.name).toBe('Acme');
    const u = await call(t.app, 'PUT', `/api/tenant/${c.body.id}`, GLOBAL, { name: 'Acme 2' });
    expect(u.body).toMatchObject({ name: 'Acme 2', description: 'first' });
    expectError(await call(t.app, 'PUT', `/api/tenant/${crypto.randomUUID()}`, GLOBAL, { name: 'x' }), 404, 'not_found');
    expect((await call(t.app, 'DELETE', `/api/tenant/${c.body.id}`, GLOBAL)).status).toBe(204);
    expectError(await call(t.app, 'GET', `/api/tenant/${c.body.id}`, GLOBAL), 404, 'not_found');
    expectError(await call(t.app, 'DELETE', `/api/tenant/${c.body.id}`, GLOBAL), 404, 'not_found');
  });

  it('deleting a tenant deletes its projects, keys and state files', async () => {
    const w = await makeTenant(t.app, 'gone');
    await call(t.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/events`, w.admin, events(2));
    expect(existsSync(join(t.dir, 'projects', w.projectId, 'state.sqlite'))).toBe(true);
    expect((await call(t.app, 'DELETE', `/api/tenant/${w.tenantId}`, GLOBAL)).status).toBe(204);
    expect(existsSync(join(t.dir, 'projects', w.projectId))).toBe(false);
    expectError(await call(t.app, 'GET', `/api/${w.tenantId}/project`, w.admin), 401, 'invalid_token');
    expect(t.context.catalog.projects.get(w.tenantId, w.projectId)).toBeUndefined();
  });

  it('creates users with unique emails, updates and deletes them', async () => {
    const u = await call(t.app, 'POST', '/api/user', GLOBAL, { email: 'ann@example.com', name: 'Ann' });
    expect(u.status).toBe(201);
    expect(u.body).toMatchObject({ email: 'ann@example.com', name: 'Ann' });
    expectError(await call(t.app, 'POST', '/api/user', GLOBAL, { email: 'ann@example.com' }), 409, 'conflict');
    expectError(await call(t.app, 'POST', '/api/user', GLOBAL, { email: 'not an email' }), 400, 'validation_failed');
    const v = await call(t.app, 'POST', '/api/user', GLOBAL, { email: 'bob@example.com' });
    expect(v.body.name).toBe('bob@example.com');
    expectError(await call(t.app, 'PUT', `/api/user/${v.body.id}`, GLOBAL, { email: 'ann@example.com' }), 409, 'conflict');
    expect((await call(t.app, 'PUT', `/api/user/${v.body.id}`, GLOBAL, { name: 'Bob' })).body.name).toBe('Bob');
    expect((await call(t.app, 'GET', `/api/user/${v.body.id}`, GLOBAL)).body.email).toBe('bob@example.com');
    expect((await call(t.app, 'GET', '/api/user', GLOBAL)).body.items.map((x: { email: string }) => x.email)).toEqual(expect.arrayContaining(['ann@example.com', 'bob@example.com']));
    expect((await call(t.app, 'DELETE', `/api/user/${v.body.id}`, GLOBAL)).status).toBe(204);
    expectError(await call(t.app, 'GET', `/api/user/${v.body.id}`, GLOBAL), 404, 'not_found');
  });

  it('assigns users to tenants and issues keys shown once', async () => {
    const tenant = await call(t.app, 'POST', '/api/tenant', GLOBAL, { name: 'T' });
    const user = await call(t.app, 'POST', '/api/user', GLOBAL, { email: 'm@example.com' });
    expectError(await call(t.app, 'POST', `/api/tenant/${tenant.body.id}/user`, GLOBAL, { userId: crypto.randomUUID(), permissions: ['read'] }), 404, 'not_found');
    expectError(await call(t.app, 'POST', `/api/tenant/${tenant.body.id}/user`, GLOBAL, { userId: user.body.id, permissions: ['owner'] }), 400, 'validation_failed');
    const m = await call(t.app, 'POST', `/api/tenant/${tenant.body.id}/user`, GLOBAL, { userId: user.body.id, permissions: ['write', 'read'] });
    expect(m.status).toBe(201);
    expect(m.body).toMatchObject({ id: `${tenant.body.id}:${user.body.id}`, tenantId: tenant.body.id, userId: user.body.id, permissions: ['read', 'write'] });
    expect((await call(t.app, 'GET', `/api/tenant/${tenant.body.id}/user`, GLOBAL)).body.items).toHaveLength(1);
    const k = await call(t.app, 'POST', `/api/tenant/${tenant.body.id}/apikey`, GLOBAL, { userId: user.body.id, name: 'ci' });
    expect(k.status).toBe(201);
    expect(k.body).toMatchObject({ tenantId: tenant.body.id, userId: user.body.id, name: 'ci', permissions: ['read', 'write'], projectIds: null, revokedAt: null });
    expect(k.body.key).toMatch(/^pcgt_[A-Za-z0-9_-]{43}$/);
    const list = await call(t.app, 'GET', `/api/tenant/${tenant.body.id}/apikey`, GLOBAL);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0].key).toBeUndefined();
    expect((await call(t.app, 'DELETE', `/api/tenant/${tenant.body.id}/apikey/${k.body.id}`, GLOBAL)).status).toBe(204);
    expect((await call(t.app, 'GET', `/api/tenant/${tenant.body.id}/apikey`, GLOBAL)).body.items[0].revokedAt).not.toBeNull();
    expect((await call(t.app, 'DELETE', `/api/tenant/${tenant.body.id}/user/${user.body.id}`, GLOBAL)).status).toBe(204);
    expectError(await call(t.app, 'DELETE', `/api/tenant/${tenant.body.id}/user/${user.body.id}`, GLOBAL), 404, 'not_found');
  });
});

describe('tenant resources', () => {
  let t: TestApp;
  let a: World;
  beforeAll(async () => {
    t = testApp();
    a = await makeTenant(t.app, 'a');
  });
  afterAll(() => t.close());
  const base = () => `/api/${a.tenantId}/project/${a.projectId}`;

  it('creates, lists, updates and deletes projects; deleting removes the state files', async () => {
    const p = await call(t.app, 'POST', `/api/${a.tenantId}/project`, a.admin, { name: 'P', description: 'd' });
    expect(p.status).toBe(201);
    expect(p.body).toMatchObject({ tenantId: a.tenantId, name: 'P', description: 'd', dataVersion: 0 });
    await call(t.app, 'POST', `/api/${a.tenantId}/project/${p.body.id}/events`, a.admin, events(3));
    expect(existsSync(join(t.dir, 'projects', p.body.id, 'state.sqlite'))).toBe(true);
    expect((await call(t.app, 'GET', `/api/${a.tenantId}/project`, a.reader)).body.items).toHaveLength(2);
    expect((await call(t.app, 'GET', `/api/${a.tenantId}/project/${p.body.id}`, a.reader)).body.dataVersion).toBe(1);
    expect((await call(t.app, 'PUT', `/api/${a.tenantId}/project/${p.body.id}`, a.admin, { name: 'P2' })).body.name).toBe('P2');
    expect((await call(t.app, 'DELETE', `/api/${a.tenantId}/project/${p.body.id}`, a.admin)).status).toBe(204);
    expect(existsSync(join(t.dir, 'projects', p.body.id))).toBe(false);
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project/${p.body.id}`, a.reader), 404, 'not_found');
  });

  it('ingests a JSON array and NDJSON, answering counts and reasons', async () => {
    const r = await call(t.app, 'POST', `${base()}/events`, a.admin, [...events(4), { caseId: 'x', activity: 'a' }]);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ accepted: 11, duplicates: 0, rejected: 1, dataVersion: 1 });
    expect(r.body.rejections[0]).toEqual({ location: 'record 12', reason: expect.stringContaining('timestamp') });
    const nd = [JSON.stringify(events(5)[11]), '{oops', JSON.stringify({ caseId: 'n1', activity: 'z', timestamp: '2024-02-01T00:00:00Z' })].join('\n');
    const r2 = await call(t.app, 'POST', `${base()}/events`, a.admin, nd, { 'content-type': 'application/x-ndjson' });
    expect(r2.body).toMatchObject({ accepted: 2, duplicates: 0, rejected: 1, dataVersion: 2 });
    expect(r2.body.rejections).toEqual([{ location: 'line 2', reason: expect.stringMatching(/^not JSON: /) }]);
    const again = await call(t.app, 'POST', `${base()}/events`, a.admin, events(4));
    expect(again.body).toMatchObject({ accepted: 0, duplicates: 11, dataVersion: 2 });
    expectError(await call(t.app, 'POST', `${base()}/events`, a.admin, '"text"', { 'content-type': 'application/json' }), 400, 'validation_failed');
    expectError(await call(t.app, 'POST', `${base()}/events`, a.reader, events(1)), 403, 'forbidden');
    expectError(await call(t.app, 'POST', `/api/${a.tenantId}/project/${crypto.randomUUID()}/events`, a.admin, events(1)), 404, 'not_found');
  });

  it('uploads a CSV dataset, imports it, lists and deletes it', async () => {
    const p = await call(t.app, 'POST', `/api/${a.tenantId}/project`, a.admin, { name: 'uploads' });
    const csv = 'case,activity,time\n1,a,2024-01-01T00:00:00Z\n1,b,2024-01-01T01:00:00Z\n2,a,2024-01-02T00:00:00Z\n';
    const url = `/api/${a.tenantId}/project/${p.body.id}/dataset?name=small.csv&format=csv&caseColumn=case&activityColumn=activity&timestampColumn=time`;
    const r = await call(t.app, 'POST', url, a.admin, csv, { 'content-type': 'application/octet-stream' });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ name: 'small.csv', bytes: csv.length, options: { format: 'csv', caseColumn: 'case' } });
    expect(r.body.summary).toMatchObject({ format: 'csv', accepted: 3, rejected: 0 });
    expect(existsSync(join(t.dir, 'projects', p.body.id, 'datasets', r.body.id))).toBe(true);
    expect((await call(t.app, 'GET', `/api/${a.tenantId}/project/${p.body.id}`, a.reader)).body.dataVersion).toBeGreaterThan(0);
    expect((await call(t.app, 'GET', `/api/${a.tenantId}/project/${p.body.id}/dataset`, a.reader)).body.items).toHaveLength(1);
    expect((await call(t.app, 'GET', `/api/${a.tenantId}/project/${p.body.id}/dataset/${r.body.id}`, a.reader)).body.id).toBe(r.body.id);
    const bad = await call(t.app, 'POST', `/api/${a.tenantId}/project/${p.body.id}/dataset?name=blob.bin`, a.admin, Buffer.from([0, 1, 2, 3, 0, 0, 255, 254, 0, 9]), { 'content-type': 'application/octet-stream' });
    expectError(bad, 400, 'validation_failed');
    expect(bad.body.message).not.toContain(t.dir);
    expectError(await call(t.app, 'POST', `/api/${a.tenantId}/project/${p.body.id}/dataset?format=pdf`, a.admin, 'x', { 'content-type': 'application/octet-stream' }), 400, 'validation_failed');
    expectError(await call(t.app, 'POST', `/api/${a.tenantId}/project/${p.body.id}/dataset?format=csv`, a.admin), 400, 'validation_failed');
    for (const format of ['ocel1-xml', 'ocel2-sqlite', 'ocel2-json']) {
      const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
      expectError(await call(t.app, 'POST', `/api/${a.tenantId}/project/${p.body.id}/dataset?format=${format}`, a.admin, png, { 'content-type': 'application/octet-stream' }), 400, 'validation_failed');
    }
    expectError(await call(t.app, 'POST', `/api/${a.tenantId}/project/${p.body.id}/dataset?format=csv`, a.admin, { rows: [] }), 415, 'unsupported_media_type');
    expectError(await call(t.app, 'POST', `/api/${a.tenantId}/project`, a.admin, 'x', { 'content-type': 'application/octet-stream' }), 415, 'unsupported_media_type');
    expect((await call(t.app, 'DELETE', `/api/${a.tenantId}/project/${p.body.id}/dataset/${r.body.id}`, a.admin)).status).toBe(204);
    expect(existsSync(join(t.dir, 'projects', p.body.id, 'datasets', r.body.id))).toBe(false);
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project/${p.body.id}/dataset/${r.body.id}`, a.reader), 404, 'not_found');
  });

  it('413 on an upload over the limit', async () => {
    const small = testApp({ uploadLimitBytes: 1024 });
    try {
      const w = await makeTenant(small.app, 'u');
      const r = await call(small.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/dataset?format=csv`, w.admin, 'x'.repeat(5000), { 'content-type': 'application/octet-stream' });
      expectError(r, 413, 'payload_too_large');
      expect((await call(small.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/dataset`, w.admin)).body.items).toHaveLength(0);
    } finally {
      await small.close();
    }
  });
});
