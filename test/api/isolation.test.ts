import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../api/route.js';
import { call, events, GLOBAL, makeTenant, testApp, type TestApp, type World } from './helpers.js';

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
      `/api/${b.tenantId}/kafka-cluster`,
    ];
    const out = [];
    for (const url of reads) {
      const r = await call(t.app, 'GET', url, b.admin);
      expect(r.status, url).toBe(200);
      out.push(JSON.stringify(r.body, (k, v) => (k === 'lastUsedAt' ? undefined : v)));
    }
    // What the operator's side holds of B: its grants and the topics it holds.
    out.push(JSON.stringify((await call(t.app, 'GET', '/admin/kafka-clusters', GLOBAL)).body.items.map((c: { name: string; tenants: string[] }) => [c.name, c.tenants.includes(b.tenantId)])));
    for (const cluster of ['local', 'service']) out.push(JSON.stringify((await call(t.app, 'GET', `/admin/kafka-clusters/${cluster}/topics`, GLOBAL)).body.items.filter((h: { tenantId: string }) => h.tenantId === b.tenantId)));
    return out;
  };

  beforeAll(async () => {
    // `local`: a cluster whose ACLs decide (both tenants subscribe a topic of the same name, each with its own login);
    // `service`: one pcg reads with its own login, where B holds a topic; `b-only`: granted to B alone.
    const clusters = [
      { name: 'local', brokers: ['127.0.0.1:9'], tenants: '*', credentials: 'tenant' },
      { name: 'service', brokers: ['127.0.0.1:10'], tenants: '*' },
      { name: 'b-only', brokers: ['127.0.0.1:11'] },
    ];
    t = testApp({ kafkaClusters: JSON.stringify(clusters) });
    a = await populate(t, await makeTenant(t.app, 'A'));
    b = await populate(t, await makeTenant(t.app, 'B'));
    expect((await call(t.app, 'PUT', `/admin/kafka-clusters/b-only/tenants/${b.tenantId}`, GLOBAL)).status).toBe(200);
    expect((await call(t.app, 'POST', `/api/${b.tenantId}/project/${b.projectId}/source`, b.admin, { cluster: 'service', topic: 'b-topic' })).status).toBe(201);
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

  it("A's own sources never reach B's topic, group or cluster, whatever A names; B's data is unchanged", async () => {
    const before = await stateOfB();
    const url = `/api/${a.tenantId}/project/${a.projectId}/source`;
    const bGroup = (await call(t.app, 'GET', `/api/${b.tenantId}/project/${b.projectId}/source/${b.sourceId}`, b.admin)).body.groupId;
    const attempts: [object, number][] = [
      [{ cluster: 'service', topic: 'b-topic' }, 409],
      [{ brokers: ['127.0.0.1:10'], topic: 'b-topic' }, 409],
      [{ cluster: 'service', topic: 'b-topic', groupSuffix: b.sourceId }, 409],
      [{ cluster: 'service', topic: 'b-topic', groupId: bGroup }, 400],
      [{ cluster: 'local', topic: 'events', groupId: bGroup, sasl: { mechanism: 'plain', username: 'u', password: 'p' } }, 400],
      [{ cluster: 'b-only', topic: 'anything' }, 400],
      [{ brokers: ['127.0.0.1:11'], topic: 'anything' }, 400],
      [{ brokers: ['127.0.0.1:12'], topic: 'anything' }, 400],
    ];
    for (const [body, status] of attempts) {
      const r = await call(t.app, 'POST', url, a.admin, body);
      expect(r.status, `${JSON.stringify(body)}: ${r.text}`).toBe(status);
    }
    // What A is shown of the clusters: only what A was granted, and none of B's topics.
    const seen = (await call(t.app, 'GET', `/api/${a.tenantId}/kafka-cluster`, a.reader)).body.items;
    expect(seen.map((c: { name: string }) => c.name)).toEqual(['local', 'service']);
    expect(seen.flatMap((c: { topics: string[] }) => c.topics)).toEqual([]);
    // Every source A can make runs in a group of A's own.
    for (const def of t.context.catalog.sources.active().filter((s) => s.tenantId === a.tenantId)) expect(def.groupId.startsWith(`pcg.${a.tenantId}.`)).toBe(true);
    expect(await stateOfB()).toEqual(before);
  });

  it("every MCP tool, called with A's keys on B's project, answers an error and changes nothing of B's", async () => {
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const before = await stateOfB();
    const clients: Client[] = [];
    try {
      for (const key of [a.admin, a.reader]) {
        const client = new Client({ name: 'isolation', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
        clients.push(client);
        const { tools } = await client.listTools();
        expect(tools.length).toBeGreaterThanOrEqual(8);
        for (const tool of tools) {
          const args: Record<string, unknown> = { projectId: b.projectId, decision: 'a', from: 0, block: { type: 'kpi' }, events: [{ caseId: 'intruder', activity: 'x', timestamp: '2024-01-01T00:00:00Z' }] };
          const known = Object.keys((tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {});
          const r = await client.callTool({ name: tool.name, arguments: Object.fromEntries(Object.entries(args).filter(([k]) => known.includes(k))) });
          const text = (r.content as { text: string }[])[0]?.text ?? '';
          if (tool.name === 'list_projects') {
            // Its own tenant's projects only.
            expect(JSON.stringify(r.structuredContent)).not.toContain(b.projectId);
            continue;
          }
          expect([r.isError, text.split(':')[0]], `${tool.name}: ${text}`).toEqual([true, expect.stringMatching(/^(not_found|forbidden)$/)]);
          expect(text).not.toContain(b.tenantId);
        }
        await expect(client.readResource({ uri: `pcg://${b.tenantId}/${b.projectId}/graph` })).rejects.toThrow(/forbidden/);
      }
    } finally {
      for (const c of clients) await c.close().catch(() => undefined);
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
