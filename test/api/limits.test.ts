import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, configEnv, eventLimitsOf, readConfig, readEventLimits } from '../../api/config.js';
import { hostSources } from '../../api/source-host.js';
import { call, events, expectError, makeTenant, openCluster, testApp, type TestApp, type World } from './helpers.js';

/**
 * The limits of issue 14, each from the configuration (PCG_LIMIT_*), each
 * refusal naming its setting: bytes of ids, activity names and attribute
 * values, attributes per event (dead letters, on every ingest path), events per
 * request (413), projects per tenant and sources per project (422), graph
 * versions kept per project by count and bytes.
 */
describe('limits: configuration', () => {
  it('reads every limit from PCG_LIMIT_* with the documented defaults', () => {
    const defaults = readConfig({}, { dataDir: '/tmp/x' });
    expect({
      id: defaults.limitIdBytes,
      activity: defaults.limitActivityBytes,
      value: defaults.limitAttributeValueBytes,
      attributes: defaults.limitAttributesPerEvent,
      events: defaults.limitEventsPerRequest,
      projects: defaults.limitProjectsPerTenant,
      sources: defaults.limitSourcesPerProject,
      versions: defaults.limitGraphVersions,
      versionBytes: defaults.limitGraphVersionsBytes,
      objects: defaults.limitObjectsPerEvent,
      objectTypes: defaults.limitObjectTypesPerProject,
      ocelRelations: defaults.limitOcelRelations,
      blocks: defaults.limitBlocksPerNotebook,
    }).toEqual({
      id: 512,
      activity: 1024,
      value: 65536,
      attributes: 1000,
      events: 100_000,
      projects: 1000,
      sources: 20,
      versions: 500,
      versionBytes: 256 * 1024 * 1024,
      objects: 1000,
      objectTypes: 1000,
      ocelRelations: 20_000_000,
      blocks: 100,
    });
    const names = Object.entries(configEnv).filter(([k]) => k.startsWith('limit'));
    expect(names.map(([, v]) => v).sort()).toEqual([
      'PCG_LIMIT_ACTIVITY_BYTES',
      'PCG_LIMIT_ATTRIBUTES_PER_EVENT',
      'PCG_LIMIT_ATTRIBUTE_VALUE_BYTES',
      'PCG_LIMIT_BLOCKS_PER_NOTEBOOK',
      'PCG_LIMIT_EVENTS_PER_REQUEST',
      'PCG_LIMIT_GRAPH_VERSIONS',
      'PCG_LIMIT_GRAPH_VERSIONS_BYTES',
      'PCG_LIMIT_ID_BYTES',
      'PCG_LIMIT_OBJECTS_PER_EVENT',
      'PCG_LIMIT_OBJECT_TYPES_PER_PROJECT',
      'PCG_LIMIT_OCEL_RELATIONS',
      'PCG_LIMIT_PROJECTS_PER_TENANT',
      'PCG_LIMIT_SOURCES_PER_PROJECT',
    ]);
    const env = Object.fromEntries(names.map(([, v], i) => [v, String(2000 + i)]));
    const set = readConfig(env, { dataDir: '/tmp/x' });
    for (const [key, name] of names) expect(set[key as keyof typeof set], name).toBe(Number(env[name]));
    const limits = eventLimitsOf(set);
    expect(Object.isFrozen(limits)).toBe(true);
    expect(limits).toEqual({
      idBytes: set.limitIdBytes,
      activityBytes: set.limitActivityBytes,
      attributeValueBytes: set.limitAttributeValueBytes,
      attributesPerEvent: set.limitAttributesPerEvent,
      objectsPerEvent: set.limitObjectsPerEvent,
      objectTypesPerProject: set.limitObjectTypesPerProject,
    });
    expect(readEventLimits({ PCG_LIMIT_ACTIVITY_BYTES: '64', PCG_LIMIT_OBJECTS_PER_EVENT: '7', PCG_PORT: 'not read here' })).toEqual({
      idBytes: 512,
      activityBytes: 64,
      attributeValueBytes: 65536,
      attributesPerEvent: 1000,
      objectsPerEvent: 7,
      objectTypesPerProject: 1000,
    });
  });

  it('names the variable of a bad value', () => {
    expect(() => readConfig({ PCG_LIMIT_EVENTS_PER_REQUEST: '0' }, { dataDir: '/tmp/x' })).toThrow(/PCG_LIMIT_EVENTS_PER_REQUEST/);
    expect(() => readConfig({ PCG_LIMIT_GRAPH_VERSIONS_BYTES: 'lots' }, { dataDir: '/tmp/x' })).toThrow(ConfigError);
    expect(() => readEventLimits({ PCG_LIMIT_ID_BYTES: '-1' })).toThrow(/PCG_LIMIT_ID_BYTES/);
    // Importers make event ids of up to about 30 bytes: an id limit below 64 would refuse every imported event.
    expect(() => readConfig({ PCG_LIMIT_ID_BYTES: '63' }, { dataDir: '/tmp/x' })).toThrow(/PCG_LIMIT_ID_BYTES/);
  });
});

