import { randomUUID } from 'node:crypto';
import type { Kafka, KafkaMessage } from 'kafkajs';
import { FETCH_BYTES } from './runner.js';
import { RETRY } from './client.js';

/** Offsets of one partition to read, both ends included. */
export interface ReadRange {
  from: number;
  until: number;
}

/**
 * Reads given offset ranges of a topic's partitions once, front to back, then
 * leaves. kafkajs has no manual assignment, so the reader is the only member of
 * a group of its own (`<groupPrefix>.pcg-read.<uuid>`: under the source's
 * group name, so a broker ACL on the tenant's group prefix grants it), which
 * commits nothing and is gone once empty. Joining costs the broker's
 * `group.initial.rebalance.delay.ms` (3 s by default) once per read.
 * `each` gets each partition's messages in order, a fetched slice at a time.
 */
export async function readRanges(
  kafka: Kafka,
  groupPrefix: string,
  topic: string,
  ranges: ReadonlyMap<number, ReadRange>,
  each: (partition: number, messages: KafkaMessage[]) => Promise<void>,
  stopped: () => boolean = () => false,
  fetchBytes = FETCH_BYTES,
): Promise<void> {
  const remaining = new Set([...ranges].filter(([, r]) => r.from <= r.until).map(([p]) => p));
  if (remaining.size === 0) return;
  const consumer = kafka.consumer({
    groupId: `${groupPrefix}.pcg-read.${randomUUID()}`,
    maxBytes: fetchBytes,
    maxBytesPerPartition: fetchBytes,
    maxWaitTimeInMs: 100,
    sessionTimeout: 30_000,
    heartbeatInterval: 1_000,
    allowAutoTopicCreation: false,
    retry: { ...RETRY, restartOnFailure: async () => false },
  });
  let settle!: (error?: Error) => void;
  const finished = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
  consumer.on(consumer.events.CRASH, (e) => settle(e.payload.error));
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    const mine = e.payload.memberAssignment[topic] ?? [];
    const others = mine.filter((p) => !remaining.has(p));
    if (others.length) consumer.pause([{ topic, partitions: others }]);
    for (const p of mine) if (remaining.has(p)) consumer.seek({ topic, partition: p, offset: String(ranges.get(p)!.from) });
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 1,
      eachBatch: async ({ batch, heartbeat, isRunning, isStale }) => {
        const p = batch.partition;
        const range = ranges.get(p);
        if (!range || !remaining.has(p)) return;
        if (stopped()) return settle(new Error('stopped'));
        // The seek may land after a first fetch from the start: what precedes the range is passed over.
        const wanted = batch.messages.filter((m) => Number(m.offset) >= range.from && Number(m.offset) <= range.until);
        if (!isRunning() || isStale()) return;
        try {
          if (wanted.length) await each(p, wanted);
        } catch (error) {
          return settle(error as Error);
        }
        await heartbeat();
        const last = batch.messages.length ? Number(batch.messages[batch.messages.length - 1]!.offset) : -1;
        if (last >= range.until) {
          remaining.delete(p);
          consumer.pause([{ topic, partitions: [p] }]);
          if (remaining.size === 0) settle();
        }
      },
    });
    await finished;
  } finally {
    await consumer.stop().catch(() => undefined);
    await consumer.disconnect().catch(() => undefined);
  }
}
