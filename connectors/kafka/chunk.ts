import type { Batch, Rejection } from '../../engine/index.js';
import type { MessageMapper } from './mapping.js';

/** What a chunk needs of a Kafka message. */
export interface ChunkMessage {
  offset: string;
  value: Buffer | null;
}

/**
 * The batch of a chunk of one partition's messages: each message mapped to a
 * wire record with its location and bytes, or refused with its bytes (a dead
 * letter). The bytes are views of the fetch: a batch posted to another thread
 * copies a refused record's bytes out first (consumer-thread.ts).
 */
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
