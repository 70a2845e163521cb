import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaBroker } from './broker.js';

/** The harness itself, against the real broker: topics, keyed produce, consume, and a restart mid-stream. */
describe('Kafka broker harness', () => {
  let broker: KafkaBroker;
  let consumer: Consumer | undefined;
  const seen: { key: string; value: string; partition: number }[] = [];

  const waitFor = async (what: string, done: () => boolean, ms = 30_000) => {
    const deadline = Date.now() + ms;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${broker.logTail()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    broker = await KafkaBroker.start();
  });

  afterAll(async () => {
    await consumer?.disconnect();
    await broker?.stop();
  });

  it('consumes every produced message, each key in one partition', async () => {
    await broker.createTopic('smoke', 4);
    const keys = Array.from({ length: 37 }, (_, i) => `case-${i}`);
    await broker.produce(
      'smoke',
      Array.from({ length: 1000 }, (_, i) => ({ key: keys[i % keys.length]!, value: `event-${i}` })),
    );
    expect((await broker.endOffsets('smoke')).reduce((a, b) => a + b, 0)).toBe(1000);

    // Silent: the restart below makes kafkajs log connection errors that are the point of the test.
    const kafka = new Kafka({ clientId: 'smoke', brokers: broker.brokers, logLevel: logLevel.NOTHING });
    // A short fetch wait: disconnect() otherwise waits out the 5 s long poll.
    consumer = kafka.consumer({ groupId: 'smoke-group', maxWaitTimeInMs: 250 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'smoke', fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) seen.push({ key: m.key!.toString(), value: m.value!.toString(), partition: batch.partition });
      },
    });
    await waitFor('1000 messages', () => seen.length >= 1000);

    expect(seen).toHaveLength(1000);
    expect(new Set(seen.map((m) => m.value)).size).toBe(1000);
    const partitionOf = new Map<string, Set<number>>();
    for (const m of seen) partitionOf.set(m.key, (partitionOf.get(m.key) ?? new Set()).add(m.partition));
    expect([...partitionOf.values()].every((p) => p.size === 1)).toBe(true);
    // 37 keys over 4 partitions: the partitioner spreads them, not all in one.
    expect(new Set(seen.map((m) => m.partition)).size).toBeGreaterThan(1);
  });

  it('comes back on the same address with its data after a restart', async () => {
    const before = broker.brokers;
    await broker.restart();
    expect(broker.brokers).toEqual(before);
    expect((await broker.endOffsets('smoke')).reduce((a, b) => a + b, 0)).toBe(1000);

    await broker.produce('smoke', Array.from({ length: 10 }, (_, i) => ({ key: `after-${i}`, value: `after-${i}` })));
    // The consumer started before the outage picks up again (at least once: a batch may come twice).
    const values = () => new Set(seen.map((m) => m.value));
    await waitFor('the messages produced after the restart', () => values().size >= 1010);
    expect([...values()].filter((v) => v.startsWith('after-')).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `after-${i}`).sort());
  });
});
