import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, GLOBAL, grantCluster, makeTenant, testApp, type TestApp, type World } from './helpers.js';

/** Two clusters: `local` (pcg's own login: topics are claimed per tenant) and `acl` (each source brings its tenant's login). */
const CLUSTERS = JSON.stringify([
  { name: 'local', brokers: ['127.0.0.1:9092'] },
  { name: 'acl', brokers: ['kafka-1.example:9093', 'kafka-2.example:9093'], credentials: 'tenant', tls: true },
]);

/** The source routes alone (no broker: the app's source thread is off, so nothing connects). */
describe('source routes', () => {
  let t: TestApp;
  let w: World;
  let base: string;

  beforeAll(async () => {
    t = testApp({ kafkaClusters: CLUSTERS });
    w = await makeTenant(t.app, 'sources');
    await grantCluster(t.app, w.tenantId, 'local');
    await grantCluster(t.app, w.tenantId, 'acl');
    base = `/api/${w.tenantId}/project/${w.projectId}/source`;
  });
  afterAll(() => t.close());

  it('the minimal body subscribes on a granted cluster from the earliest offset, in a group pcg derives', async () => {
    const r = await call(t.app, 'POST', base, w.admin, { cluster: 'local', topic: 'events', format: 'pcg' });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toEqual({
      id: r.body.id,
      tenantId: w.tenantId,
      projectId: w.projectId,
      name: 'events',
      cluster: 'local',
      brokers: ['127.0.0.1:9092'],
      topic: 'events',
      groupId: `pcg.${w.tenantId}.${r.body.id}`,
      groupSuffix: null,
      format: 'pcg',
      mapping: {},
      start: 'earliest',
      sasl: null,
      tls: null,
      changelog: false,
      paused: false,
      createdAt: r.body.createdAt,
      updatedAt: r.body.updatedAt,
    });
    const got = await call(t.app, 'GET', `${base}/${r.body.id}`, w.reader);
    expect(got.body.status).toEqual({ state: 'waiting', workers: [], partitions: [], eventsApplied: 0, deadLetters: 0, lastError: null, changelog: null });
    // Brokers of a granted cluster name it; a suffix is added to the group, never the whole name.
    const byBrokers = await call(t.app, 'POST', base, w.admin, { brokers: ['127.0.0.1:9092'], topic: 'events', groupSuffix: 'replay-2' });
    expect(byBrokers.body).toMatchObject({ cluster: 'local', groupId: `pcg.${w.tenantId}.${byBrokers.body.id}.replay-2`, groupSuffix: 'replay-2' });
    const stored = t.context.catalog.sources.active().find((s) => s.id === byBrokers.body.id)!;
    expect(stored).toMatchObject({ cluster: 'local', brokers: ['127.0.0.1:9092'], groupId: `pcg.${w.tenantId}.${byBrokers.body.id}.replay-2` });
  });

  it('answers 400 with the field path for a bad declaration', async () => {
    const cases: [unknown, RegExp][] = [
      [{ topic: 'events' }, /body\.cluster: name a Kafka cluster/],
      [{ brokers: ['no-port'], topic: 'events' }, /body\.brokers\.0: expected host:port/],
      [{ cluster: 'Local!', topic: 'events' }, /body\.cluster: a cluster name/],
      [{ cluster: 'local', topic: 'bad topic!' }, /body\.topic/],
      [{ cluster: 'local', topic: 'e', format: 'json' }, /body\.mapping\.caseId: format json needs mapping\.caseId/],
      [{ cluster: 'local', topic: 'e', start: 'yesterday' }, /body\.start/],
      [{ cluster: 'local', topic: 'e', start: { timestamp: 'soon' } }, /body\.start/],
      [{ cluster: 'acl', topic: 'e', sasl: { mechanism: 'gssapi', username: 'u', password: 'p' } }, /body\.sasl\.mechanism/],
      [{ cluster: 'local', topic: 'e', mapping: { caseId: '/a/~2' } }, /body\.mapping\.caseId/],
      [{ cluster: 'local', topic: 'e', surprise: 1 }, /surprise/],
      [{ cluster: 'local', topic: 'e', groupId: 'orders-consumer' }, /body\.groupId: pcg derives the consumer group/],
      [{ cluster: 'local', topic: 'e', groupSuffix: 'a b' }, /body\.groupSuffix/],
    ];
    for (const [body, message] of cases) {
      const r = await call(t.app, 'POST', base, w.admin, body);
      expectError(r, 400, 'validation_failed');
      expect(r.body.message, JSON.stringify(body)).toMatch(message);
    }
  });

  it('connects only to declared clusters granted to the tenant: anything else is 400 naming the field', async () => {
    const other = await makeTenant(t.app, 'stranger');
    const url = `/api/${other.tenantId}/project/${other.projectId}/source`;
    const cases: [unknown, RegExp][] = [
      // Brokers nobody declared: the server connects nowhere it is told.
      [{ brokers: ['127.0.0.1:18250'], topic: 'probe' }, /body\.brokers: these brokers are not those of a Kafka cluster granted to this tenant/],
      [{ brokers: ['169.254.169.254:80'], topic: 'probe' }, /body\.brokers/],
      // A declared cluster, not granted to this tenant: answered as one that does not exist.
      [{ cluster: 'local', topic: 'probe' }, /body\.cluster: no Kafka cluster 'local' is granted to this tenant/],
      [{ brokers: ['127.0.0.1:9092'], topic: 'probe' }, /body\.brokers: these brokers are not those of a Kafka cluster granted/],
      [{ cluster: 'nowhere', topic: 'probe' }, /body\.cluster: no Kafka cluster 'nowhere' is granted to this tenant/],
    ];
    for (const [body, message] of cases) {
      const r = await call(t.app, 'POST', url, other.admin, body);
      expectError(r, 400, 'validation_failed');
      expect(r.body.message, JSON.stringify(body)).toMatch(message);
    }
    // A cluster's name and brokers that do not match.
    const mixed = await call(t.app, 'POST', base, w.admin, { cluster: 'local', brokers: ['kafka-1.example:9093'], topic: 'x' });
    expectError(mixed, 400, 'validation_failed');
    expect(mixed.body.message).toMatch(/body\.brokers: these brokers are not those of the cluster 'local'/);
    expect((await call(t.app, 'GET', `/api/${other.tenantId}/kafka-cluster`, other.reader)).body).toEqual({ items: [], nextCursor: null });
  });

  it("the cluster decides how pcg logs in: none of the tenant's on a service cluster, the tenant's own where ACLs decide", async () => {
    const sasl = { mechanism: 'scram-sha-512', username: 'svc', password: 'pw-of-the-tenant' };
    const own = await call(t.app, 'POST', base, w.admin, { cluster: 'local', topic: 'own-login', sasl });
    expectError(own, 400, 'validation_failed');
    expect(own.body.message).toMatch(/body\.sasl: pcg reads cluster 'local' with the operator's own credentials/);
    const none = await call(t.app, 'POST', base, w.admin, { cluster: 'acl', topic: 'no-login' });
    expectError(none, 400, 'validation_failed');
    expect(none.body.message).toMatch(/body\.sasl: cluster 'acl' lets its ACLs decide/);
    const listed = (await call(t.app, 'GET', `/api/${w.tenantId}/kafka-cluster`, w.reader)).body.items;
    expect(listed.map((c: { name: string; credentials: string }) => [c.name, c.credentials])).toEqual([
      ['acl', 'tenant'],
      ['local', 'service'],
    ]);
  });

  it('never returns a secret, and seals it at rest', async () => {
    const password = 'hunter2-but-longer-and-secret';
    const tlsKey = '-----BEGIN PRIVATE KEY-----\nsecret-key-material\n-----END PRIVATE KEY-----';
    const r = await call(t.app, 'POST', base, w.admin, {
      name: 'secure',
      cluster: 'acl',
      topic: 'secure',
      sasl: { mechanism: 'scram-sha-512', username: 'svc', password },
      tls: { key: tlsKey, cert: 'CERT' },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'svc' });
    expect(r.body.tls).toEqual({ cert: 'CERT', hasKey: true });
    for (const text of [r.text, (await call(t.app, 'GET', base, w.reader)).text, (await call(t.app, 'GET', `${base}/${r.body.id}`, w.admin)).text]) {
      expect(text).not.toContain(password);
      expect(text).not.toContain('secret-key-material');
    }
    const db = new Database(join(t.dir, 'catalog.sqlite'), { readonly: true });
    const row = db.prepare('SELECT body, secret FROM source WHERE id = ?').get(r.body.id) as { body: string; secret: string };
    db.close();
    expect(row.body + row.secret).not.toContain(password);
    expect(row.body + row.secret).not.toContain('secret-key-material');
    expect(row.secret).toMatch(/^v1\./);
    // The runners get the secrets back in clear, with the cluster's TLS under the tenant's certificate.
    const active = t.context.catalog.sources.active().find((s) => s.id === r.body.id)!;
    expect(active.sasl?.password).toBe(password);
    expect(active.brokers).toEqual(['kafka-1.example:9093', 'kafka-2.example:9093']);
    expect(active.tls).toEqual({ cert: 'CERT', key: tlsKey });
  });

  it('pauses, resumes, changes the mapping and deletes; the supervisor sees each change', async () => {
    const r = await call(t.app, 'POST', base, w.admin, { cluster: 'local', topic: 'lifecycle' });
    const url = `${base}/${r.body.id}`;
    const activeIds = () => t.context.catalog.sources.active().map((s) => s.id);
    expect(activeIds()).toContain(r.body.id);
    expect((await call(t.app, 'POST', `${url}/pause`, w.admin)).body.paused).toBe(true);
    expect(activeIds()).not.toContain(r.body.id);
    expect((await call(t.app, 'GET', url, w.reader)).body.status.state).toBe('paused');
    expect((await call(t.app, 'POST', `${url}/resume`, w.admin)).body.paused).toBe(false);
    expect(activeIds()).toContain(r.body.id);
    const revision = t.context.catalog.sources.active().find((s) => s.id === r.body.id)!.revision;
    const put = await call(t.app, 'PUT', url, w.admin, { format: 'json', mapping: { caseId: '/order/id', activity: 'status', timestamp: 'at' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ format: 'json', mapping: { caseId: '/order/id', activity: 'status', timestamp: 'at' } });
    expect(t.context.catalog.sources.active().find((s) => s.id === r.body.id)!.revision).not.toBe(revision);
    expectError(await call(t.app, 'PUT', url, w.admin, { format: 'json', mapping: { caseId: 'id' } }), 400, 'validation_failed');
    expect((await call(t.app, 'DELETE', url, w.admin)).status).toBe(204);
    expectError(await call(t.app, 'GET', url, w.reader), 404, 'not_found');
    expect(activeIds()).not.toContain(r.body.id);
  });

  it('a read key cannot subscribe, and a project holds at most 20 sources', async () => {
    expectError(await call(t.app, 'POST', base, w.reader, { cluster: 'local', topic: 'e' }), 403, 'forbidden');
    const other = (await call(t.app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: 'many sources' })).body.id;
    const url = `/api/${w.tenantId}/project/${other}/source`;
    for (let i = 0; i < 20; i++) expect((await call(t.app, 'POST', url, w.admin, { cluster: 'local', topic: `t${i}` })).status).toBe(201);
    const r = await call(t.app, 'POST', url, w.admin, { cluster: 'local', topic: 'one-too-many' });
    expectError(r, 422, 'limit_exceeded');
    expect(r.body.message).toMatch(/sources per project/);
    // Deleting the project deletes its sources.
    expect((await call(t.app, 'DELETE', `/api/${w.tenantId}/project/${other}`, w.admin)).status).toBe(204);
    expect(t.context.catalog.sources.active().filter((s) => s.projectId === other)).toEqual([]);
  });
});

/** A topic on a cluster pcg reads with its own login belongs to the tenant that subscribed it first. */
describe('topic claims and cluster grants', () => {
  let t: TestApp;
  let a: World;
  let b: World;
  const sourceOf = (w: World) => `/api/${w.tenantId}/project/${w.projectId}/source`;

  beforeAll(async () => {
    t = testApp();
    a = await makeTenant(t.app, 'A');
    b = await makeTenant(t.app, 'B');
    await grantCluster(t.app, a.tenantId);
    await grantCluster(t.app, b.tenantId);
  });
  afterAll(() => t.close());

  it("another tenant's topic is 409 on every way of naming it, until the global key grants it", async () => {
    const mine = await call(t.app, 'POST', sourceOf(b), b.admin, { cluster: 'local', topic: 'orders-b' });
    expect(mine.status).toBe(201);
    // The same tenant may read it again (another project, another group).
    const project2 = (await call(t.app, 'POST', `/api/${b.tenantId}/project`, b.admin, { name: 'second' })).body.id;
    expect((await call(t.app, 'POST', `/api/${b.tenantId}/project/${project2}/source`, b.admin, { cluster: 'local', topic: 'orders-b' })).status).toBe(201);
    for (const body of [{ cluster: 'local', topic: 'orders-b' }, { brokers: ['127.0.0.1:9092'], topic: 'orders-b' }, { cluster: 'local', topic: 'orders-b', groupSuffix: 'x' }]) {
      const r = await call(t.app, 'POST', sourceOf(a), a.admin, body);
      expectError(r, 409, 'conflict');
      expect(r.body.message).toMatch(/body\.topic: topic 'orders-b' of cluster 'local' is held by another tenant/);
    }
    const held = (await call(t.app, 'GET', '/admin/kafka-clusters/local/topics', GLOBAL)).body.items;
    expect(held.map((h: { topic: string; tenantId: string; how: string }) => [h.topic, h.tenantId, h.how])).toEqual([['orders-b', b.tenantId, 'claimed']]);
    expect((await call(t.app, 'GET', `/api/${b.tenantId}/kafka-cluster`, b.reader)).body.items[0].topics).toEqual(['orders-b']);
    // The operator shares it.
    const granted = await call(t.app, 'PUT', `/admin/kafka-clusters/local/topics/orders-b/tenants/${a.tenantId}`, GLOBAL);
    expect(granted.status, granted.text).toBe(200);
    const shared = await call(t.app, 'POST', sourceOf(a), a.admin, { cluster: 'local', topic: 'orders-b' });
    expect(shared.status).toBe(201);
    expect(shared.body.groupId).not.toBe(mine.body.groupId);
    // Taken back: A's source stops, and says why.
    expect((await call(t.app, 'DELETE', `/admin/kafka-clusters/local/topics/orders-b/tenants/${a.tenantId}`, GLOBAL)).status).toBe(204);
    const active = t.context.catalog.sources.active().map((s) => s.id);
    expect(active).toContain(mine.body.id);
    expect(active).not.toContain(shared.body.id);
    const status = (await call(t.app, 'GET', `${sourceOf(a)}/${shared.body.id}`, a.reader)).body.status;
    expect(status.state).toBe('failed');
    expect(status.lastError.message).toBe("topic 'orders-b' of cluster 'local' is held by another tenant");
  });

  it('a grant taken back stops the sources on the cluster; given again, they run and the refusal is gone', async () => {
    const s = await call(t.app, 'POST', sourceOf(a), a.admin, { cluster: 'local', topic: 'orders-a' });
    expect(s.status).toBe(201);
    expect((await call(t.app, 'DELETE', `/admin/kafka-clusters/local/tenants/${a.tenantId}`, GLOBAL)).status).toBe(204);
    expect(t.context.catalog.sources.active().map((x) => x.id)).not.toContain(s.body.id);
    const url = `${sourceOf(a)}/${s.body.id}`;
    expect((await call(t.app, 'GET', url, a.reader)).body.status.lastError.message).toBe("the Kafka cluster 'local' is not declared or not granted to this tenant");
    await grantCluster(t.app, a.tenantId);
    expect(t.context.catalog.sources.active().map((x) => x.id)).toContain(s.body.id);
    expect((await call(t.app, 'GET', url, a.reader)).body.status).toMatchObject({ state: 'waiting', lastError: null });
  });

  it('clusters are declared, changed and deleted with the global key; configured ones only by configuration', async () => {
    const body = { brokers: ['10.0.0.1:9092'], credentials: 'service', sasl: { mechanism: 'plain', username: 'pcg', password: 'cluster-password-1' } };
    const put = await call(t.app, 'PUT', '/admin/kafka-clusters/east', GLOBAL, body);
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ name: 'east', origin: 'api', brokers: ['10.0.0.1:9092'], sasl: { mechanism: 'plain', username: 'pcg' }, tenants: [], allTenants: false, revision: 1 });
    expect(put.text).not.toContain('cluster-password-1');
    // The same declaration again changes nothing (its sources do not restart); a new one does.
    expect((await call(t.app, 'PUT', '/admin/kafka-clusters/east', GLOBAL, body)).body.revision).toBe(1);
    expect((await call(t.app, 'PUT', '/admin/kafka-clusters/east', GLOBAL, { ...body, brokers: ['10.0.0.2:9092'] })).body.revision).toBe(2);
    await grantCluster(t.app, b.tenantId, 'east');
    const src = await call(t.app, 'POST', sourceOf(b), b.admin, { cluster: 'east', topic: 'x' });
    const def = t.context.catalog.sources.active().find((s) => s.id === src.body.id)!;
    expect(def).toMatchObject({ brokers: ['10.0.0.2:9092'], sasl: { mechanism: 'plain', username: 'pcg', password: 'cluster-password-1' } });
    expectError(await call(t.app, 'PUT', '/admin/kafka-clusters/local', GLOBAL, body), 409, 'conflict');
    expectError(await call(t.app, 'DELETE', '/admin/kafka-clusters/local', GLOBAL), 409, 'conflict');
    expectError(await call(t.app, 'PUT', '/admin/kafka-clusters/east', GLOBAL, { brokers: ['10.0.0.1:9092'], credentials: 'tenant', sasl: body.sasl }), 400, 'validation_failed');
    expect((await call(t.app, 'DELETE', '/admin/kafka-clusters/east', GLOBAL)).status).toBe(204);
    expect(t.context.catalog.sources.active().map((s) => s.id)).not.toContain(src.body.id);
    expectError(await call(t.app, 'GET', '/admin/kafka-clusters/east', GLOBAL), 404, 'not_found');
    expectError(await call(t.app, 'PUT', `/admin/kafka-clusters/local/tenants/${crypto.randomUUID()}`, GLOBAL), 404, 'not_found');
    expectError(await call(t.app, 'GET', '/admin/kafka-clusters', a.admin), 401, 'invalid_token');
  });

  it('a source declared before clusters runs on the granted cluster its brokers belong to, in a derived group', async () => {
    // As an older pcg stored it: brokers and a group of the tenant's choosing.
    const db = t.context.catalog.db;
    const id = crypto.randomUUID();
    const at = new Date().toISOString();
    db.prepare("INSERT INTO source (id, tenant_id, project_id, name, body, secret, paused, revision, created_at, updated_at) VALUES (?, ?, ?, 'old', ?, '', 0, 1, ?, ?)").run(
      id,
      a.tenantId,
      a.projectId,
      JSON.stringify({ brokers: ['127.0.0.1:9092'], topic: 'legacy', groupId: 'orders-consumer', format: 'pcg', start: 'earliest' }),
      at,
      at,
    );
    const def = t.context.catalog.sources.active().find((s) => s.id === id)!;
    expect(def).toMatchObject({ cluster: 'local', groupId: `pcg.${a.tenantId}.${id}`, topic: 'legacy' });
    expect((await call(t.app, 'GET', `${sourceOf(a)}/${id}`, a.reader)).body).toMatchObject({ cluster: 'local', groupId: `pcg.${a.tenantId}.${id}` });
    // One whose brokers no granted cluster has waits, and says why.
    db.prepare('UPDATE source SET body = ?, revision = revision + 1 WHERE id = ?').run(JSON.stringify({ brokers: ['127.0.0.1:18250'], topic: 'legacy', format: 'pcg', start: 'earliest' }), id);
    expect(t.context.catalog.sources.active().map((s) => s.id)).not.toContain(id);
    expect((await call(t.app, 'GET', `${sourceOf(a)}/${id}`, a.reader)).body.status.lastError.message).toMatch(/its brokers \(127\.0\.0\.1:18250\) are not those of a Kafka cluster granted to this tenant/);
  });
});

