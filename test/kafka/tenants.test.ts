import { createServer, type AddressInfo, type Server } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireEvent } from '../../engine/index.js';
import { call, expectError, grantCluster, makeTenant, testApp, type TestApp, type World } from '../api/helpers.js';
import { KafkaBroker, SASL_ADMIN } from './broker.js';
import { eventually, expectSameDocument, messagesOf, referenceDocument, simulatedLog } from './helpers.js';

/**
 * Tenant boundaries on a real broker (issue 30, C1): one tenant must never read another's events through a Kafka
 * source, whatever it names. On a cluster pcg reads with its own login, pcg refuses every way of naming the other
 * tenant's topic or group; on a cluster whose ACLs decide, the broker refuses what the tenant's own login may not
 * read. Either way the other tenant's document is the one its own events give.
 */

/** B's events carry an attribute A must never see. */
const withSecret = (log: WireEvent[]): WireEvent[] => log.map((e, i) => ({ ...e, attributes: { ...(e.attributes ?? {}), secretAmount: 1000 + i } }));

/** A TCP listener that counts connections (a host some cluster names, or none does). */
async function listener(): Promise<{ address: string; accepted: () => number; close: () => Promise<void> }> {
  let accepted = 0;
  const server: Server = createServer((s) => {
    accepted++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, accepted: () => accepted, close: () => new Promise((r) => server.close(() => r())) };
}

/** Waits until every partition of a source is stored to the topic's end. */
async function consumed(t: TestApp, w: World, sourceId: string, broker: KafkaBroker, topic: string): Promise<void> {
  const ends = await broker.endOffsets(topic);
  await eventually(async () => {
    const s = (await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/source/${sourceId}`, w.reader)).body.status;
    return s.partitions.length === ends.length && s.partitions.every((p: { partition: number; storedOffset: number }) => p.storedOffset === ends[p.partition]! - 1) ? true : undefined;
  }, 90_000, `${topic} consumed to its end`);
}

const graphOf = async (t: TestApp, w: World) => (await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph`, w.reader)).body;

describe("a cluster pcg reads with its own login: no way of naming another tenant's topic or group reads it", () => {
  let broker: KafkaBroker;
  let t: TestApp;
  let a: World;
  let b: World;
  let decoy: Awaited<ReturnType<typeof listener>>;
  let undeclared: Awaited<ReturnType<typeof listener>>;

  beforeAll(async () => {
    broker = await KafkaBroker.start();
    decoy = await listener();
    undeclared = await listener();
    // `other` is granted to B only: A naming it (or its address) is naming a cluster it was not given.
    const clusters = [
      { name: 'shared', brokers: broker.brokers },
      { name: 'other', brokers: [decoy.address] },
    ];
    t = testApp({ kafkaClusters: JSON.stringify(clusters) }, { runSources: true });
    a = await makeTenant(t.app, 'tenant-a');
    b = await makeTenant(t.app, 'tenant-b');
    await grantCluster(t.app, a.tenantId, 'shared');
    await grantCluster(t.app, b.tenantId, 'shared');
    await grantCluster(t.app, b.tenantId, 'other');
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await broker?.stop();
    await decoy?.close();
    await undeclared?.close();
  });

  it("refuses each of A's attempts on B's topic; B's document is the clean run's and A's holds only A's events", async () => {
    const logB = withSecret(simulatedLog(160, 31));
    const logA = simulatedLog(60, 32, 'helpdesk');
    await broker.createTopic('orders-b', 4);
    await broker.createTopic('orders-a', 2);
    const half = Math.floor(logB.length / 2);
    await broker.produce('orders-b', messagesOf(logB.slice(0, half), 31, 0));
    const sourceOf = (w: World) => `/api/${w.tenantId}/project/${w.projectId}/source`;
    const bSource = await call(t.app, 'POST', sourceOf(b), b.admin, { cluster: 'shared', topic: 'orders-b' });
    expect(bSource.status, bSource.text).toBe(201);
    const bGroup = bSource.body.groupId as string;
    expect(bGroup).toBe(`pcg.${b.tenantId}.${bSource.body.id}`);

    // Every way A might name B's topic or group.
    const attempts: [object, number, RegExp][] = [
      [{ cluster: 'shared', topic: 'orders-b', groupId: 'orders-consumer' }, 400, /body\.groupId: pcg derives the consumer group/],
      [{ cluster: 'shared', topic: 'orders-b', groupId: `pcg-${bSource.body.id}` }, 400, /body\.groupId/],
      [{ cluster: 'shared', topic: 'orders-b', groupId: bGroup }, 400, /body\.groupId/],
      [{ cluster: 'shared', topic: 'orders-b' }, 409, /body\.topic: topic 'orders-b' of cluster 'shared' is held by another tenant/],
      [{ cluster: 'shared', topic: 'orders-b', groupSuffix: bSource.body.id }, 409, /body\.topic/],
      [{ brokers: broker.brokers, topic: 'orders-b' }, 409, /body\.topic/],
      [{ cluster: 'other', topic: 'orders-b' }, 400, /body\.cluster: no Kafka cluster 'other' is granted to this tenant/],
      [{ brokers: [decoy.address], topic: 'orders-b' }, 400, /body\.brokers/],
      [{ brokers: [undeclared.address], topic: 'orders-b' }, 400, /body\.brokers/],
    ];
    for (const [body, status, message] of attempts) {
      const r = await call(t.app, 'POST', sourceOf(a), a.admin, body);
      expectError(r, status, status === 409 ? 'conflict' : 'validation_failed');
      expect(r.body.message, JSON.stringify(body)).toMatch(message);
    }
    // A source an older pcg stored for A, naming B's topic and group: it does not run, and says why.
    const legacy = crypto.randomUUID();
    const at = new Date().toISOString();
    t.context.catalog.db
      .prepare("INSERT INTO source (id, tenant_id, project_id, name, body, secret, paused, revision, created_at, updated_at) VALUES (?, ?, ?, 'hijack', ?, '', 0, 1, ?, ?)")
      .run(legacy, a.tenantId, a.projectId, JSON.stringify({ brokers: broker.brokers, topic: 'orders-b', groupId: bGroup, format: 'pcg', start: 'earliest' }), at, at);
    t.context.catalog.sources.active();
    expect((await call(t.app, 'GET', `${sourceOf(a)}/${legacy}`, a.reader)).body.status).toMatchObject({ state: 'failed', lastError: { message: "topic 'orders-b' of cluster 'shared' is held by another tenant" } });

    // A's own topic is A's to read.
    const aSource = await call(t.app, 'POST', sourceOf(a), a.admin, { cluster: 'shared', topic: 'orders-a' });
    expect(aSource.status, aSource.text).toBe(201);
    await broker.produce('orders-a', messagesOf(logA, 32, 0));
    await broker.produce('orders-b', messagesOf(logB.slice(half), 33, 0.05));
    await consumed(t, b, bSource.body.id, broker, 'orders-b');
    await consumed(t, a, aSource.body.id, broker, 'orders-a');

    expectSameDocument(await graphOf(t, b), referenceDocument(logB));
    const docA = await graphOf(t, a);
    expectSameDocument(docA, referenceDocument(logA));
    expect(JSON.stringify(docA)).not.toContain('secretAmount');
    // Seen from the broker: every group that was given a partition of B's topic is one of B's.
    const admin = new Kafka({ clientId: 'tenants-check', brokers: broker.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const { groups } = await admin.listGroups();
      const described = (await admin.describeGroups(groups.map((g) => g.groupId))).groups;
      const readersOfB = described.filter((g) => g.members.some((m) => m.memberAssignment.toString('latin1').includes('orders-b'))).map((g) => g.groupId);
      expect(readersOfB).toEqual([bGroup]);
      const offsets = await admin.fetchOffsets({ groupId: `pcg.${a.tenantId}.${aSource.body.id}`, topics: ['orders-b'] });
      expect(offsets.flatMap((o) => o.partitions).every((p) => p.offset === '-1')).toBe(true);
    } finally {
      await admin.disconnect();
    }
    // Neither A's refused attempts nor anything else dialled the decoy or the undeclared host.
    expect(decoy.accepted()).toBe(0);
    expect(undeclared.accepted()).toBe(0);
  }, 240_000);
});

describe("a cluster whose ACLs decide: a tenant's own login reads only what the broker grants it", () => {
  let broker: KafkaBroker;
  let t: TestApp;
  let a: World;
  let b: World;
  const logins = { alice: 'alice-secret', bob: 'bob-secret' };

  beforeAll(async () => {
    broker = await KafkaBroker.start({ sasl: { users: logins } });
    t = testApp({ kafkaClusters: JSON.stringify([{ name: 'acl', brokers: broker.brokers, credentials: 'tenant', tenants: '*' }]) }, { runSources: true });
    a = await makeTenant(t.app, 'acl-a');
    b = await makeTenant(t.app, 'acl-b');
    await broker.createTopic('orders-a', 2);
    await broker.createTopic('orders-b', 2);
    // The operator's ACLs: each tenant's login reads its own topic, in groups under its tenant's prefix.
    await broker.allowRead('alice', 'orders-a', `pcg.${a.tenantId}.`);
    await broker.allowRead('bob', 'orders-b', `pcg.${b.tenantId}.`);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await broker?.stop();
  });

  it("A's login on B's topic reads nothing and says why; B's login reads B's topic whole", async () => {
    expect(SASL_ADMIN.username).toBe('admin');
    const logB = withSecret(simulatedLog(80, 41));
    const logA = simulatedLog(40, 42, 'helpdesk');
    await broker.produce('orders-b', messagesOf(logB, 41, 0.05));
    await broker.produce('orders-a', messagesOf(logA, 42, 0));
    const sourceOf = (w: World) => `/api/${w.tenantId}/project/${w.projectId}/source`;
    const alice = { mechanism: 'plain', username: 'alice', password: logins.alice };
    const bob = { mechanism: 'plain', username: 'bob', password: logins.bob };
    // pcg lets the broker decide on this cluster: the declaration is taken, the broker refuses the reads.
    const stolen = await call(t.app, 'POST', sourceOf(a), a.admin, { cluster: 'acl', topic: 'orders-b', sasl: alice });
    expect(stolen.status, stolen.text).toBe(201);
    const own = await call(t.app, 'POST', sourceOf(a), a.admin, { cluster: 'acl', topic: 'orders-a', sasl: alice });
    const bSource = await call(t.app, 'POST', sourceOf(b), b.admin, { cluster: 'acl', topic: 'orders-b', sasl: bob });
    await consumed(t, b, bSource.body.id, broker, 'orders-b');
    await consumed(t, a, own.body.id, broker, 'orders-a');
    const refusal = await eventually(async () => {
      const s = (await call(t.app, 'GET', `${sourceOf(a)}/${stolen.body.id}`, a.reader)).body.status;
      return s.lastError && /authoriz/i.test(s.lastError.message) ? s : undefined;
    }, 60_000, "the broker's refusal in the status");
    expect(refusal.eventsApplied).toBe(0);
    expectSameDocument(await graphOf(t, b), referenceDocument(logB));
    const docA = await graphOf(t, a);
    expectSameDocument(docA, referenceDocument(logA));
    expect(JSON.stringify(docA)).not.toContain('secretAmount');
  }, 240_000);
});
