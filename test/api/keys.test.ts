import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
// ajv comes with fastify; used only to hold answers to the published schemas.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createApp, type PcgApp } from '../../api/app.js';
import { Catalog } from '../../api/catalog/index.js';
import { migrations } from '../../api/catalog/migrations.js';
import { readConfig } from '../../api/config.js';
import { demoKeyFile, ensureDemo } from '../../api/demo.js';
import { openSqlite } from '../../engine/index.js';
import { call, events, expectError, GLOBAL, makeTenant, testApp, type TestApp, type World } from './helpers.js';

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** An app over a data directory that outlives it (for restarts). */
function appOver(dir: string, globalApiKey?: string): PcgApp {
  return createApp({ config: readConfig({}, { dataDir: dir, globalApiKey, logLevel: 'silent', rateLimitBurst: 0 }), runSources: false });
}

/** A user of the tenant with these membership permissions, and a key of theirs. */
async function member(t: TestApp, w: World, label: string, membership: string[], key: Record<string, unknown> = {}) {
  const user = await call(t.app, 'POST', '/api/user', GLOBAL, { email: `${label}-${crypto.randomUUID()}@example.com` });
  expect((await call(t.app, 'POST', `/api/tenant/${w.tenantId}/user`, GLOBAL, { userId: user.body.id, permissions: membership })).status).toBe(201);
  const k = await call(t.app, 'POST', `/api/${w.tenantId}/apikey`, w.admin, { userId: user.body.id, name: label, ...key });
  expect(k.status, k.text).toBe(201);
  return { userId: user.body.id as string, key: k.body.key as string, keyId: k.body.id as string, created: k.body };
}

