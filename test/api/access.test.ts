import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, GLOBAL, makeTenant, testApp, type TestApp, type World } from './helpers.js';

describe('access rules', () => {
  let t: TestApp;
  let a: World;
  let b: World;
  beforeAll(async () => {
    t = testApp();
    a = await makeTenant(t.app, 'a');
    b = await makeTenant(t.app, 'b');
  });
  afterAll(() => t.close());
  const ping = (key: string | undefined, tenant?: string, project?: string) => {
    const h: Record<string, string> = {};
    if (tenant) h['x-tenant-id'] = tenant;
    if (project) h['x-project-id'] = project;
    return call(t.app, 'GET', '/api/Action/ping/authenticated', key, undefined, h);
  };

  it('answers the unauthenticated ping without credentials, with a request id', async () => {
    const r = await call(t.app, 'GET', '/api/Action/ping');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    expect(Date.parse(r.body.timestamp)).toBeGreaterThan(0);
    expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('echoes a well-formed incoming request id and replaces a malformed one', async () => {
    const r = await call(t.app, 'GET', '/api/Action/ping', undefined, undefined, { 'x-request-id': 'trace-42' });
    expect(r.headers['x-request-id']).toBe('trace-42');
    const bad = await call(t.app, 'GET', '/api/Action/ping', undefined, undefined, { 'x-request-id': 'a b<c>' });
    expect(bad.headers['x-request-id']).not.toBe('a b<c>');
  });

  it('answers the authenticated ping object of the spec', async () => {
    const r = await ping(a.reader, a.tenantId, a.projectId);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['permissions', 'projectId', 'status', 'tenantId', 'timestamp', 'userId']);
    expect(r.body).toMatchObject({ status: 'authenticated', tenantId: a.tenantId, projectId: a.projectId, userId: a.readerUserId, permissions: ['read'] });
    expect(r.body.timestamp).toMatch(/Z$/);
    const admin = await ping(a.admin, a.tenantId, a.projectId);
    expect(admin.body.permissions).toEqual(['read', 'write', 'admin']);
  });

  it('authenticated ping: 400 missing headers, 401 bad or missing key, 403 other tenant or project', async () => {
    expectError(await ping(a.admin, a.tenantId), 400, 'missing_headers');
    expectError(await ping(a.admin, undefined, a.projectId), 400, 'missing_headers');
    expectError(await ping(undefined, a.tenantId, a.projectId), 401, 'invalid_token');
    expectError(await ping('pcgt_nonsense', a.tenantId, a.projectId), 401, 'invalid_token');
    expectError(await ping(a.admin, b.tenantId, b.projectId), 403, 'forbidden');
    expectError(await ping(a.admin, a.tenantId, b.projectId), 403, 'forbidden');
    expectError(await ping(a.admin, 'not-a-guid', a.projectId), 400, 'validation_failed');
    expectError(await ping(GLOBAL, a.tenantId, a.projectId), 403, 'forbidden');
  });

  it('401 for a tenant key on /api/tenant and /api/user, and for no key or a bad scheme', async () => {
    expectError(await call(t.app, 'GET', '/api/tenant', a.admin), 401, 'invalid_token');
    expectError(await call(t.app, 'POST', '/api/tenant', a.admin, { name: 'x' }), 401, 'invalid_token');
    expectError(await call(t.app, 'GET', '/api/user', a.admin), 401, 'invalid_token');
    expectError(await call(t.app, 'GET', '/api/tenant'), 401, 'invalid_token');
    expectError(await call(t.app, 'GET', '/api/tenant', undefined, undefined, { authorization: `Basic ${GLOBAL}` }), 401, 'invalid_token');
    expect((await call(t.app, 'GET', '/api/tenant', GLOBAL)).status).toBe(200);
  });

  it('403 for a global key on tenant routes, for a missing permission, and for another tenant', async () => {
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project`, GLOBAL), 403, 'forbidden');
    expectError(await call(t.app, 'POST', `/api/${a.tenantId}/project`, a.reader, { name: 'p' }), 403, 'forbidden');
    expectError(await call(t.app, 'GET', `/api/${b.tenantId}/project`, a.admin), 403, 'forbidden');
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/apikey`, a.reader), 403, 'forbidden');
  });

  it('a revoked key stops working; a removed membership removes the key\'s rights', async () => {
    const user = await call(t.app, 'POST', '/api/user', GLOBAL, { email: 'temp@example.com' });
    await call(t.app, 'POST', `/api/tenant/${a.tenantId}/user`, GLOBAL, { userId: user.body.id, permissions: ['read', 'write'] });
    const k1 = await call(t.app, 'POST', `/api/${a.tenantId}/apikey`, a.admin, { userId: user.body.id, name: 'k1' });
    expect(k1.status).toBe(201);
    expect(k1.body.permissions).toEqual(['read', 'write']);
    expect((await call(t.app, 'GET', `/api/${a.tenantId}/project`, k1.body.key)).status).toBe(200);
    const listed = await call(t.app, 'GET', `/api/${a.tenantId}/apikey`, a.admin);
    const row = listed.body.items.find((k: { id: string }) => k.id === k1.body.id);
    expect(row.lastUsedAt).not.toBeNull();
    expect(row.key).toBeUndefined();
    expect(JSON.stringify(listed.body)).not.toContain(k1.body.key);
    expect((await call(t.app, 'DELETE', `/api/${a.tenantId}/apikey/${k1.body.id}`, a.admin)).status).toBe(204);
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project`, k1.body.key), 401, 'invalid_token');
    expectError(await call(t.app, 'DELETE', `/api/${a.tenantId}/apikey/${k1.body.id}`, a.admin), 404, 'not_found');

    const k2 = await call(t.app, 'POST', `/api/tenant/${a.tenantId}/apikey`, GLOBAL, { userId: user.body.id, name: 'k2' });
    await call(t.app, 'DELETE', `/api/tenant/${a.tenantId}/user/${user.body.id}`, GLOBAL);
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project`, k2.body.key), 403, 'forbidden');
  });

  it('a key never exceeds its membership nor its issuer', async () => {
    expectError(await call(t.app, 'POST', `/api/tenant/${a.tenantId}/apikey`, GLOBAL, { userId: a.readerUserId, name: 'x', permissions: ['write'] }), 400, 'validation_failed');
    expectError(await call(t.app, 'POST', `/api/tenant/${a.tenantId}/apikey`, GLOBAL, { userId: b.readerUserId, name: 'x' }), 400, 'validation_failed');
    expectError(await call(t.app, 'POST', `/api/tenant/${a.tenantId}/apikey`, GLOBAL, { userId: a.adminUserId, name: 'x', projectIds: [b.projectId] }), 400, 'validation_failed');
  });

  it('a project-scoped key sees only its projects', async () => {
    const other = await call(t.app, 'POST', `/api/${a.tenantId}/project`, a.admin, { name: 'other' });
    const scoped = await call(t.app, 'POST', `/api/${a.tenantId}/apikey`, a.admin, { userId: a.adminUserId, name: 's', permissions: ['read', 'write'], projectIds: [a.projectId] });
    expect(scoped.body.projectIds).toEqual([a.projectId]);
    const list = await call(t.app, 'GET', `/api/${a.tenantId}/project`, scoped.body.key);
    expect(list.body.items.map((p: { id: string }) => p.id)).toEqual([a.projectId]);
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project/${other.body.id}`, scoped.body.key), 403, 'forbidden');
    expectError(await call(t.app, 'POST', `/api/${a.tenantId}/project`, scoped.body.key, { name: 'no' }), 403, 'forbidden');
    const p = await call(t.app, 'GET', '/api/Action/ping/authenticated', scoped.body.key, undefined, { 'x-tenant-id': a.tenantId, 'x-project-id': other.body.id });
    expectError(p, 403, 'forbidden');
    // A tenant admin cannot hand out more than it holds.
    expectError(await call(t.app, 'POST', `/api/${a.tenantId}/apikey`, scoped.body.key, { userId: a.adminUserId, name: 'x' }), 403, 'forbidden');
  });

  it('maps body, media type, routing and validation failures onto the registry', async () => {
    expectError(await call(t.app, 'GET', '/api/nowhere'), 404, 'not_found');
    expectError(await call(t.app, 'POST', '/api/tenant', GLOBAL, '{"name":', { 'content-type': 'application/json' }), 400, 'validation_failed');
    expectError(await call(t.app, 'POST', '/api/tenant', GLOBAL, 'name=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
    expectError(await call(t.app, 'POST', '/api/tenant', GLOBAL, { name: '' }), 400, 'validation_failed');
    expectError(await call(t.app, 'POST', '/api/tenant', GLOBAL, { name: 'x', extra: 1 }), 400, 'validation_failed');
    expectError(await call(t.app, 'GET', '/api/tenant/not-a-guid', GLOBAL), 400, 'validation_failed');
    expectError(await call(t.app, 'GET', `/api/tenant/${crypto.randomUUID()}`, GLOBAL), 404, 'not_found');
    expectError(await call(t.app, 'GET', '/api/tenant?verbose=1', GLOBAL), 400, 'validation_failed');
  });

  it('413 on a body over the limit, 429 past the rate limit with Retry-After', async () => {
    const small = testApp({ bodyLimitBytes: 2048, rateLimitBurst: 3, rateLimitPerSecond: 1 });
    try {
      expectError(await call(small.app, 'POST', '/api/tenant', GLOBAL, { name: 'x'.repeat(5000) }), 413, 'payload_too_large');
      let last;
      for (let i = 0; i < 4; i++) last = await call(small.app, 'GET', '/api/tenant', GLOBAL);
      expectError(last!, 429, 'rate_limited');
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await small.close();
    }
  });

  it('writes a generated global key once, readable by its owner only', async () => {
    const g = testApp({ globalApiKey: undefined });
    try {
      expect(g.globalKey.source).toBe('generated');
      const file = join(g.dir, 'global-api-key');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const key = readFileSync(file, 'utf8').trim();
      expect((await call(g.app, 'GET', '/api/tenant', key)).status).toBe(200);
      expect(readFileSync(join(g.dir, 'catalog.sqlite')).includes(Buffer.from(key))).toBe(false);
    } finally {
      await g.close();
    }
    expect(existsSync(g.dir)).toBe(false);
  });
});