describe('limits: one event, over HTTP', () => {
  let t: TestApp;
  let w: World;
  let url: string;
  beforeAll(async () => {
    t = testApp({ limitIdBytes: 64, limitActivityBytes: 32, limitAttributeValueBytes: 20, limitAttributesPerEvent: 3 });
    w = await makeTenant(t.app, 'limits');
    url = `/api/${w.tenantId}/project/${w.projectId}/events`;
  });
  afterAll(() => t.close());
  const ok = { caseId: 'c1', activity: 'Create order', timestamp: '2025-01-06T09:00:00Z' };

  const cases: [string, object, RegExp][] = [
    ['a case id', { ...ok, caseId: 'c'.repeat(65) }, /^caseId: limit PCG_LIMIT_ID_BYTES: a case id may have at most 64 bytes \(this one has 65\)$/],
    ['an event id', { ...ok, eventId: 'e'.repeat(65) }, /^eventId: limit PCG_LIMIT_ID_BYTES: an event id may have at most 64 bytes/],
    ['an object id', { ...ok, objects: [{ id: 'o'.repeat(65), type: 'order' }] }, /^objects\.0\.id: limit PCG_LIMIT_ID_BYTES: an object id may have at most 64 bytes/],
    ['an activity name', { ...ok, activity: 'é'.repeat(17) }, /^activity: limit PCG_LIMIT_ACTIVITY_BYTES: an activity name may have at most 32 bytes \(this one has 34\)$/],
    ['an attribute value', { ...ok, attributes: { note: 'n'.repeat(21) } }, /^attributes\.note: limit PCG_LIMIT_ATTRIBUTE_VALUE_BYTES: an attribute value may have at most 20 bytes/],
    ['attributes per event', { ...ok, attributes: { a: 1, b: 2, c: 3, d: 4 } }, /^attributes: limit PCG_LIMIT_ATTRIBUTES_PER_EVENT: an event may have at most 3 attributes \(this one has 4\)$/],
  ];
  for (const [what, event, reason] of cases) {
    it(`a single event over the limit on ${what} is answered as any ingest result, its rejection listed`, async () => {
      const r = await call(t.app, 'POST', url, w.admin, event);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ accepted: 0, duplicates: 0, rejected: 1 });
      expect(r.body.rejections).toHaveLength(1);
      expect(r.body.rejections[0].location).toBe('record 1');
      expect(r.body.rejections[0].reason).toMatch(reason);
    });
  }

  it('the rest of a batch goes on, in JSON and in NDJSON', async () => {
    const batch = [{ ...ok, caseId: 'b1' }, { ...ok, caseId: 'b2', activity: 'x'.repeat(33) }, { ...ok, caseId: 'b3', attributes: { a: 'a'.repeat(20), b: 1, c: true } }];
    const json = await call(t.app, 'POST', url, w.admin, batch);
    expect(json.body).toMatchObject({ accepted: 2, rejected: 1, rejections: [{ location: 'record 2' }] });
    expect(json.body.rejections[0].reason).toMatch(/limit PCG_LIMIT_ACTIVITY_BYTES/);
    const ndjson = batch.map((e) => JSON.stringify({ ...e, caseId: `n${e.caseId}` })).join('\n');
    const nd = await call(t.app, 'POST', url, w.admin, ndjson, { 'content-type': 'application/x-ndjson' });
    expect(nd.body).toMatchObject({ accepted: 2, rejected: 1, rejections: [{ location: 'line 2' }] });
    expect(nd.body.rejections[0].reason).toMatch(/limit PCG_LIMIT_ACTIVITY_BYTES/);
    // The refused events are dead letters of the project, and the document does not hold them.
    const letters = t.context.states.store(w.projectId).deadLetters({ limit: 1000 });
    expect(letters.filter((l) => /limit PCG_LIMIT_ACTIVITY_BYTES/.test(l.reason)).length).toBeGreaterThanOrEqual(3);
    const graph = await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph`, w.reader);
    expect(graph.status).toBe(200);
    expect(graph.text).not.toContain('x'.repeat(33));
  });

  it('holds a dataset upload to the same limits', async () => {
    const csv = `case,activity,time\n1,a,2024-01-01T00:00:00Z\n1,${'y'.repeat(40)},2024-01-01T01:00:00Z\n2,a,2024-01-02T00:00:00Z\n`;
    const r = await call(t.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/dataset?name=long.csv&format=csv&caseColumn=case&activityColumn=activity&timestampColumn=time`, w.admin, csv, {
      'content-type': 'application/octet-stream',
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.summary).toMatchObject({ accepted: 2, rejected: 1 });
    const letters = t.context.states.store(w.projectId).deadLetters({ limit: 1000 });
    expect(letters.some((l) => l.reason.startsWith('activity: limit PCG_LIMIT_ACTIVITY_BYTES'))).toBe(true);
  });

  it('holds stream partitions (Kafka messages) to the limits of the configuration', async () => {
    const host = hostSources({ dataDir: t.dir, limits: eventLimitsOf(t.context.config), pollMs: 60_000 });
    try {
      expect(host.registry.limits).toEqual(eventLimitsOf(t.context.config));
      const r = host.registry.ingestPart(w.projectId, { records: [ok, { ...ok, activity: 'z'.repeat(33) }], locations: ['events/0@1', 'events/0@2'] }, { source: 'kafka', partition: 0, offset: 2, first: 1 });
      expect(r).toMatchObject({ accepted: 1, rejected: 1, rejections: [{ location: 'events/0@2' }] });
      expect(r.rejections[0]!.reason).toMatch(/^activity: limit PCG_LIMIT_ACTIVITY_BYTES/);
    } finally {
      await host.close();
    }
  });
});