describe('global keys at /admin/global-api-keys', () => {
  let t: TestApp;
  let a: World;
  beforeAll(async () => {
    t = testApp();
    a = await makeTenant(t.app, 'g');
  });
  afterAll(() => t.close());
  afterEach(() => void vi.useRealTimers());

  it('creates (secret once), lists (no secrets) and revokes global keys', async () => {
    const made = await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'ops' });
    expect(made.status, made.text).toBe(201);
    expect(Object.keys(made.body).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'issuedByKeyId', 'key', 'lastUsedAt', 'name', 'origin', 'revokedAt']);
    expect(made.body).toMatchObject({ name: 'ops', origin: 'api', expiresAt: null, revokedAt: null });
    expect(made.body.key).toMatch(/^pcgg_/);
    expect((await call(t.app, 'GET', '/api/tenant', made.body.key)).status).toBe(200);

    const list = await call(t.app, 'GET', '/admin/global-api-keys', made.body.key);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(made.body.key);
    expect(list.text).not.toContain(GLOBAL);
    const configured = list.body.items.find((k: { origin: string }) => k.origin === 'config');
    expect(configured).toMatchObject({ name: 'configured', revokedAt: null });
    expect(list.body.items.find((k: { id: string }) => k.id === made.body.id).key).toBeUndefined();

    expect((await call(t.app, 'DELETE', `/admin/global-api-keys/${made.body.id}`, GLOBAL)).status).toBe(204);
    expectError(await call(t.app, 'GET', '/api/tenant', made.body.key), 401, 'invalid_token');
    expectError(await call(t.app, 'DELETE', `/admin/global-api-keys/${made.body.id}`, GLOBAL), 404, 'not_found');
    expectError(await call(t.app, 'DELETE', `/admin/global-api-keys/${crypto.randomUUID()}`, GLOBAL), 404, 'not_found');
    const after = await call(t.app, 'GET', '/admin/global-api-keys', GLOBAL);
    expect(after.body.items.find((k: { id: string }) => k.id === made.body.id).revokedAt).not.toBeNull();
  });

  it('is for global keys only: a tenant key gets 401, a bad body 400', async () => {
    expectError(await call(t.app, 'GET', '/admin/global-api-keys', a.admin), 401, 'invalid_token');
    expectError(await call(t.app, 'POST', '/admin/global-api-keys', a.admin, { name: 'x' }), 401, 'invalid_token');
    expectError(await call(t.app, 'GET', '/admin/global-api-keys'), 401, 'invalid_token');
    expectError(await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, {}), 400, 'validation_failed');
    expectError(await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'x', secret: 'mine' }), 400, 'validation_failed');
    expectError(await call(t.app, 'DELETE', '/admin/global-api-keys/not-a-guid', GLOBAL), 400, 'validation_failed');
  });

  it('refuses (409) to revoke the last usable global key, its own caller', async () => {
    const keys = (await call(t.app, 'GET', '/admin/global-api-keys', GLOBAL)).body.items as { id: string; origin: string; revokedAt: string | null }[];
    const own = keys.find((k) => k.origin === 'config')!;
    expect(keys.filter((k) => k.revokedAt === null)).toHaveLength(1);
    expectError(await call(t.app, 'DELETE', `/admin/global-api-keys/${own.id}`, GLOBAL), 409, 'conflict');
    expect((await call(t.app, 'GET', '/api/tenant', GLOBAL)).status).toBe(200);
    // With a second key it may go: rotation.
    const next = await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'next' });
    const other = testApp();
    try {
      // (on another app, so this suite's configured key survives) the configured key revokes itself once another exists
      const spare = await call(other.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'spare' });
      const mine = (await call(other.app, 'GET', '/admin/global-api-keys', GLOBAL)).body.items.find((k: { origin: string }) => k.origin === 'config');
      expect((await call(other.app, 'DELETE', `/admin/global-api-keys/${mine.id}`, GLOBAL)).status).toBe(204);
      expectError(await call(other.app, 'GET', '/api/tenant', GLOBAL), 401, 'invalid_token');
      expectError(await call(other.app, 'DELETE', `/admin/global-api-keys/${spare.body.id}`, spare.body.key), 409, 'conflict');
    } finally {
      await other.close();
    }
    expect((await call(t.app, 'DELETE', `/admin/global-api-keys/${next.body.id}`, GLOBAL)).status).toBe(204);
  });

  it('expires a global key: 401 token_expired after expiresAt, and an expired key counts as gone for the 409 rule', async () => {
    expectError(await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'x', expiresAt: '2020-01-01T00:00:00Z' }), 400, 'validation_failed');
    expectError(await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'x', expiresAt: 'tomorrow' }), 400, 'validation_failed');
    const expiresAt = inAnHour();
    const short = await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'short', expiresAt });
    expect(short.status).toBe(201);
    expect(short.body.expiresAt).toBe(expiresAt);
    expect((await call(t.app, 'GET', '/api/tenant', short.body.key)).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3_600_001);
    expectError(await call(t.app, 'GET', '/api/tenant', short.body.key), 401, 'token_expired');
    const own = (await call(t.app, 'GET', '/admin/global-api-keys', GLOBAL)).body.items.find((k: { origin: string }) => k.origin === 'config');
    expectError(await call(t.app, 'DELETE', `/admin/global-api-keys/${own.id}`, GLOBAL), 409, 'conflict');
    expect((await call(t.app, 'DELETE', `/admin/global-api-keys/${short.body.id}`, GLOBAL)).status).toBe(204);
  });
});