describe('PCG_KAFKA_CLUSTERS', () => {
  it('declares clusters with their grants; a cluster left out is removed, its grants kept for its return', async () => {
    const t = testApp({ kafkaClusters: JSON.stringify([{ name: 'main', brokers: ['k1:9092'], tenants: '*' }, { name: 'east', brokers: ['k2:9092'] }]) });
    try {
      const w = await makeTenant(t.app, 'configured');
      expect((await call(t.app, 'GET', `/api/${w.tenantId}/kafka-cluster`, w.reader)).body.items.map((c: { name: string }) => c.name)).toEqual(['main']);
      await grantCluster(t.app, w.tenantId, 'east');
      const listed = (await call(t.app, 'GET', '/admin/kafka-clusters', GLOBAL)).body.items;
      expect(listed.map((c: any) => [c.name, c.origin, c.allTenants, c.tenants])).toEqual([
        ['east', 'config', false, [w.tenantId]],
        ['main', 'config', true, []],
      ]);
      t.context.catalog.clusters.syncConfigured([]);
      expect(t.context.catalog.clusters.list()).toEqual([]);
      t.context.catalog.clusters.syncConfigured([{ name: 'east', brokers: ['k2:9092'], tenants: [], credentials: 'service', groupPrefix: 'pcg' }]);
      expect(t.context.catalog.clusters.isGranted('east', w.tenantId)).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('refuses a malformed list with the variable named', async () => {
    const { readConfig } = await import('../../api/config.js');
    expect(() => readConfig({ PCG_KAFKA_CLUSTERS: 'not json' })).toThrow(/PCG_KAFKA_CLUSTERS: expected a JSON list of clusters/);
    expect(() => readConfig({ PCG_KAFKA_CLUSTERS: '[{"name":"a","brokers":["x:1"]},{"name":"a","brokers":["y:1"]}]' })).toThrow(/the cluster 'a' is declared twice/);
    expect(() => readConfig({ PCG_KAFKA_CLUSTERS: '[{"name":"a","brokers":["nope"]}]' })).toThrow(/PCG_KAFKA_CLUSTERS: .*brokers/);
    expect(readConfig({}).kafkaClusters).toEqual([{ name: 'local', brokers: ['127.0.0.1:9092'], tenants: [], credentials: 'service', groupPrefix: 'pcg' }]);
  });
});
