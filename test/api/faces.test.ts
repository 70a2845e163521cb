import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Auth, type Principal } from '../../api/auth.js';
import { ApiError } from '../../api/errors.js';
import { LocalBackend } from '../../api/mcp/local.js';
import { RateLimiter } from '../../api/rate-limit.js';
import { CaseReads, Graphs } from '../../engine/projects/index.js';
import { call, events, makeTenant, testApp, type TestApp, type World } from './helpers.js';

/**
 * One use case through both faces (api/service/): the HTTP route and MCP's
 * backend answer the same values and refuse with the same codes. (The faces
 * word a missing project or version in their own words, and MCP addresses
 * projects inside the key's tenant, so another tenant's project is its 404
 * where HTTP's path names a tenant the key has no access to, 403.)
 */
let t: TestApp;
let w: World;
let scoped: string;

beforeAll(async () => {
  t = testApp();
  w = await makeTenant(t.app, 'faces');
  expect((await call(t.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/events`, w.admin, events(30))).status).toBe(200);
  await call(t.app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: 'second' });
  scoped = (await call(t.app, 'POST', `/api/${w.tenantId}/apikey`, w.admin, { userId: w.readerUserId, name: 'scoped', permissions: ['read'], projectIds: [w.projectId] })).body.key;
});
afterAll(() => t.close());

const mcp = (key: string) => {
  const auth = new Auth(t.context.catalog, new RateLimiter(0, 0));
  const principal = (): Principal => auth.authenticate({ headers: { authorization: `Bearer ${key}` } } as never, { tenant: 'read' });
  return new LocalBackend({ ...t.context, graphs: new Graphs(t.context.states, t.context.catalog.graphVersions), cases: new CaseReads(t.context.states) }, principal);
};
const project = (suffix = '', id = w.projectId) => `/api/${w.tenantId}/project/${id}${suffix}`;
const codeOf = (p: Promise<unknown>) => p.then(() => 'answered', (e: unknown) => (e instanceof ApiError ? e.code : String(e)));

const cases: { name: string; http: (key: string) => Promise<unknown>; mcp: (key: string) => Promise<unknown> }[] = [
  { name: 'the projects a key sees', http: async (key) => (await call(t.app, 'GET', `/api/${w.tenantId}/project`, key)).body.items, mcp: (key) => mcp(key).listProjects() },
  // The HTTP route builds and keeps the version first; MCP is then served the kept bytes.
  { name: 'the newest document', http: async (key) => (await call(t.app, 'GET', project('/graph'), key)).text, mcp: async (key) => (await mcp(key).graph(w.projectId)).json },
  { name: 'the kept graph versions', http: async (key) => (await call(t.app, 'GET', project('/graph/versions'), key)).body.items, mcp: (key) => mcp(key).versions(w.projectId) },
  { name: 'the live state', http: async (key) => (await call(t.app, 'GET', project('/live'), key)).body, mcp: (key) => mcp(key).live(w.projectId) },
];

describe('one use case, two faces', () => {
  for (const c of cases) {
    it(`${c.name}: the same answer over HTTP and MCP, for a tenant key and a scoped key`, async () => {
      for (const key of [w.reader, scoped]) {
        const http = await c.http(key);
        expect(await c.mcp(key)).toEqual(http);
      }
    });
  }

  it('the same refusals: a scoped key outside its project, a missing project, a key without write', async () => {
    const second = (await call(t.app, 'GET', `/api/${w.tenantId}/project`, w.admin)).body.items.find((p: { name: string }) => p.name === 'second').id as string;
    expect((await call(t.app, 'GET', project('/graph', second), scoped)).body.error).toBe('forbidden');
    expect(await codeOf(mcp(scoped).graph(second))).toBe('forbidden');
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await call(t.app, 'GET', project('/live', missing), w.reader)).body.error).toBe('not_found');
    expect(await codeOf(mcp(w.reader).live(missing))).toBe('not_found');
    expect((await call(t.app, 'GET', `${project('/graph')}?version=99999`, w.reader)).body.error).toBe('not_found');
    expect(await codeOf(mcp(w.reader).graph(w.projectId, 99_999))).toBe('not_found');
    expect((await call(t.app, 'POST', project('/events'), w.reader, events(1))).body.error).toBe('forbidden');
    expect(await codeOf(mcp(w.reader).ingest(w.projectId, events(1)))).toBe('forbidden');
    // GUIDs in any letter case name the same project on both faces.
    expect(await codeOf(mcp(w.reader).versions(w.projectId.toUpperCase()))).toBe('answered');
    expect((await call(t.app, 'GET', project('/graph/versions', w.projectId.toUpperCase()), w.reader)).status).toBe(200);
  });
});