describe('key routes in the OpenAPI document', () => {
  it('publishes /admin/global-api-keys as global routes, and key answers conform to their schemas', async () => {
    const t = testApp();
    try {
      const a = await makeTenant(t.app, 'o');
      const spec = (await call(t.app, 'GET', '/openapi.json')).body;
      expect(Object.keys(spec.paths['/admin/global-api-keys']).sort()).toEqual(['get', 'post']);
      expect(Object.keys(spec.paths['/admin/global-api-keys/{id}'])).toEqual(['delete']);
      expect(spec.paths['/admin/global-api-keys'].post.requestBody.content['application/json'].schema.properties.expiresAt.format).toBe('date-time');
      for (const r of t.routes.filter((r) => r.url.startsWith('/admin/'))) expect(r.access).toBe('global');
      const ajv = new Ajv2020({ strict: false, validateFormats: false });
      ajv.addSchema({ $id: 'spec', components: spec.components });
      const check = async (method: 'GET' | 'POST' | 'DELETE', path: string, url: string, key: string, body?: unknown) => {
        const r = await call(t.app, method, url, key, body);
        const responses = spec.paths[path][method.toLowerCase()].responses;
        const schema = (responses[String(r.status)] ?? responses.default).content?.['application/json']?.schema;
        if (r.status === 204) return expect(responses['204']).toBeDefined();
        const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"spec#/components')));
        expect(validate(r.body), `${method} ${url}: ${JSON.stringify(validate.errors)}`).toBe(true);
        return r;
      };
      const made = await check('POST', '/admin/global-api-keys', '/admin/global-api-keys', GLOBAL, { name: 'o', expiresAt: inAnHour() });
      await check('GET', '/admin/global-api-keys', '/admin/global-api-keys', GLOBAL);
      await check('POST', '/api/{tenantId}/apikey', `/api/${a.tenantId}/apikey`, a.admin, { userId: a.readerUserId, name: 'x', expiresAt: inAnHour() });
      await check('GET', '/api/{tenantId}/apikey', `/api/${a.tenantId}/apikey`, a.admin);
      await check('GET', '/api/tenant/{tenantId}/apikey', `/api/tenant/${a.tenantId}/apikey`, GLOBAL);
      await check('DELETE', '/admin/global-api-keys/{id}', `/admin/global-api-keys/${made!.body.id}`, GLOBAL);
      const own = (await call(t.app, 'GET', '/admin/global-api-keys', GLOBAL)).body.items.find((k: { origin: string }) => k.origin === 'config');
      await check('DELETE', '/admin/global-api-keys/{id}', `/admin/global-api-keys/${own.id}`, GLOBAL);
    } finally {
      await t.close();
    }
  });
});

