/**
 * What the Kafka benchmarks share (test/bench/kafka.ts, test/bench/changelog.ts): a topic filled with a simulated
 * stream, and the messages a worker has applied, read from its partition files.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { simulate } from '../../connectors/simulator/index.js';
import type { KafkaBroker } from '../kafka/broker.js';

/** N simulated order-to-cash events in time order, as a stream writes them, keyed by case id. */
export function* streamMessages(count: number, seed = 42): Generator<{ key: string; value: string }> {
  let n = 0;
  for (const e of simulate({ model: 'order-to-cash', cases: Math.ceil(count / 5), seed })) {
    yield { key: String(e.caseId), value: JSON.stringify(e) };
    if (++n === count) return;
  }
}

/** A 4-partition topic filled with `count` messages of the stream, 5,000 a send, at most 8 sends in flight; its end offsets' sum. */
export async function fill(broker: KafkaBroker, topic: string, count: number): Promise<number> {
  await broker.createTopic(topic, 4);
  const kafka = new Kafka({ clientId: 'bench-fill', brokers: broker.brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  let batch: { key: string; value: string }[] = [];
  const inflight: Promise<unknown>[] = [];
  for (const m of streamMessages(count)) {
    batch.push(m);
    if (batch.length === 5000) {
      inflight.push(producer.send({ topic, acks: 1, messages: batch }));
      batch = [];
      if (inflight.length >= 8) await Promise.all(inflight.splice(0));
    }
  }
  if (batch.length) inflight.push(producer.send({ topic, acks: 1, messages: batch }));
  await Promise.all(inflight);
  await producer.disconnect();
  return (await broker.endOffsets(topic)).reduce((a, b) => a + b, 0);
}

/** Sum over the project's partition files of (stored offset + 1): messages applied. */
export function applied(dir: string, projectId: string): number {
  const parts = join(dir, 'projects', projectId, 'parts');
  if (!existsSync(parts)) return 0;
  let n = 0;
  for (const f of readdirSync(parts).filter((f) => f.endsWith('.sqlite'))) {
    try {
      const db = new Database(join(parts, f), { readonly: true, fileMustExist: true });
      for (const r of db.prepare('SELECT offset FROM position').all() as { offset: number }[]) n += r.offset + 1;
      db.close();
    } catch {
      // A file being created: counted on the next poll.
    }
  }
  return n;
}
