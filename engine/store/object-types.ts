import { EVENT_LIMIT_NAMES, toWire, type Event } from '../event.js';
import type { PreparedBatch } from './prepare.js';
import { safeJson } from './prepare.js';
import type { ObjectRecord, Rejection } from './types.js';

/**
 * The project's bound on object types (PCG_LIMIT_OBJECT_TYPES_PER_PROJECT),
 * applied to a prepared batch against the types the store already holds.
 * Types are taken in the batch's order, object records first (an OCEL file's
 * objects come with its first batch), then the events: an event or object
 * record whose new types would pass the limit is refused, as a dead letter
 * naming it, and the types it would have brought are not taken. Events
 * without objects (nearly all of a stream's) cost one length test each.
 *
 * Without it, one event of 300,000 objects across 50,000 types was accepted
 * and every later document listed 50,000 object types (26 s to build). The
 * per-event bound (PCG_LIMIT_OBJECTS_PER_EVENT, checked with the event) stops
 * one event; this one stops many small ones adding up.
 *
 * `stored` gives the store's set of types, asked only for a batch with
 * objects, and grown here with the types taken (the caller drops it when its
 * transaction fails). The batch is returned as it came when nothing is
 * refused.
 */
export function admitObjectTypes(batch: PreparedBatch, stored: () => Set<string>, limit: number): PreparedBatch {
  if (batch.objects.length === 0 && !batch.events.some((e) => e.objects.length > 0)) return batch;
  const known = stored();
  const refused: Rejection[] = [];
  /** How many new types the refused item would have brought. */
  let refusing = 0;
  const reason = (brings: number) =>
    `objects: limit ${EVENT_LIMIT_NAMES.objectTypesPerProject}: a project may have at most ${limit} object types (it has ${known.size}; this one brings ${brings} more)`;
  /** Takes the new types among `types` if they all fit; else takes none. */
  const admit = (types: Iterable<string>): boolean => {
    let fresh: Set<string> | undefined;
    for (const t of types) if (!known.has(t)) (fresh ??= new Set()).add(t);
    if (!fresh) return true;
    if (known.size + fresh.size > limit) {
      refusing = fresh.size;
      return false;
    }
    for (const t of fresh) known.add(t);
    return true;
  };
  const objects: ObjectRecord[] = [];
  batch.objects.forEach((o, i) => {
    if (admit([o.type])) objects.push(o);
    else refused.push({ location: `object ${i + 1}`, reason: reason(refusing), payload: safeJson(o) });
  });
  const events: Event[] = [];
  const locations: string[] = [];
  const bodies: string[] = [];
  batch.events.forEach((e, i) => {
    if (e.objects.length === 0 || admit(typesOf(e))) {
      events.push(e);
      locations.push(batch.locations[i]!);
      if (batch.bodies.length) bodies.push(batch.bodies[i]!);
    } else refused.push({ location: batch.locations[i]!, reason: reason(refusing), payload: safeJson(toWire(e)) });
  });
  if (refused.length === 0) return batch;
  return { ...batch, events, locations, bodies: batch.bodies.length ? bodies : [], objects, rejected: [...batch.rejected, ...refused] };
}

function* typesOf(e: Event): Iterable<string> {
  for (const o of e.objects) yield o.type;
}
