import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTenant, testApp, type TestApp, type World } from '../api/helpers.js';
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
    t = testApp({}, { runSources: true });
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
    const created = await call(t.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/source`, w.admin, { brokers: broker.brokers, topic: 'orders', format: 'pcg' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ topic: 'orders', format: 'pcg', start: 'earliest', groupId: `pcg-${created.body.id}`, paused: false, sasl: null, tls: null });
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
});
