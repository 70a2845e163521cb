import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../api/route.js';
import { call, events, GLOBAL, makeTenant, openCluster, testApp, type TestApp, type World } from './helpers.js';

/** Every id a tenant route can carry, for one tenant's data. */
interface Ids extends World {
  investigationId: string;
  notebookId: string;
  blockId: string;
  datasetId: string;
  dashboardId: string;
  keyId: string;
  sourceId: string;
}

async function populate(t: TestApp, w: World): Promise<Ids> {
  const base = `/api/${w.tenantId}/project/${w.projectId}`;
  await call(t.app, 'POST', `${base}/events`, w.admin, events(6));
  const ds = await call(t.app, 'POST', `${base}/dataset?format=csv&caseColumn=c&activityColumn=a&timestampColumn=t`, w.admin, 'c,a,t\n1,x,2024-01-01T00:00:00Z\n', {
    'content-type': 'application/octet-stream',
  });
  const inv = await call(t.app, 'POST', `${base}/investigation`, w.admin, { name: 'i' });
  const nb = await call(t.app, 'POST', `${base}/investigation/${inv.body.id}/notebook`, w.admin, { name: 'n' });
  const block = await call(t.app, 'POST', `${base}/investigation/${inv.body.id}/notebook/${nb.body.id}/block`, w.admin, { spec: { type: 'kpi' } });
  const dash = await call(t.app, 'POST', `${base}/dashboard`, w.admin, { name: 'd', blockIds: [block.body.id] });
  const key = await call(t.app, 'POST', `/api/${w.tenantId}/apikey`, w.admin, { userId: w.readerUserId, name: 'spare' });
  const source = await call(t.app, 'POST', `${base}/source`, w.admin, { cluster: 'local', topic: 'events', sasl: { mechanism: 'plain', username: 'u', password: 'secret-of-' + w.tenantId } });
  for (const r of [ds, inv, nb, block, dash, key, source]) expect(r.status, r.text).toBe(201);
  return { ...w, investigationId: inv.body.id, notebookId: nb.body.id, blockId: block.body.id, datasetId: ds.body.id, dashboardId: dash.body.id, keyId: key.body.id, sourceId: source.body.id };
}

function urlOf(def: RouteDef, ids: Record<string, string>): string {
  return def.url.replace(/:(\w+)/g, (_m, name: string) => ids[name] ?? `missing-${name}`);
}

function bodyOf(def: RouteDef): { body?: unknown; headers?: Record<string, string> } {
  if (def.bodyKind === 'raw') return { body: 'c,a,t\n9,y,2024-01-01T00:00:00Z\n', headers: { 'content-type': 'application/octet-stream' } };
  if (def.bodyKind === 'events') return { body: [{ caseId: 'intruder', activity: 'x', timestamp: '2024-01-01T00:00:00Z' }] };
  if (def.method === 'POST' || def.method === 'PUT') return { body: { name: 'intruder' } };
  return {};
}

