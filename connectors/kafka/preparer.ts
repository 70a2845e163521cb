import { parentPort, Worker } from 'node:worker_threads';
import { INGEST_HEAP, prepareBatch, type Batch, type EventLimits, type PreparedBatch, type Rejection } from '../../engine/index.js';
import type { SourceDefinition } from './definition.js';
import { compileMapping, type MessageMapper } from './mapping.js';

/**
 * Turning a chunk of Kafka messages into a prepared batch: each message mapped
 * to a wire record (or a rejection keeping its bytes), then validated,
 * digested and packed (`prepareBatch`). None of it reads the state, so a
 * thread of its own does it for the next chunk while the runner writes this
 * one: the second core on a stream's ingest path.
 */

/** What a runner hands over of a message. */
export interface ChunkMessage {
  offset: string;
  value: Buffer | null;
}

/** How a source's messages are read: the part of its definition the mapping needs. */
export type Reading = Pick<SourceDefinition, 'format' | 'mapping'>;

export interface ChunkPreparer {
  prepare(reading: Reading, limits: EventLimits, topic: string, partition: number, messages: readonly ChunkMessage[]): Promise<PreparedBatch>;
  close(): Promise<void>;
}

/** The batch of a chunk: mapped records with their locations and bytes, and the messages that did not map. */
export function chunkBatch(map: MessageMapper, topic: string, partition: number, messages: readonly ChunkMessage[]): Batch {
  const records: unknown[] = [];
  const locations: string[] = [];
  const raws: (Buffer | undefined)[] = [];
  const rejected: Rejection[] = [];
  for (const m of messages) {
    const location = `${topic}/${partition}@${m.offset}`;
    const mapped = map(m.value);
    if ('reason' in mapped) {
      rejected.push({ location, reason: mapped.reason, payload: m.value === null ? '' : m.value.toString('utf8', 0, 4096), raw: m.value ?? undefined });
      continue;
    }
    records.push(mapped.record);
    locations.push(location);
    raws.push(m.value ?? undefined);
  }
  return { records, locations, raws, rejected };
}

/** Mappers by reading, compiled once each. */
function mapperCache(): (reading: Reading) => MessageMapper {
  const mappers = new Map<string, MessageMapper>();
  return (reading) => {
    const key = JSON.stringify([reading.format, reading.mapping ?? {}]);
    let map = mappers.get(key);
    if (!map) mappers.set(key, (map = compileMapping(reading.format, reading.mapping)));
    return map;
  };
}

/** Prepares on the caller's thread (tests, and a fallback). */
export function inlinePreparer(): ChunkPreparer {
  const mapperOf = mapperCache();
  return {
    prepare: async (reading, limits, topic, partition, messages) => prepareBatch(chunkBatch(mapperOf(reading), topic, partition, messages), limits),
    close: async () => {},
  };
}

/** A chunk's message values packed into one transferable buffer: `ends[i]` is where value i ends, -1 for a tombstone. */
interface Packed {
  id: number;
  reading: Reading;
  limits: EventLimits;
  topic: string;
  partition: number;
  offsets: string[];
  bytes: Uint8Array;
  ends: Int32Array;
}

/**
 * Prepares on a thread of its own, shared by every runner of the process;
 * chunks are prepared in the order asked. A chunk's values travel as one
 * transferred buffer: a kafkajs value is a view of its whole fetch (10 MB),
 * which a structured clone would copy with each message.
 */
export class PreparerThread implements ChunkPreparer {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (b: PreparedBatch) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private failure: Error | undefined;

  constructor() {
    this.worker = new Worker(new URL('./preparer-thread.mjs', import.meta.url), { resourceLimits: INGEST_HEAP });
    this.worker.on('message', (m: { id: number; batch?: PreparedBatch; error?: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.batch) w?.resolve(m.batch);
      else w?.reject(new Error(`preparing a chunk failed: ${m.error}`));
    });
    const fail = (error: Error) => {
      this.failure = error;
      for (const w of this.waiting.values()) w.reject(error);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the preparer thread exited with code ${code}`)));
    // Idle between chunks, it must not keep the process alive.
    this.worker.unref();
  }

  prepare(reading: Reading, limits: EventLimits, topic: string, partition: number, messages: readonly ChunkMessage[]): Promise<PreparedBatch> {
    if (this.failure) return Promise.reject(this.failure);
    let size = 0;
    for (const m of messages) size += m.value?.byteLength ?? 0;
    const bytes = new Uint8Array(size);
    const ends = new Int32Array(messages.length);
    let at = 0;
    messages.forEach((m, i) => {
      if (m.value === null) return void (ends[i] = -1);
      bytes.set(m.value, at);
      ends[i] = at += m.value.byteLength;
    });
    const id = this.nextId++;
    const packed: Packed = { id, reading: { format: reading.format, mapping: reading.mapping }, limits: { ...limits }, topic, partition, offsets: messages.map((m) => m.offset), bytes, ends };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage(packed, [bytes.buffer, ends.buffer]);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

/** The thread's side (preparer-thread.mjs calls it). */
export function runPreparer(): void {
  const mapperOf = mapperCache();
  parentPort!.on('message', (p: Packed) => {
    try {
      const buffer = Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength);
      const messages: ChunkMessage[] = [];
      let start = 0;
      for (let i = 0; i < p.offsets.length; i++) {
        const end = p.ends[i]!;
        if (end < 0) messages.push({ offset: p.offsets[i]!, value: null });
        else messages.push({ offset: p.offsets[i]!, value: buffer.subarray(start, (start = end)) });
      }
      const batch = prepareBatch(chunkBatch(mapperOf(p.reading), p.topic, p.partition, messages), p.limits);
      // A refused message keeps its bytes: copied out, or the whole chunk's buffer would travel back with it.
      const rejected = batch.rejected.map((r) => (r.raw ? { ...r, raw: Buffer.from(r.raw) } : r));
      parentPort!.postMessage({ id: p.id, batch: { ...batch, rejected } });
    } catch (error) {
      parentPort!.postMessage({ id: p.id, error: (error as Error).message });
    }
  });
}
