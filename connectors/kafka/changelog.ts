import { CompressionTypes, type Admin, type Kafka, type Producer } from 'kafkajs';
import type { Batch, Position, PreparedBatch, Rejection } from '../../engine/index.js';
import { RETRY } from './client.js';
import type { SourceDefinition } from './definition.js';

/**
 * The changelog of a source: every chunk the owner of a partition applied, as
 * one record of the topic `<groupId>.pcg-changelog`, in the partition of the
 * same number, in the order the chunks were applied. A record is the chunk's
 * accepted records (the wire records that passed validation, one per key), its
 * refused ones (dead letters), their source offsets, and the chunk's position
 * (`first`, `offset`, `after`): enough to apply it again through
 * `ProjectStore.apply`, whose position checks skip what a state already holds.
 * So a partition's state on disk is a cache of this topic (changelog-sync.ts).
 */

/** Bytes of a dead letter's message kept in the changelog: what the state keeps (engine/store/project-store.ts, MAX_RAW_BYTES). */
const RAW_KEPT = 64 * 1024;

/**
 * A record may hold a whole chunk (5,000 events, a few MB before compression); the broker's default limit of a
 * record batch is 1 MB. Compressed with gzip a chunk of the simulated log is about a tenth of its JSON.
 */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The changelog topic of a source: its group's name (derived, so an ACL prefix per tenant covers it) and a fixed suffix. */
export function changelogTopicOf(source: Pick<SourceDefinition, 'groupId'>): string {
  return `${source.groupId}.pcg-changelog`;
}

/** A chunk as the changelog keeps it, before its position is known (it may shrink: another writer stored part of it). */
export interface ChangelogEntry {
  /** Source offsets of the accepted records, in order. */
  offsets: number[];
  records: unknown[];
  rejected: { offset: number; reason: string; payload: string; raw?: string }[];
}

/** One record of the changelog topic. */
export interface ChangelogRecord extends ChangelogEntry {
  v: 1;
  /** The chunk's first and last source offsets, and the stored offset it follows (engine Position). */
  first: number;
  offset: number;
  after: number;
}

const offsetOf = (location: string) => Number(location.slice(location.lastIndexOf('@') + 1));

/** The entry of a chunk: the records its prepared batch kept (by location), and every refusal, with their source offsets. */
export function changelogEntry(batch: Batch, prepared: PreparedBatch): ChangelogEntry {
  const kept = new Set(prepared.locations);
  const offsets: number[] = [];
  const records: unknown[] = [];
  const locations = batch.locations ?? [];
  for (let i = 0; i < batch.records.length; i++) {
    const location = locations[i];
    if (location === undefined || !kept.has(location)) continue;
    offsets.push(offsetOf(location));
    records.push(batch.records[i]);
  }
  const rejected = prepared.rejected.map((r) => ({
    offset: offsetOf(r.location),
    reason: r.reason,
    payload: r.payload,
    ...(r.raw ? { raw: Buffer.from(r.raw.buffer, r.raw.byteOffset, Math.min(r.raw.byteLength, RAW_KEPT)).toString('base64') } : {}),
  }));
  return { offsets, records, rejected };
}

/** The part of an entry past `stored` (another writer applied the rest). */
export function entryAfter(entry: ChangelogEntry, stored: number): ChangelogEntry {
  const offsets: number[] = [];
  const records: unknown[] = [];
  entry.offsets.forEach((o, i) => {
    if (o > stored) {
      offsets.push(o);
      records.push(entry.records[i]);
    }
  });
  return { offsets, records, rejected: entry.rejected.filter((r) => r.offset > stored) };
}

export function encodeRecord(entry: ChangelogEntry, position: Pick<Position, 'offset' | 'first' | 'after'>): string {
  const record: ChangelogRecord = { v: 1, first: position.first ?? position.offset, offset: position.offset, after: position.after ?? -1, ...entry };
  return JSON.stringify(record);
}

