import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, events, GLOBAL, makeTenant, testApp, type TestApp, type World } from './helpers.js';

/**
 * Issue 32, L3: HEAD is answered on every GET route, with the status and
 * headers GET would have and no body; the graph stream's HEAD answers its
 * headers and ends (it never answered before).
 */
describe('HEAD on every GET route', () => {
  let t: TestApp;
  let w: World;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = testApp();
    w = await makeTenant(t.app, 'head');
    const base = `/api/${w.tenantId}/project/${w.projectId}`;
    await call(t.app, 'POST', `${base}/events`, w.admin, events(3));
    ids.investigationId = (await call(t.app, 'POST', `${base}/investigation`, w.admin, { name: 'i' })).body.id;
    ids.notebookId = (await call(t.app, 'POST', `${base}/investigation/${ids.investigationId}/notebook`, w.admin, { name: 'n' })).body.id;
    ids.blockId = (await call(t.app, 'POST', `${base}/investigation/${ids.investigationId}/notebook/${ids.notebookId}/block`, w.admin, { spec: { type: 'kpi' } })).body.id;
    ids.dashboardId = (await call(t.app, 'POST', `${base}/dashboard`, w.admin, { name: 'd', blockIds: [ids.blockId] })).body.id;
    ids.datasetId = (await call(t.app, 'POST', `${base}/dataset?format=ndjson`, w.admin, `${JSON.stringify(events(1)[0])}\n`, { 'content-type': 'application/octet-stream' })).body.id;
    ids.id = t.context.catalog.keys.globalKeys()[0]!.id;
    Object.assign(ids, { tenantId: w.tenantId, projectId: w.projectId, keyId: w.adminKeyId, userId: w.adminUserId, cluster: 'local', sourceId: crypto.randomUUID(), file: 'none.js' });
  });
  afterAll(() => t.close());

  const keyFor = (access: unknown) => (access === 'public' ? undefined : access === 'global' ? GLOBAL : w.admin);

  it('answers HEAD with GET\'s status and headers and no body, on each GET route', async () => {
    const gets = t.routes.filter((r) => r.method === 'GET' && !r.url.endsWith('/graph/stream'));
    expect(gets.length).toBeGreaterThan(30);
    const pages = ['/', '/docs', '/docs.js', '/openapi.json', '/assets/none.js'].map((url) => ({ url, access: 'public' as const }));
    for (const r of [...gets, ...pages]) {
      const url = r.url.replace(/:([A-Za-z]+)/g, (_m, name: string) => ids[name] ?? `missing-${name}`);
      expect(url, r.url).not.toMatch(/missing-/);
      const key = keyFor(r.access);
      const get = await call(t.app, 'GET', url, key);
      const head = await call(t.app, 'HEAD', url, key);
      expect(head.status, `HEAD ${r.url}: ${get.text.slice(0, 100)}`).toBe(get.status);
      expect(head.text, r.url).toBe('');
      expect(head.headers['content-type'], r.url).toBe(get.headers['content-type']);
      expect(head.headers['x-request-id'], r.url).toBeDefined();
    }
  });

  it("answers HEAD of the graph stream with the stream's headers, and ends", async () => {
    const url = `/api/${w.tenantId}/project/${w.projectId}/graph/stream`;
    const head = await call(t.app, 'HEAD', url, w.reader);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(head.headers['cache-control']).toBe('no-cache');
    expect(head.text).toBe('');
    // Its checks still hold: a key is required, the project must exist.
    expect((await call(t.app, 'HEAD', url)).status).toBe(401);
    expect((await call(t.app, 'HEAD', `/api/${w.tenantId}/project/${crypto.randomUUID()}/graph/stream`, w.reader)).status).toBe(404);
    // On a real socket too: the answer ends, the connection stays usable.
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const real = await fetch(`${base}${url}`, { method: 'HEAD', headers: { authorization: `Bearer ${w.reader}` } });
    expect(real.status).toBe(200);
    expect(await real.text()).toBe('');
  });
});
