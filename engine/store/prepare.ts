import { checkEvent, EVENT_LIMIT_NAMES, withinBytes, type Event, type EventLimits } from '../event.js';
import { packBody } from './trace-codec.js';
import type { Batch, ObjectRecord, ObjectRelation, Rejection } from './types.js';

/**
 * A batch past validation: what `ProjectStore.apply` does before it touches
 * the state. It depends on nothing stored, only on the records and the event
 * limits, so it can run anywhere, in particular on another thread while the
 * store writes the batch before (see connectors/files/reader-thread.ts): on a
 * 2-core machine that is the second core working on ingest.
 */
export interface PreparedBatch {
  readonly prepared: true;
  /** Valid events, one per key (the smallest digest of the batch's bodies under it), in the order their keys first came. */
  readonly events: readonly Event[];
  /** Where each event's record came from (its line, element or offset), for a refusal the store makes later (object types). */
  readonly locations: readonly string[];
  /** Each event's stored body (packBody), computed with it. */
  readonly bodies: readonly string[];
  /** Records refused by the reader or by validation, in the batch's order: each becomes a dead letter. */
  readonly rejected: readonly Rejection[];
  /** Records whose key came again later in the same batch. */
  readonly duplicates: number;
  readonly objects: readonly ObjectRecord[];
  readonly relations: readonly ObjectRelation[];
  /** Records of the batch as it came (valid or not). */
  readonly records: number;
  /** Records plus reader rejections of the batch as it came: what a file position counts. */
  readonly items: number;
}

/**
 * Validates a batch under the limits; never throws for bad input (an invalid record is a rejection). Without
 * `withBodies` the bodies are left empty (a reader that keeps no rows, MemoryProject, does not pay for packing them).
 */
export function prepareBatch(batch: Batch, limits: EventLimits, withBodies = true): PreparedBatch {
  const rejected: Rejection[] = batch.rejected ? [...batch.rejected] : [];
  const incoming = new Map<string, { event: Event; at: number }>();
  let duplicates = 0;
  const { records } = batch;
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    const checked = checkEvent(record, limits);
    if (!checked.ok) {
      const raw = batch.raws?.[i];
      rejected.push({ location: batch.locations?.[i] ?? `record ${i + 1}`, reason: checked.reason, payload: safeJson(record), ...(raw ? { raw } : {}) });
      continue;
    }
    const e = checked.event;
    const seen = incoming.get(e.key);
    if (seen) duplicates += 1;
    if (!seen || e.digest < seen.event.digest) incoming.set(e.key, { event: e, at: i });
  }
  // Object records and relations (an OCEL file's) hold ids too: one over the id limit is refused as an event would be.
  const max = limits.idBytes;
  const within = (location: string, what: string, item: object, ...texts: string[]) => {
    if (texts.every((t) => withinBytes(t, max))) return true;
    rejected.push({ location, reason: `limit ${EVENT_LIMIT_NAMES.idBytes}: ${what} may have at most ${max} bytes`, payload: safeJson(item) });
    return false;
  };
  const objects = (batch.objects ?? []).filter((o, i) => within(`object ${i + 1}`, 'an object id or type', o, o.id, o.type));
  const relations = (batch.objectRelations ?? []).filter((r, i) => within(`object relation ${i + 1}`, 'each id and qualifier of an object relation', r, r.fromId, r.toId, r.qualifier));
  const events: Event[] = [];
  const locations: string[] = [];
  for (const { event, at } of incoming.values()) {
    events.push(event);
    locations.push(batch.locations?.[at] ?? `record ${at + 1}`);
  }
  return {
    prepared: true,
    events,
    locations,
    bodies: withBodies ? events.map(packBody) : [],
    rejected,
    duplicates,
    objects,
    relations,
    records: records.length,
    items: records.length + (batch.rejected?.length ?? 0),
  };
}

export function isPrepared(batch: Batch | PreparedBatch): batch is PreparedBatch {
  return (batch as PreparedBatch).prepared === true;
}

export function safeJson(value: unknown): string {
  try {
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    // Nested too deep for JSON.stringify: String() would recurse as deep (an array) or throw (an object with its own toString key).
    return '(not kept: the record is nested too deeply to write as JSON)';
  }
}