describe('limits: counts of resources and requests', () => {
  let t: TestApp;
  let w: World;
  beforeAll(async () => {
    t = testApp({ limitEventsPerRequest: 5, limitProjectsPerTenant: 2, limitSourcesPerProject: 2, kafkaClusters: openCluster() });
    w = await makeTenant(t.app, 'counts');
  });
  afterAll(() => t.close());

  it('events per request: one more is 413 naming the limit, in JSON and NDJSON; the OpenAPI document says so', async () => {
    const url = `/api/${w.tenantId}/project/${w.projectId}/events`;
    const six = events(2).slice(0, 5).concat([{ caseId: 'x', activity: 'a', timestamp: 0 }]);
    expect(six).toHaveLength(6);
    expect((await call(t.app, 'POST', url, w.admin, six.slice(0, 5))).status).toBe(200);
    const over = await call(t.app, 'POST', url, w.admin, six);
    expectError(over, 413, 'payload_too_large');
    expect(over.body.message).toBe('limit PCG_LIMIT_EVENTS_PER_REQUEST: a request may carry at most 5 events (this one has 6)');
    // Lines that are not JSON count too.
    const nd = [...six.slice(0, 5).map((e) => JSON.stringify(e)), 'not json'].join('\n');
    expectError(await call(t.app, 'POST', url, w.admin, nd, { 'content-type': 'application/x-ndjson' }), 413, 'payload_too_large');
    const spec = (await call(t.app, 'GET', '/openapi.json')).body;
    expect(spec.paths['/api/{tenantId}/project/{projectId}/events'].post.requestBody.content['application/json'].schema.maxItems).toBe(5);
  });

  it('projects per tenant: one more is 422 limit_exceeded naming the limit; another tenant has its own count', async () => {
    const url = `/api/${w.tenantId}/project`;
    expect((await call(t.app, 'POST', url, w.admin, { name: 'second' })).status).toBe(201);
    const over = await call(t.app, 'POST', url, w.admin, { name: 'third' });
    expectError(over, 422, 'limit_exceeded');
    expect(over.body.message).toBe('limit PCG_LIMIT_PROJECTS_PER_TENANT: a tenant may have at most 2 projects');
    const other = await makeTenant(t.app, 'counts-other');
    expect((await call(t.app, 'POST', `/api/${other.tenantId}/project`, other.admin, { name: 'second' })).status).toBe(201);
    // Deleting one makes room again.
    const list = (await call(t.app, 'GET', url, w.admin)).body.items as { id: string; name: string }[];
    const second = list.find((p) => p.name === 'second')!;
    expect((await call(t.app, 'DELETE', `${url}/${second.id}`, w.admin)).status).toBe(204);
    expect((await call(t.app, 'POST', url, w.admin, { name: 'third' })).status).toBe(201);
  });

  it('sources per project: one more is 422 limit_exceeded naming the limit', async () => {
    const url = `/api/${w.tenantId}/project/${w.projectId}/source`;
    for (let i = 0; i < 2; i++) expect((await call(t.app, 'POST', url, w.admin, { cluster: 'local', topic: `t${i}` })).status).toBe(201);
    const over = await call(t.app, 'POST', url, w.admin, { cluster: 'local', topic: 'one-too-many' });
    expectError(over, 422, 'limit_exceeded');
    expect(over.body.message).toMatch(/^limit PCG_LIMIT_SOURCES_PER_PROJECT: a project may have at most 2 sources/);
  });
});