export function decodeRecord(value: Buffer | null): ChangelogRecord {
  const r = JSON.parse(value === null ? 'null' : value.toString('utf8')) as ChangelogRecord | null;
  if (!r || r.v !== 1 || !Number.isInteger(r.offset) || !Array.isArray(r.records) || !Array.isArray(r.offsets)) throw new Error('not a pcg changelog record (v1)');
  return r;
}

/** A record as the batch the runner would have applied: the same locations, so dead letters read the same. */
export function batchOfRecord(record: ChangelogRecord, topic: string, partition: number): Batch {
  const at = (o: number) => `${topic}/${partition}@${o}`;
  const rejected: Rejection[] = record.rejected.map((r) => ({ location: at(r.offset), reason: r.reason, payload: r.payload, ...(r.raw ? { raw: Buffer.from(r.raw, 'base64') } : {}) }));
  return { records: record.records, locations: record.offsets.map(at), rejected };
}

/**
 * The writing side of a source's changelog: its topic made if absent (as many partitions as the source topic,
 * `cleanup.policy=delete` with no time or size limit: a state is only restorable from a changelog that kept
 * everything), and an idempotent producer, so a retried send is never written twice.
 */
export class ChangelogWriter {
  readonly topic: string;
  private producer: Producer | undefined;

  constructor(
    private readonly source: SourceDefinition,
    private readonly kafka: Kafka,
    private readonly admin: () => Admin,
  ) {
    this.topic = changelogTopicOf(source);
  }

  async open(): Promise<void> {
    const admin = this.admin();
    await admin.connect();
    const meta = await admin.fetchTopicMetadata({ topics: [this.source.topic] });
    const partitions = meta.topics[0]?.partitions.length ?? 0;
    if (partitions === 0) throw new Error(`topic ${this.source.topic} has no partitions`);
    const existing = (await admin.listTopics()).includes(this.topic);
    if (!existing) {
      await admin
        .createTopics({
          waitForLeaders: true,
          topics: [
            {
              topic: this.topic,
              numPartitions: partitions,
              configEntries: [
                { name: 'cleanup.policy', value: 'delete' },
                { name: 'retention.ms', value: '-1' },
                { name: 'retention.bytes', value: '-1' },
                { name: 'max.message.bytes', value: String(MAX_MESSAGE_BYTES) },
              ],
            },
          ],
        })
        // Another worker made it meanwhile: createTopics says so by an error, or by false.
        .catch((error: Error) => {
          if (!/already exists/i.test(error.message)) throw error;
        });
    } else {
      const have = (await admin.fetchTopicMetadata({ topics: [this.topic] })).topics[0]?.partitions.length ?? 0;
      // The source topic grew: the changelog follows (partitions are only ever added).
      if (have < partitions) await admin.createPartitions({ topicPartitions: [{ topic: this.topic, count: partitions }] });
    }
    // Idempotent: a send retried after a lost answer is written once. One request in flight keeps the records in order.
    this.producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, retry: { ...RETRY } });
    await this.producer.connect();
  }

  /** Writes one record to `partition` with acks from every in-sync replica; resolves with its changelog offset. */
  async write(partition: number, value: string): Promise<number> {
    if (!this.producer) throw new Error('the changelog is not open');
    const [meta] = await this.producer.send({ topic: this.topic, acks: -1, compression: CompressionTypes.GZIP, messages: [{ partition, value }] });
    return Number(meta?.baseOffset ?? -1);
  }

  /** Each partition's first and next offset. */
  async offsets(): Promise<Map<number, { low: number; high: number }>> {
    const out = new Map<number, { low: number; high: number }>();
    for (const o of await this.admin().fetchTopicOffsets(this.topic)) out.set(o.partition, { low: Number(o.low), high: Number(o.high) });
    return out;
  }

  async close(): Promise<void> {
    const p = this.producer;
    this.producer = undefined;
    await p?.disconnect().catch(() => undefined);
  }
}
