import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTenant, openCluster, testApp, type TestApp, type World } from '../api/helpers.js';
import { KafkaBroker } from './broker.js';
import { eventually, expectSameDocument, messagesOf, referenceDocument, simulatedLog } from './helpers.js';

/**
 * A project subscribed to a real topic through the API, its sources run by
 * the app's source thread as in `pcg serve`.
 */
describe('Kafka source through the API', () => {
  let broker: KafkaBroker;
  let t: TestApp;
  let w: World;

  beforeAll(async () => {
    broker = await KafkaBroker.start();
    t = testApp({ kafkaClusters: openCluster(broker.brokers) }, { runSources: true });
    w = await makeTenant(t.app, 'kafka');
  });
  afterAll(async () => {
    await t?.close();
    await broker?.stop();
  });

  it('a 4-partition topic in random order with duplicates gives the document pcg graph gives for the log', async () => {
    const log = simulatedLog(400, 7);
    await broker.createTopic('orders', 4);
    await broker.produce('orders', messagesOf(log, 7, 0.05));
    const created = await call(t.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/source`, w.admin, { cluster: 'local', topic: 'orders', format: 'pcg' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ topic: 'orders', format: 'pcg', start: 'earliest', groupId: `pcg.${w.tenantId}.${created.body.id}`, paused: false, sasl: null, tls: null });
    const url = `/api/${w.tenantId}/project/${w.projectId}/source/${created.body.id}`;
    const ends = await broker.endOffsets('orders');
    const status = await eventually(async () => {
      const s = await call(t.app, 'GET', url, w.reader);
      const done = s.body.status.partitions.length === 4 && s.body.status.partitions.every((p: any) => p.storedOffset === ends[p.partition]! - 1);
      return done ? s.body.status : undefined;
    }, 60_000, 'every partition stored to its end');
    expect(status.eventsApplied).toBe(log.length);
    expect(status.deadLetters).toBe(0);
    const graph = await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph`, w.reader);
    expect(graph.status).toBe(200);
    expectSameDocument(graph.body, referenceDocument(log));
  });

  it('a topic not keyed by case id: cases split across partitions are counted, and the document says how many', async () => {
    const log = simulatedLog(60, 9);
    await broker.createTopic('unkeyed', 3);
    // No key: the partitioner spreads messages round robin, so most cases land in several partitions.
    await broker.produce('unkeyed', log.map((e) => ({ key: null, value: JSON.stringify(e) })));
    const project = (await call(t.app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: 'unkeyed' })).body.id;
    const base = `/api/${w.tenantId}/project/${project}`;
    const created = await call(t.app, 'POST', `${base}/source`, w.admin, { cluster: 'local', topic: 'unkeyed' });
    const ends = await broker.endOffsets('unkeyed');
    await eventually(async () => {
      const s = (await call(t.app, 'GET', `${base}/source/${created.body.id}`, w.reader)).body.status;
      return s.partitions.length === 3 && s.partitions.every((p: any) => p.storedOffset === ends[p.partition]! - 1) ? s : undefined;
    }, 60_000, 'the unkeyed topic consumed');
    // Recomputed from the messages: the cases whose events sit in more than one partition.
    const partitionsOf = new Map<string, Set<number>>();
    const kafka = (await import('kafkajs')).Kafka;
    const consumer = new kafka({ clientId: 'split-check', brokers: broker.brokers, logLevel: 0 }).consumer({ groupId: 'split-check', maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topics: ['unkeyed'], fromBeginning: true });
    let seen = 0;
    await new Promise<void>((done) => {
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          const caseId = JSON.parse(message.value!.toString()).caseId as string;
          partitionsOf.set(caseId, (partitionsOf.get(caseId) ?? new Set()).add(partition));
          if (++seen === log.length) done();
        },
      });
    });
    await consumer.disconnect();
    const split = [...partitionsOf.values()].filter((s) => s.size > 1).length;
    expect(split).toBeGreaterThan(10);
    const doc = (await call(t.app, 'GET', `${base}/graph`, w.reader)).body;
    expect(doc.assumptions.join('\n')).toContain(`${split} cases have events in more than one partition of a stream source`);
    // Each partition's part of a split case counts as a case of its own.
    const parts = [...partitionsOf.values()].reduce((n, s) => n + s.size, 0);
    expect(doc.source.cases).toBe(parts);
    expect(doc.source.events).toBe(log.length);
  }, 120_000);
});
