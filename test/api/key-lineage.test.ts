import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, expectError, GLOBAL, makeTenant, testApp, type TestApp, type World } from './helpers.js';

/**
 * Key lineage (issue 30, M3/M4): a key minted by a key never outlives it and never holds more than it; every key
 * records the key and user that issued it; revoking a tenant key, or removing the user who held it, revokes what
 * it issued, down the line. Global keys are rotated (the next made with the current one), so revoking one keeps
 * what it issued unless asked (withIssued=true), and lists it.
 */
describe('key lineage', () => {
  let t: TestApp;
  let a: World;
  const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

  /** A member of tenant A with an admin membership and an admin key issued by the global key. */
  async function admin(label: string, key: Record<string, unknown> = {}) {
    const user = await call(t.app, 'POST', '/api/user', GLOBAL, { email: `${label}-${crypto.randomUUID()}@example.com` });
    await call(t.app, 'POST', `/api/tenant/${a.tenantId}/user`, GLOBAL, { userId: user.body.id, permissions: ['read', 'write', 'admin'] });
    const k = await call(t.app, 'POST', `/api/tenant/${a.tenantId}/apikey`, GLOBAL, { userId: user.body.id, name: label, ...key });
    expect(k.status, k.text).toBe(201);
    return { userId: user.body.id as string, key: k.body.key as string, id: k.body.id as string, body: k.body };
  }
  const issue = (by: string, userId: string, extra: Record<string, unknown> = {}) => call(t.app, 'POST', `/api/${a.tenantId}/apikey`, by, { userId, name: 'minted', ...extra });
  const works = async (key: string) => (await call(t.app, 'GET', `/api/${a.tenantId}/project`, key)).status;

  beforeAll(async () => {
    t = testApp();
    a = await makeTenant(t.app, 'lineage');
  });
  afterAll(() => t.close());
  afterEach(() => void vi.useRealTimers());

  it('an expiring admin key mints keys that expire with it at the latest, and never a later one', async () => {
    const expiresAt = inMinutes(60);
    const e = await admin('expiring', { expiresAt });
    const v = await admin('other');
    // No expiry asked: it gets the issuer's.
    const child = await issue(e.key, v.userId);
    expect(child.status, child.text).toBe(201);
    expect(child.body.expiresAt).toBe(expiresAt);
    expect(child.body.issuedByKeyId).toBe(e.id);
    expect(child.body.issuedByUserId).toBe(e.userId);
    // Earlier is fine; later is refused, naming the field and the issuer's expiry.
    const earlier = inMinutes(30);
    expect((await issue(e.key, v.userId, { expiresAt: earlier })).body.expiresAt).toBe(earlier);
    const later = await issue(e.key, v.userId, { expiresAt: inMinutes(120) });
    expectError(later, 400, 'validation_failed');
    expect(later.body.message).toContain('body.expiresAt: a key cannot outlive the key that issues it');
    expect(later.body.message).toContain(expiresAt);
    // When the issuer expires, so has the child.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(expiresAt) + 1);
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project`, e.key), 401, 'token_expired');
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project`, child.body.key), 401, 'token_expired');
  });

  it('an expiring global key mints neither a global key nor a tenant key that outlives it', async () => {
    const expiresAt = inMinutes(60);
    const g = await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'expiring', expiresAt });
    expect(g.body.issuedByKeyId).not.toBeNull();
    const minted = await call(t.app, 'POST', '/admin/global-api-keys', g.body.key, { name: 'minted' });
    expect(minted.body).toMatchObject({ expiresAt, issuedByKeyId: g.body.id });
    expectError(await call(t.app, 'POST', '/admin/global-api-keys', g.body.key, { name: 'later', expiresAt: inMinutes(90) }), 400, 'validation_failed');
    const tenantKey = await call(t.app, 'POST', `/api/tenant/${a.tenantId}/apikey`, g.body.key, { userId: a.readerUserId, name: 'from expiring global' });
    expect(tenantKey.body).toMatchObject({ expiresAt, issuedByKeyId: g.body.id, issuedByUserId: null });
    expectError(await call(t.app, 'POST', `/api/tenant/${a.tenantId}/apikey`, g.body.key, { userId: a.readerUserId, name: 'x', expiresAt: inMinutes(90) }), 400, 'validation_failed');
  });

  it('a minted key holds at most its issuer: permissions and projects', async () => {
    const scoped = await admin('scoped', { permissions: ['read', 'write', 'admin'], projectIds: [a.projectId] });
    const other = (await call(t.app, 'POST', `/api/${a.tenantId}/project`, a.admin, { name: 'other project' })).body.id;
    expectError(await issue(scoped.key, a.adminUserId, { projectIds: [other] }), 403, 'forbidden');
    // Scoped to the issuer's projects when it names none.
    expect((await issue(scoped.key, a.readerUserId)).body.projectIds).toEqual([a.projectId]);
    const writer = (await call(t.app, 'POST', `/api/tenant/${a.tenantId}/apikey`, GLOBAL, { userId: a.adminUserId, name: 'writer', permissions: ['read', 'write'] })).body.key;
    // Issuing takes admin: a write key issues nothing.
    expectError(await issue(writer, a.readerUserId), 403, 'forbidden');
  });

  it('revoking a tenant key revokes every key it issued, down the line, and nothing else', async () => {
    const u = await admin('root');
    const v = await admin('second');
    const child = await issue(u.key, v.userId, { permissions: ['read', 'write', 'admin'] });
    const grandchild = await issue(child.body.key, a.readerUserId);
    const sibling = await issue(v.key, a.readerUserId);
    for (const k of [child.body.key, grandchild.body.key, sibling.body.key]) expect(await works(k)).toBe(200);
    expect((await call(t.app, 'DELETE', `/api/${a.tenantId}/apikey/${u.id}`, a.admin)).status).toBe(204);
    for (const k of [u.key, child.body.key, grandchild.body.key]) expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project`, k), 401, 'invalid_token');
    expect(await works(sibling.body.key)).toBe(200);
    expect(await works(v.key)).toBe(200);
    const listed = (await call(t.app, 'GET', `/api/${a.tenantId}/apikey`, a.admin)).body.items as { id: string; revokedAt: string | null; issuedByKeyId: string | null }[];
    expect(listed.find((k) => k.id === grandchild.body.id)).toMatchObject({ issuedByKeyId: child.body.id });
    expect(listed.find((k) => k.id === grandchild.body.id)!.revokedAt).not.toBeNull();
  });

  it('an admin removed from the tenant takes the keys they minted in another name along (M4), and only those', async () => {
    const u = await admin('leaving');
    const v = await admin('staying');
    const minted = await issue(u.key, v.userId);
    expect(minted.body).toMatchObject({ userId: v.userId, issuedByKeyId: u.id, issuedByUserId: u.userId });
    const ownOfV = await issue(v.key, v.userId);
    expect((await call(t.app, 'DELETE', `/api/tenant/${a.tenantId}/user/${u.userId}`, GLOBAL)).status).toBe(204);
    // U's own key has no rights left; what U issued is revoked; V's own keys are untouched.
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project`, u.key), 403, 'forbidden');
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project`, minted.body.key), 401, 'invalid_token');
    expect(await works(v.key)).toBe(200);
    expect(await works(ownOfV.body.key)).toBe(200);
  });

  it('a deleted user takes the keys they issued along, in every tenant, and what those issued', async () => {
    const u = await admin('deleted');
    const v = await admin('heir');
    const minted = await issue(u.key, v.userId, { permissions: ['read', 'write', 'admin'] });
    const below = await issue(minted.body.key, a.readerUserId);
    expect((await call(t.app, 'DELETE', `/api/user/${u.userId}`, GLOBAL)).status).toBe(204);
    for (const k of [u.key, minted.body.key, below.body.key]) expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project`, k), 401, 'invalid_token');
    expect(await works(v.key)).toBe(200);
  });

  it('a revoked global key keeps what it issued (rotation), lists it, and takes it along when asked', async () => {
    const old = await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'old' });
    const next = await call(t.app, 'POST', '/admin/global-api-keys', old.body.key, { name: 'next' });
    const tenantKey = await call(t.app, 'POST', `/api/tenant/${a.tenantId}/apikey`, old.body.key, { userId: a.readerUserId, name: 'from old' });
    const issued = await call(t.app, 'GET', `/admin/global-api-keys/${old.body.id}/issued`, GLOBAL);
    expect(issued.status).toBe(200);
    expect(issued.body.globalKeys.map((k: { id: string }) => k.id)).toEqual([next.body.id]);
    expect(issued.body.tenantKeys.map((k: { id: string }) => k.id)).toEqual([tenantKey.body.id]);
    // Rotation: the old key goes, the next one and the tenant key it issued stay.
    expect((await call(t.app, 'DELETE', `/admin/global-api-keys/${old.body.id}`, next.body.key)).status).toBe(204);
    expect((await call(t.app, 'GET', '/api/tenant', next.body.key)).status).toBe(200);
    expect(await works(tenantKey.body.key)).toBe(200);
    // A key exposed: revoked with everything it issued.
    const exposed = await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'exposed' });
    const below = await call(t.app, 'POST', '/admin/global-api-keys', exposed.body.key, { name: 'below' });
    const tenantBelow = await call(t.app, 'POST', `/api/tenant/${a.tenantId}/apikey`, below.body.key, { userId: a.readerUserId, name: 'two levels down' });
    expect((await call(t.app, 'DELETE', `/admin/global-api-keys/${exposed.body.id}?withIssued=true`, GLOBAL)).status).toBe(204);
    expectError(await call(t.app, 'GET', '/api/tenant', below.body.key), 401, 'invalid_token');
    expectError(await call(t.app, 'GET', `/api/${a.tenantId}/project`, tenantBelow.body.key), 401, 'invalid_token');
    expect((await call(t.app, 'GET', '/api/tenant', GLOBAL)).status).toBe(200);
  });

  it('never revokes the last usable global key by taking it along', async () => {
    const other = testApp();
    try {
      const spare = await call(other.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'spare' });
      const configured = (await call(other.app, 'GET', '/admin/global-api-keys', GLOBAL)).body.items.find((k: { origin: string }) => k.origin === 'config');
      // The spare was issued by the configured key: taking it along would leave no global key.
      expectError(await call(other.app, 'DELETE', `/admin/global-api-keys/${configured.id}?withIssued=true`, GLOBAL), 409, 'conflict');
      expect((await call(other.app, 'GET', '/api/tenant', spare.body.key)).status).toBe(200);
      expect((await call(other.app, 'DELETE', `/admin/global-api-keys/${configured.id}`, GLOBAL)).status).toBe(204);
      expect((await call(other.app, 'GET', '/api/tenant', spare.body.key)).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