describe('tenant isolation matrix', () => {
  let t: TestApp;
  let a: Ids;
  let b: Ids;
  let tenantRoutes: RouteDef[];
  let globalRoutes: RouteDef[];

  /** Everything tenant B has, read with B's own key. */
  const stateOfB = async () => {
    const base = `/api/${b.tenantId}/project/${b.projectId}`;
    const inv = `${base}/investigation/${b.investigationId}`;
    const reads = [
      `/api/${b.tenantId}/project`,
      base,
      `${base}/dataset`,
      `${base}/investigation`,
      `${inv}/notebook`,
      `${inv}/notebook/${b.notebookId}/block`,
      `${base}/dashboard`,
      `${base}/source`,
      `${base}/source/${b.sourceId}/dead-letters`,
      `/api/${b.tenantId}/apikey`,
    ];
    const out = [];
    for (const url of reads) {
      const r = await call(t.app, 'GET', url, b.admin);
      expect(r.status, url).toBe(200);
      out.push(JSON.stringify(r.body, (k, v) => (k === 'lastUsedAt' ? undefined : v)));
    }
    return out;
  };

  beforeAll(async () => {
    // A cluster whose ACLs decide: both tenants subscribe a topic of the same name, each with its own login.
    t = testApp({ kafkaClusters: openCluster(['127.0.0.1:9'], 'tenant') });
    a = await populate(t, await makeTenant(t.app, 'A'));
    b = await populate(t, await makeTenant(t.app, 'B'));
    tenantRoutes = t.routes.filter((r) => typeof r.access === 'object');
    globalRoutes = t.routes.filter((r) => r.access === 'global');
  });
  afterAll(() => t.close());

  it('covers every tenant route', () => {
    expect(tenantRoutes.length).toBeGreaterThanOrEqual(35);
    expect(globalRoutes.length).toBeGreaterThanOrEqual(14);
  });

  it("a key of tenant A gets 403 on every route of tenant B, and B's data is unchanged", async () => {
    const before = await stateOfB();
    for (const def of tenantRoutes) {
      const { body, headers } = bodyOf(def);
      for (const key of [a.admin, a.reader]) {
        const r = await call(t.app, def.method, urlOf(def, b as unknown as Record<string, string>), key, body, headers);
        expect([r.status, r.body?.error], `${def.method} ${def.url}`).toEqual([403, 'forbidden']);
      }
    }
    expect(await stateOfB()).toEqual(before);
  });

  it("A's key with A's tenant id and B's resource ids finds nothing and changes nothing", async () => {
    const before = await stateOfB();
    const mixed = { ...b, tenantId: a.tenantId } as unknown as Record<string, string>;
    for (const def of tenantRoutes) {
      if (!/:(projectId|keyId)/.test(def.url)) continue;
      const { body, headers } = bodyOf(def);
      const r = await call(t.app, def.method, urlOf(def, mixed), a.admin, body, headers);
      expect([400, 404], `${def.method} ${def.url}: ${r.status} ${r.text}`).toContain(r.status);
    }
    expect(await stateOfB()).toEqual(before);
  });

  it('a read-only key never writes: 403 on every write and admin route of its own tenant', async () => {
    const before = JSON.stringify(await call(t.app, 'GET', `/api/${a.tenantId}/project/${a.projectId}`, a.admin).then((r) => r.body.dataVersion));
    let writes = 0;
    for (const def of tenantRoutes) {
      const needed = (def.access as { tenant: string }).tenant;
      if (needed === 'read') {
        expect(['GET', 'POST']).toContain(def.method);
        continue;
      }
      writes += 1;
      const { body, headers } = bodyOf(def);
      const r = await call(t.app, def.method, urlOf(def, a as unknown as Record<string, string>), a.reader, body, headers);
      expect([r.status, r.body?.error], `${def.method} ${def.url}`).toEqual([403, 'forbidden']);
    }
    expect(writes).toBeGreaterThanOrEqual(20);
    expect(JSON.stringify((await call(t.app, 'GET', `/api/${a.tenantId}/project/${a.projectId}`, a.admin)).body.dataVersion)).toBe(before);
  });

  it('read routes answer the reader of the own tenant', async () => {
    for (const def of tenantRoutes.filter((r) => (r.access as { tenant: string }).tenant === 'read' && !r.produces)) {
      const r = await call(t.app, def.method, urlOf(def, a as unknown as Record<string, string>), a.reader);
      expect(r.status, `${def.method} ${def.url}: ${r.text}`).toBe(200);
    }
  });

  it('tenant keys get 401 on every global route; the global key gets 403 on every tenant route', async () => {
    const ids = { ...a, userId: a.readerUserId } as unknown as Record<string, string>;
    for (const def of globalRoutes) {
      const { body } = bodyOf(def);
      const r = await call(t.app, def.method, urlOf(def, ids), a.admin, body);
      expect([r.status, r.body?.error], `${def.method} ${def.url}`).toEqual([401, 'invalid_token']);
    }
    for (const def of tenantRoutes) {
      const { body, headers } = bodyOf(def);
      const r = await call(t.app, def.method, urlOf(def, ids), GLOBAL, body, headers);
      expect([r.status, r.body?.error], `${def.method} ${def.url}`).toEqual([403, 'forbidden']);
    }
  });
});