describe('the configured global key across restarts', () => {
  it('a changed PCG_GLOBAL_API_KEY revokes the old one; keys made at /admin stay; a revoked key never comes back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-keys-'));
    const first = 'first-configured-key-0123456789';
    const second = 'second-configured-key-012345678';
    try {
      const one = appOver(dir, first);
      expect(one.globalKey).toEqual({ source: 'config' });
      const made = await call(one.app, 'POST', '/admin/global-api-keys', first, { name: 'ops' });
      await one.app.close();

      const two = appOver(dir, second);
      // A rotation keeps what the old key issued, and says how many it kept.
      expect(two.globalKey).toEqual({ source: 'config', replaced: 1, keptIssued: 1 });
      expectError(await call(two.app, 'GET', '/api/tenant', first), 401, 'invalid_token');
      expect((await call(two.app, 'GET', '/api/tenant', second)).status).toBe(200);
      expect((await call(two.app, 'GET', '/api/tenant', made.body.key)).status).toBe(200);
      const items = (await call(two.app, 'GET', '/admin/global-api-keys', second)).body.items as { id: string; origin: string; revokedAt: string | null; issuedByKeyId: string | null }[];
      expect(items.find((k) => k.origin === 'api')!.issuedByKeyId).toBe(items[0]!.id);
      // In creation order: the first configured key (now revoked), the one made at /admin, the second configured key.
      expect(items.map((k) => [k.origin, k.revokedAt === null])).toEqual([
        ['config', false],
        ['api', true],
        ['config', true],
      ]);
      await two.app.close();

      // The same key again: nothing changes.
      const three = appOver(dir, second);
      expect(three.globalKey).toEqual({ source: 'config' });
      await three.app.close();

      // The revoked first key configured again stays revoked and replaces nothing.
      const four = appOver(dir, first);
      expect(four.globalKey).toEqual({ source: 'config', revoked: true });
      expectError(await call(four.app, 'GET', '/api/tenant', first), 401, 'invalid_token');
      expect((await call(four.app, 'GET', '/api/tenant', second)).status).toBe(200);
      await four.app.close();

      // Left unset: the configured key keeps working, no key file is made while a key works.
      const five = appOver(dir);
      expect(five.globalKey).toEqual({ source: 'file' });
      expect((await call(five.app, 'GET', '/api/tenant', second)).status).toBe(200);
      await five.app.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a revoked key-file key does not come back at the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-keys-'));
    try {
      const one = appOver(dir);
      expect(one.globalKey.source).toBe('generated');
      const fileKey = readFileSync(join(dir, 'global-api-key'), 'utf8').trim();
      const spare = await call(one.app, 'POST', '/admin/global-api-keys', fileKey, { name: 'spare' });
      const row = (await call(one.app, 'GET', '/admin/global-api-keys', fileKey)).body.items.find((k: { origin: string }) => k.origin === 'file');
      expect((await call(one.app, 'DELETE', `/admin/global-api-keys/${row.id}`, spare.body.key)).status).toBe(204);
      await one.app.close();
      const two = appOver(dir);
      expect(two.globalKey).toMatchObject({ source: 'file', revoked: true });
      expectError(await call(two.app, 'GET', '/api/tenant', fileKey), 401, 'invalid_token');
      expect((await call(two.app, 'GET', '/api/tenant', spare.body.key)).status).toBe(200);
      await two.app.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('migrates global keys written before origins: the configured one is the config row', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-keys-'));
    const file = join(dir, 'catalog.sqlite');
    try {
      const mine = migrations.findIndex((m) => m.includes('ADD COLUMN origin'));
      const old = openSqlite(file, migrations.slice(0, mine), { tooNew: () => new Error('too new') });
      const insert = old.prepare("INSERT INTO global_key (id, name, prefix, hash, created_at) VALUES (?, ?, 'p', x'00', '2024-01-01T00:00:00.000Z')");
      insert.run('11111111-1111-4111-8111-111111111111', 'configured');
      insert.run('22222222-2222-4222-8222-222222222222', 'key file');
      old.close();
      const c = Catalog.open(file);
      try {
        expect(c.keys.globalKeys().map((k) => [k.name, k.origin, k.expiresAt])).toEqual([
          ['configured', 'config', null],
          ['key file', 'file', null],
        ]);
      } finally {
        c.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('tenant keys: expiry, scope, downgrades, last use', () => {
  let t: TestApp;
  let a: World;
  beforeAll(async () => {
    t = testApp();
    a = await makeTenant(t.app, 'k');
  });
  afterAll(() => t.close());
  afterEach(() => void vi.useRealTimers());

  it('takes an optional expiresAt in the future; an expired key answers 401 token_expired', async () => {
    expectError(await call(t.app, 'POST', `/api/${a.tenantId}/apikey`, a.admin, { userId: a.readerUserId, name: 'x', expiresAt: '2001-01-01T00:00:00Z' }), 400, 'validation_failed');
    expectError(await call(t.app, 'POST', `/api/tenant/${a.tenantId}/apikey`, GLOBAL, { userId: a.readerUserId, name: 'x', expiresAt: 'soon' }), 400, 'validation_failed');
    const expiresAt = new Date(Date.now() + 3_600_000);
    const k = await call(t.app, 'POST', `/api/tenant/${a.tenantId}/apikey`, GLOBAL, { userId: a.readerUserId, name: 'x', expiresAt: expiresAt.toISOString().replace('Z', '+00:00') });
    expect(k.status, k.text).toBe(201);
    expect(k.body.expiresAt).toBe(expiresAt.toISOString());
    const never = await call(t.app, 'POST', `/api/${a.tenantId}/apikey`, a.admin, { userId: a.readerUserId, name: 'never' });
    expect(never.body.expiresAt).toBeNull();
    expect((await call(t.app, 'GET', `/api/${a.tenantId}/project`, k.body.key)).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(expiresAt.getTime());
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project`, k.body.key), 401, 'token_expired');
    expectError(await call(t.app, 'GET', '/api/tenant', k.body.key), 401, 'token_expired');
    expect((await call(t.app, 'GET', `/api/${a.tenantId}/project`, never.body.key)).status).toBe(200);
    const listed = (await call(t.app, 'GET', `/api/${a.tenantId}/apikey`, a.admin)).body.items.find((x: { id: string }) => x.id === k.body.id);
    expect(listed.expiresAt).toBe(expiresAt.toISOString());
  });

  it('a project-scoped admin key lists and revokes only keys within its projects', async () => {
    const p2 = (await call(t.app, 'POST', `/api/${a.tenantId}/project`, a.admin, { name: 'second' })).body.id as string;
    const scoped = await call(t.app, 'POST', `/api/${a.tenantId}/apikey`, a.admin, { userId: a.adminUserId, name: 'scoped admin', projectIds: [a.projectId] });
    expect(scoped.body.permissions).toEqual(['read', 'write', 'admin']);
    const inside = await call(t.app, 'POST', `/api/${a.tenantId}/apikey`, scoped.body.key, { userId: a.readerUserId, name: 'inside' });
    expect(inside.body.projectIds).toEqual([a.projectId]);
    const both = await call(t.app, 'POST', `/api/${a.tenantId}/apikey`, a.admin, { userId: a.readerUserId, name: 'both', projectIds: [a.projectId, p2] });
    const elsewhere = await call(t.app, 'POST', `/api/${a.tenantId}/apikey`, a.admin, { userId: a.readerUserId, name: 'elsewhere', projectIds: [p2] });

    const seen = (await call(t.app, 'GET', `/api/${a.tenantId}/apikey`, scoped.body.key)).body.items.map((k: { id: string }) => k.id).sort();
    expect(seen).toEqual([scoped.body.id, inside.body.id].sort());
    const all = (await call(t.app, 'GET', `/api/${a.tenantId}/apikey`, a.admin)).body.items.map((k: { id: string }) => k.id);
    for (const id of [scoped.body.id, inside.body.id, both.body.id, elsewhere.body.id, a.adminKeyId]) expect(all).toContain(id);

    // Tenant-wide keys (the tenant admin's own) and keys reaching other projects are out of reach: 404, unchanged.
    for (const id of [a.adminKeyId, both.body.id, elsewhere.body.id]) {
      expectError(await call(t.app, 'DELETE', `/api/${a.tenantId}/apikey/${id}`, scoped.body.key), 404, 'not_found');
    }
    expect((await call(t.app, 'GET', `/api/${a.tenantId}/project`, a.admin)).status).toBe(200);
    expect((await call(t.app, 'GET', `/api/${a.tenantId}/project/${p2}`, elsewhere.body.key)).status).toBe(200);
    expect((await call(t.app, 'DELETE', `/api/${a.tenantId}/apikey/${inside.body.id}`, scoped.body.key)).status).toBe(204);
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project/${a.projectId}`, inside.body.key), 401, 'invalid_token');
    // The tenant-wide admin still reaches everything.
    expect((await call(t.app, 'DELETE', `/api/${a.tenantId}/apikey/${both.body.id}`, a.admin)).status).toBe(204);
  });

  it('a downgraded membership caps its keys instead of voiding them', async () => {
    const m = await member(t, a, 'writer', ['read', 'write'], { permissions: ['read', 'write'] });
    // Keys whose permissions do not spell out what they imply lost everything before.
    const w = await member(t, a, 'write-only', ['write'], { permissions: ['write'] });
    const x = await member(t, a, 'admin-only', ['admin']);
    expect(x.created.permissions).toEqual(['admin']);
    const project = `/api/${a.tenantId}/project/${a.projectId}`;
    const ping = (key: string) => call(t.app, 'GET', '/api/Action/ping/authenticated', key, undefined, { 'x-tenant-id': a.tenantId, 'x-project-id': a.projectId });
    expect((await call(t.app, 'POST', `${project}/events`, m.key, events(1))).status).toBe(200);
    for (const u of [m, w]) await call(t.app, 'POST', `/api/tenant/${a.tenantId}/user`, GLOBAL, { userId: u.userId, permissions: ['read'] });
    for (const u of [m, w]) {
      expect((await call(t.app, 'GET', project, u.key)).status).toBe(200);
      expect((await call(t.app, 'GET', `${project}/graph`, u.key)).status).toBe(200);
      expectError(await call(t.app, 'POST', `${project}/events`, u.key, events(1)), 403, 'forbidden');
      expect((await ping(u.key)).body.permissions).toEqual(['read']);
    }
    await call(t.app, 'POST', `/api/tenant/${a.tenantId}/user`, GLOBAL, { userId: x.userId, permissions: ['write'] });
    expect((await ping(x.key)).body.permissions).toEqual(['read', 'write']);
    expect((await call(t.app, 'POST', `${project}/events`, x.key, events(1))).status).toBe(200);
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/apikey`, x.key), 403, 'forbidden');
    // Upgraded again, the key has what it was issued with, never more.
    await call(t.app, 'POST', `/api/tenant/${a.tenantId}/user`, GLOBAL, { userId: m.userId, permissions: ['read', 'write', 'admin'] });
    expect((await ping(m.key)).body.permissions).toEqual(['read', 'write']);
    expect((await call(t.app, 'POST', `${project}/events`, m.key, events(1))).status).toBe(200);
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/apikey`, m.key), 403, 'forbidden');
  });

  it('writes last_used_at at most once a minute per key', async () => {
    const m = await member(t, a, 'touch', ['read']);
    const lastUsed = () => t.context.catalog.keys.tenantKey(a.tenantId, m.keyId)!.lastUsedAt;
    expect(lastUsed()).toBeNull();
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    await call(t.app, 'GET', `/api/${a.tenantId}/project`, m.key);
    const first = lastUsed();
    expect(first).toBe(new Date(start).toISOString());
    vi.setSystemTime(start + 30_000);
    await call(t.app, 'GET', `/api/${a.tenantId}/project`, m.key);
    expect(lastUsed()).toBe(first);
    vi.setSystemTime(start + 59_999);
    await call(t.app, 'GET', `/api/${a.tenantId}/project`, m.key);
    expect(lastUsed()).toBe(first);
    vi.setSystemTime(start + 60_000);
    await call(t.app, 'GET', `/api/${a.tenantId}/project`, m.key);
    expect(lastUsed()).toBe(new Date(start + 60_000).toISOString());
    // Global keys too.
    const made = await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'touch' });
    await call(t.app, 'GET', '/api/tenant', made.body.key);
    const g1 = t.context.catalog.keys.globalKey(made.body.id)!.lastUsedAt;
    expect(g1).not.toBeNull();
    vi.setSystemTime(start + 90_000);
    await call(t.app, 'GET', '/api/tenant', made.body.key);
    expect(t.context.catalog.keys.globalKey(made.body.id)!.lastUsedAt).toBe(g1);
    await call(t.app, 'DELETE', `/admin/global-api-keys/${made.body.id}`, GLOBAL);
  });

  it('forgets the last use of keys that went without a revoke (tenant deleted, expired) once a minute has passed', async () => {
    const own = testApp();
    try {
      vi.useFakeTimers({ toFake: ['Date'] });
      const start = Date.now();
      const keys = own.context.catalog.keys;
      const gone = await makeTenant(own.app, 'gone');
      const stays = await makeTenant(own.app, 'stays');
      const expiring = await call(own.app, 'POST', `/api/${stays.tenantId}/apikey`, stays.admin, { userId: stays.readerUserId, name: 'expiring', expiresAt: new Date(start + 30_000).toISOString() });
      for (const key of [gone.admin, gone.reader]) expect((await call(own.app, 'GET', `/api/${gone.tenantId}/project`, key)).status).toBe(200);
      expect((await call(own.app, 'GET', `/api/${stays.tenantId}/project`, expiring.body.key)).status).toBe(200);
      expect((await call(own.app, 'GET', `/api/${stays.tenantId}/project`, stays.admin)).status).toBe(200);
      // The global key (used to make the tenants), gone's two keys, stays' admin and the expiring key.
      expect(keys.touchedCount).toBe(5);
      expect((await call(own.app, 'DELETE', `/api/tenant/${gone.tenantId}`, GLOBAL)).status).toBe(204);
      expectError(await call(own.app, 'GET', `/api/${gone.tenantId}/project`, gone.admin), 401, 'invalid_token');
      expect(keys.touchedCount).toBe(5);

      // Within the minute nothing may go: each entry still holds its key's next write back.
      vi.setSystemTime(start + 59_000);
      expect((await call(own.app, 'GET', `/api/${stays.tenantId}/project`, stays.reader)).status).toBe(200);
      expect(keys.touchedCount).toBe(6);

      vi.setSystemTime(start + 61_000);
      expectError(await call(own.app, 'GET', `/api/${stays.tenantId}/project`, expiring.body.key), 401, 'token_expired');
      expect((await call(own.app, 'GET', `/api/${stays.tenantId}/project`, stays.admin)).status).toBe(200);
      // Left: stays' admin (just written again) and reader (written 2 s ago); the deleted tenant's keys, the expired key and the idle global key are forgotten.
      expect(keys.touchedCount).toBe(2);
      expect(keys.tenantKey(stays.tenantId, stays.adminKeyId)!.lastUsedAt).toBe(new Date(start + 61_000).toISOString());
      // Forgetting changes no write: the reader's next use within its minute writes nothing.
      vi.setSystemTime(start + 100_000);
      const readerId = (await call(own.app, 'GET', `/api/${stays.tenantId}/apikey`, stays.admin)).body.items.find((k: { name: string }) => k.name === 'reader').id as string;
      expect((await call(own.app, 'GET', `/api/${stays.tenantId}/project`, stays.reader)).status).toBe(200);
      expect(keys.tenantKey(stays.tenantId, readerId)!.lastUsedAt).toBe(new Date(start + 59_000).toISOString());
    } finally {
      vi.useRealTimers();
      await own.close();
    }
  });
});

describe('open graph streams end when their key loses access', () => {
  let t: TestApp;
  let a: World;
  let address: string;
  beforeAll(async () => {
    t = testApp();
    a = await makeTenant(t.app, 's');
    address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => t.close());

  /** Opens the stream and reads its first event; `rest()` reads until the server ends it. */
  async function open(key: string) {
    const controller = new AbortController();
    const res = await fetch(`${address}/api/${a.tenantId}/project/${a.projectId}/graph/stream`, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) return false;
        text += decoder.decode(value, { stream: true });
      }
      return true;
    };
    expect(await until(/event: version[^]*\n\n/)).toBe(true);
    return {
      /** Reads to the end (aborting after 5 s); everything received, and when the end came. */
      async rest(): Promise<{ text: string; endedAt: number }> {
        const timer = setTimeout(() => controller.abort(), 5000);
        try {
          while (true) {
            const { value, done } = await reader.read();
            if (done) break;
            text += decoder.decode(value, { stream: true });
          }
        } finally {
          clearTimeout(timer);
        }
        return { text, endedAt: Date.now() };
      },
      until,
      close: () => controller.abort(),
    };
  }
  const errorOf = (text: string) => JSON.parse(/event: error\ndata: (.*)\n/.exec(text)![1]!) as { error: string };

  it('revocation ends the stream at once with an error event', async () => {
    const m = await member(t, a, 'revoked', ['read']);
    const other = await member(t, a, 'bystander', ['read']);
    const s = await open(m.key);
    // Another key's revocation leaves it open.
    expect((await call(t.app, 'DELETE', `/api/${a.tenantId}/apikey/${other.keyId}`, a.admin)).status).toBe(204);
    const ended = s.rest();
    await sleep(100);
    const revokedAt = Date.now();
    expect((await call(t.app, 'DELETE', `/api/${a.tenantId}/apikey/${m.keyId}`, a.admin)).status).toBe(204);
    const { text, endedAt } = await ended;
    expect(errorOf(text).error).toBe('invalid_token');
    // At once: not at the next once-a-second poll.
    expect(endedAt - revokedAt).toBeLessThan(250);
  });

  it('membership removal and user deletion end the stream; a downgrade that keeps read does not', async () => {
    const removed = await member(t, a, 'removed', ['read', 'write'], { permissions: ['read', 'write'] });
    const deleted = await member(t, a, 'deleted', ['read']);
    const s1 = await open(removed.key);
    const s2 = await open(deleted.key);
    // Downgraded to read: still open, still served.
    await call(t.app, 'POST', `/api/tenant/${a.tenantId}/user`, GLOBAL, { userId: removed.userId, permissions: ['read'] });
    await call(t.app, 'POST', `/api/${a.tenantId}/project/${a.projectId}/events`, a.admin, events(2));
    expect(await s1.until(/event: version[^]*event: version/)).toBe(true);
    const removedAt = Date.now();
    expect((await call(t.app, 'DELETE', `/api/tenant/${a.tenantId}/user/${removed.userId}`, GLOBAL)).status).toBe(204);
    const r1 = await s1.rest();
    expect(errorOf(r1.text).error).toBe('forbidden');
    expect(r1.endedAt - removedAt).toBeLessThan(250);
    const deletedAt = Date.now();
    expect((await call(t.app, 'DELETE', `/api/user/${deleted.userId}`, GLOBAL)).status).toBe(204);
    const r2 = await s2.rest();
    expect(errorOf(r2.text).error).toBe('invalid_token');
    expect(r2.endedAt - deletedAt).toBeLessThan(250);
  });

  it('expiry ends the stream when the key expires', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const m = await member(t, a, 'expiring', ['read'], { expiresAt });
    const s = await open(m.key);
    const { text, endedAt } = await s.rest();
    expect(errorOf(text).error).toBe('token_expired');
    expect(endedAt).toBeGreaterThanOrEqual(Date.parse(expiresAt));
    // At its expiry: not at the next once-a-second poll.
    expect(endedAt).toBeLessThan(Date.parse(expiresAt) + 250);
  });
});

