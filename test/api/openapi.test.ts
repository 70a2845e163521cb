import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// ajv comes with fastify; the test uses it only to hold answers to the published schemas.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { call, events, GLOBAL, makeTenant, testApp, type TestApp, type World } from './helpers.js';


describe('OpenAPI document', () => {
  let t: TestApp;
  let spec: any;
  let a: World;
  beforeAll(async () => {
    t = testApp();
    spec = (await call(t.app, 'GET', '/openapi.json')).body;
    a = await makeTenant(t.app, 'o');
    await call(t.app, 'POST', `/api/${a.tenantId}/project/${a.projectId}/events`, a.admin, events(5));
  });
  afterAll(() => t.close());

  it('is OpenAPI 3.1 and describes every route with its path parameters', () => {
    expect(spec.openapi).toBe('3.1.0');
    const ids = new Set<string>();
    for (const r of t.routes) {
      const path = r.url.replace(/:(\w+)/g, '{$1}');
      const op = spec.paths[path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${path}`).toBeDefined();
      expect(ids.has(op.operationId)).toBe(false);
      ids.add(op.operationId);
      const declared = op.parameters.filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name).sort();
      expect(declared).toEqual([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort());
      expect(op.responses.default.content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
      expect(op.security).toEqual(r.access === 'public' ? [] : [{ bearer: [] }]);
    }
    expect(spec.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
  });

  it('has every $ref resolvable and every schema compilable', () => {
    const text = JSON.stringify(spec);
    for (const m of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) expect(spec.components.schemas[m[1]!], m[1]).toBeDefined();
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'spec', components: spec.components });
    for (const [path, ops] of Object.entries<any>(spec.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const r of Object.values<any>(op.responses)) {
          const schema = r.content?.['application/json']?.schema;
          if (schema) expect(() => ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"spec#/components'))), `${method} ${path}`).not.toThrow();
        }
      }
    }
  });

  it('answers conform to their published schemas', async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'spec', components: spec.components });
    const check = async (method: 'GET' | 'POST', path: string, url: string, key?: string, body?: unknown) => {
      const r = await call(t.app, method, url, key, body);
      const responses = spec.paths[path][method.toLowerCase()].responses;
      const schema = (responses[String(r.status)] ?? responses.default).content['application/json'].schema;
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"spec#/components')));
      expect(validate(r.body), `${method} ${url}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const p = `/api/${a.tenantId}/project/${a.projectId}`;
    await check('GET', '/api/Action/ping', '/api/Action/ping');
    await check('GET', '/api/tenant', '/api/tenant', GLOBAL);
    await check('GET', '/api/tenant/{tenantId}', `/api/tenant/${a.tenantId}`, GLOBAL);
    await check('GET', '/api/tenant/{tenantId}/apikey', `/api/tenant/${a.tenantId}/apikey`, GLOBAL);
    await check('GET', '/api/tenant/{tenantId}/user', `/api/tenant/${a.tenantId}/user`, GLOBAL);
    await check('GET', '/api/user', '/api/user', GLOBAL);
    await check('GET', '/api/{tenantId}/project', `/api/${a.tenantId}/project`, a.reader);
    await check('GET', '/api/{tenantId}/project/{projectId}', p, a.reader);
    await check('GET', '/api/{tenantId}/project/{projectId}/graph', `${p}/graph`, a.reader);
    await check('GET', '/api/{tenantId}/project/{projectId}/graph/versions', `${p}/graph/versions`, a.reader);
    await check('POST', '/api/{tenantId}/project/{projectId}/events', `${p}/events`, a.admin, events(6));
    await check('POST', '/api/{tenantId}/project/{projectId}/investigation', `${p}/investigation`, a.admin, { name: 'i', scope: { activities: ['b'] } });
    await check('GET', '/api/{tenantId}/project/{projectId}/investigation', `${p}/investigation`, a.reader);
    await check('GET', '/api/{tenantId}/project', `/api/${a.tenantId}/project`, undefined);
    await check('GET', '/api/{tenantId}/project/{projectId}', `/api/${a.tenantId}/project/${crypto.randomUUID()}`, a.reader);
  });

  it('renders /docs as one self-contained page, its script from /docs.js', async () => {
    const r = await call(t.app, 'GET', '/docs');
    expect(r.status).toBe(200);
    expect(String(r.headers['content-type'])).toContain('text/html');
    expect(r.text).toContain('<script src="docs.js"></script>');
    expect(r.text).not.toMatch(/(src|href)="https?:/);
    const js = await call(t.app, 'GET', '/docs.js');
    expect(js.status).toBe(200);
    expect(String(js.headers['content-type'])).toContain('text/javascript');
    expect(js.text).toContain("fetch('openapi.json')");
  });
});