describe('limits: graph versions kept per project', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    for (const a of apps.splice(0)) await a.close();
  });
  const served = async (t: TestApp, w: World, round: number) => {
    const base = `/api/${w.tenantId}/project/${w.projectId}`;
    expect((await call(t.app, 'POST', `${base}/events`, w.admin, events(3, Date.UTC(2024, 0, 1) + round * 86_400_000).map((e: any) => ({ ...e, eventId: `${e.eventId}-${round}` })))).status).toBe(200);
    const g = await call(t.app, 'GET', `${base}/graph`, w.reader);
    expect(g.status).toBe(200);
    return { version: Number(JSON.parse(g.headers.etag as string)), bytes: Buffer.byteLength(g.text) };
  };
  const kept = async (t: TestApp, w: World) => (await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph/versions`, w.reader)).body.items.map((v: { dataVersion: number }) => v.dataVersion);
  const version = (t: TestApp, w: World, v: number) => call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph?version=${v}`, w.reader);

  it('by count (PCG_LIMIT_GRAPH_VERSIONS): the oldest go', async () => {
    const t = testApp({ limitGraphVersions: 2 });
    apps.push(t);
    const w = await makeTenant(t.app, 'versions');
    const versions = [];
    for (let round = 0; round < 3; round++) versions.push((await served(t, w, round)).version);
    expect(await kept(t, w)).toEqual(versions.slice(1));
    expectError(await version(t, w, versions[0]!), 404, 'not_found');
    expect((await version(t, w, versions[2]!)).status).toBe(200);
  });

  it('by bytes (PCG_LIMIT_GRAPH_VERSIONS_BYTES): the oldest go past the budget; a document larger than it is served but not kept', async () => {
    // Measure a document of this log as stored (gzip-compressed) first, then give a budget of about two and a half of them.
    const probe = testApp();
    apps.push(probe);
    const pw = await makeTenant(probe.app, 'probe');
    await served(probe, pw, 0);
    const size = probe.context.catalog.graphVersions.bytes(pw.projectId);
    const budget = Math.floor(size * 2.5);
    const t = testApp({ limitGraphVersionsBytes: budget });
    apps.push(t);
    const w = await makeTenant(t.app, 'bytes');
    const versions = [];
    for (let round = 0; round < 5; round++) versions.push((await served(t, w, round)).version);
    const left = await kept(t, w);
    expect(left.length).toBeGreaterThanOrEqual(1);
    expect(left.length).toBeLessThan(versions.length);
    expect(left).toEqual(versions.slice(versions.length - left.length));
    expect(t.context.catalog.graphVersions.bytes(w.projectId)).toBeLessThanOrEqual(budget);
    expectError(await version(t, w, versions[0]!), 404, 'not_found');

    // A budget smaller than one document: served every time, never kept, ?version= of it is 404.
    const tiny = testApp({ limitGraphVersionsBytes: 1024 });
    apps.push(tiny);
    const tw = await makeTenant(tiny.app, 'tiny');
    const one = await served(tiny, tw, 0);
    expect(size).toBeGreaterThan(1024);
    expect(await kept(tiny, tw)).toEqual([]);
    expectError(await version(tiny, tw, one.version), 404, 'not_found');
    expect((await call(tiny.app, 'GET', `/api/${tw.tenantId}/project/${tw.projectId}/graph`, tw.reader)).status).toBe(200);
  });
});