describe('pcg serve --demo key', () => {
  it('is made once, kept in a 0600 file and reused across restarts; a revoked one is replaced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-demo-'));
    try {
      const one = appOver(dir, GLOBAL);
      const first = ensureDemo(one.context);
      expect(first.created).toBe(true);
      expect(first.keyFile).toBe(demoKeyFile(dir));
      expect(statSync(first.keyFile).mode & 0o777).toBe(0o600);
      expect(readFileSync(first.keyFile, 'utf8').trim()).toBe(first.key);
      expect(ensureDemo(one.context)).toMatchObject({ key: first.key, created: false });
      // The embedded default's own cluster is the demo tenant's to subscribe, with no setup (and nobody else's).
      const granted = await call(one.app, 'GET', `/api/${first.tenantId}/kafka-cluster`, first.key);
      expect(granted.body.items.map((c: { name: string; brokers: string[] }) => [c.name, c.brokers])).toEqual([['local', ['127.0.0.1:9092']]]);
      expect(one.context.catalog.clusters.get('local')!.tenants).toEqual([first.tenantId]);
      await one.app.close();

      const two = appOver(dir, GLOBAL);
      const again = ensureDemo(two.context);
      expect(again).toMatchObject({ tenantId: first.tenantId, projectId: first.projectId, key: first.key, created: false });
      const keys = (await call(two.app, 'GET', `/api/tenant/${first.tenantId}/apikey`, GLOBAL)).body.items;
      expect(keys.filter((k: { revokedAt: string | null }) => k.revokedAt === null)).toHaveLength(1);
      expect((await call(two.app, 'GET', `/api/${first.tenantId}/project/${first.projectId}`, again.key)).status).toBe(200);

      // Revoked (or lost): a new key replaces it in the file; keys older versions made at each start are revoked.
      const legacy = two.context.catalog.keys.createTenantKey({ tenantId: first.tenantId, userId: first.userId, name: 'demo 2024-01-01T00:00:00.000Z', permissions: ['read'] });
      await call(two.app, 'DELETE', `/api/tenant/${first.tenantId}/apikey/${keys[0].id}`, GLOBAL);
      const replaced = ensureDemo(two.context);
      expect(replaced.created).toBe(true);
      expect(replaced.key).not.toBe(first.key);
      expect(readFileSync(replaced.keyFile, 'utf8').trim()).toBe(replaced.key);
      expect(statSync(replaced.keyFile).mode & 0o777).toBe(0o600);
      expectError(await call(two.app, 'GET', `/api/${first.tenantId}/project`, legacy.key), 401, 'invalid_token');
      unlinkSync(replaced.keyFile);
      const fresh = ensureDemo(two.context);
      expect(fresh.created).toBe(true);
      expectError(await call(two.app, 'GET', `/api/${first.tenantId}/project`, replaced.key), 401, 'invalid_token');
      expect((await call(two.app, 'GET', `/api/${first.tenantId}/project`, fresh.key)).status).toBe(200);
      await two.app.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
