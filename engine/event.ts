import { hash } from 'node:crypto';
import { z } from 'zod';
import { parseIsoMillis } from './time.js';

/**
 * The wire event: the one JSON form events take everywhere (HTTP ingestion,
 * Kafka, NDJSON files). Everything that enters the engine passes here.
 */
export const attributeValueSchema = z.union([z.string(), z.number().refine(Number.isFinite, 'must be finite'), z.boolean()]);

export const objectRefSchema = z.strictObject({
  id: z.string().min(1),
  type: z.string().min(1),
  qualifier: z.string().optional(),
});

const MIN_TIME = Date.UTC(1, 0, 1);
const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export const timestampSchema = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const millis = typeof value === 'number' ? Math.floor(value) : parseIsoMillis(value);
  if (!Number.isFinite(millis) || millis < MIN_TIME || millis > MAX_TIME) {
    ctx.addIssue({ code: 'custom', message: 'expected an ISO 8601 time or epoch milliseconds' });
    return z.NEVER;
  }
  return millis;
});

const nonBlank = z.string().refine((s) => s.trim().length > 0, 'must not be empty');

export const wireEventSchema = z.strictObject({
  caseId: nonBlank,
  activity: nonBlank,
  timestamp: timestampSchema,
  eventId: nonBlank.optional(),
  resource: z.string().optional(),
  attributes: z.record(z.string(), attributeValueSchema).optional(),
  objects: z.array(objectRefSchema).optional(),
});

export type WireEvent = z.input<typeof wireEventSchema>;
export type AttributeValue = z.infer<typeof attributeValueSchema>;
export type ObjectRef = z.infer<typeof objectRefSchema>;

/** A validated event as the engine holds it. */
export interface Event {
  /** Identity used for de-duplication: `i:` + eventId, or `h:` + content digest when there is none. */
  readonly key: string;
  /** Digest of the whole content (including eventId); decides between two bodies sent under one id. */
  readonly digest: string;
  readonly caseId: string;
  readonly activity: string;
  /** Epoch milliseconds. */
  readonly time: number;
  readonly resource?: string;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly objects: readonly ObjectRef[];
}

export type EventCheck = { ok: true; event: Event } | { ok: false; reason: string };

/** `unknown` in, a typed event or the reason it was refused out. Never throws. */
export function checkEvent(input: unknown): EventCheck {
  const quick = quickParse(input);
  return quick ? { ok: true, event: makeEvent(quick) } : checkEventWithSchema(input);
}

/** checkEvent through the zod schema alone: the definition quickParse must agree with (tests hold them equal). */
export function checkEventWithSchema(input: unknown): EventCheck {
  const parsed = wireEventSchema.safeParse(input);
  if (!parsed.success) {
    const reason = parsed.error.issues
      .map((issue) => `${issue.path.length ? issue.path.join('.') : 'event'}: ${issue.message}`)
      .join('; ');
    return { ok: false, reason };
  }
  const w = parsed.data;
  return { ok: true, event: makeEvent(w) };
}

interface EventFields {
  caseId: string;
  activity: string;
  timestamp: number;
  eventId?: string;
  resource?: string;
  attributes?: Record<string, AttributeValue>;
  objects?: ObjectRef[];
}

const WIRE_KEYS = new Set(['caseId', 'activity', 'timestamp', 'eventId', 'resource', 'attributes', 'objects']);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNonBlank = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

function wireTime(v: unknown): number | undefined {
  const millis = typeof v === 'number' ? Math.floor(v) : typeof v === 'string' ? parseIsoMillis(v) : Number.NaN;
  return Number.isFinite(millis) && millis >= MIN_TIME && millis <= MAX_TIME ? millis : undefined;
}

/**
 * The wire schema checked by hand for what nearly every event looks like:
 * zod costs more than all the rest of validating an event, and this runs for
 * every event of every import and stream. It only ever accepts what the schema
 * accepts, with the same result; anything else (including every invalid
 * event) is left to the schema, which also words the reasons.
 */
function quickParse(input: unknown): EventFields | undefined {
  if (!isRecord(input)) return undefined;
  for (const key in input) if (!WIRE_KEYS.has(key) || !Object.hasOwn(input, key)) return undefined;
  const { caseId, activity, eventId, resource, attributes, objects } = input;
  const timestamp = wireTime(input.timestamp);
  if (!isNonBlank(caseId) || !isNonBlank(activity) || timestamp === undefined) return undefined;
  if ((eventId !== undefined && !isNonBlank(eventId)) || (resource !== undefined && typeof resource !== 'string')) return undefined;
  const fields: EventFields = { caseId, activity, timestamp };
  if (eventId !== undefined) fields.eventId = eventId;
  if (resource !== undefined) fields.resource = resource;
  if (attributes !== undefined) {
    if (!isRecord(attributes)) return undefined;
    for (const name in attributes) {
      const v = attributes[name];
      if (name === '__proto__' || !Object.hasOwn(attributes, name)) return undefined;
      if (typeof v !== 'string' && typeof v !== 'boolean' && !(typeof v === 'number' && Number.isFinite(v))) return undefined;
    }
    fields.attributes = attributes as Record<string, AttributeValue>;
  }
  if (objects !== undefined) {
    if (!Array.isArray(objects)) return undefined;
    for (const o of objects as unknown[]) {
      if (!isRecord(o) || typeof o.id !== 'string' || !o.id || typeof o.type !== 'string' || !o.type) return undefined;
      if (o.qualifier !== undefined && typeof o.qualifier !== 'string') return undefined;
      for (const key in o) if ((key !== 'id' && key !== 'type' && key !== 'qualifier') || !Object.hasOwn(o, key)) return undefined;
    }
    fields.objects = objects as ObjectRef[];
  }
  return fields;
}

function sortedEntries<T>(record: Record<string, T>): [string, T][] {
  return Object.keys(record)
    .sort()
    .map((k) => [k, record[k] as T]);
}

function makeEvent(w: EventFields): Event {
  const attributes = w.attributes ? sortedAttributes(w.attributes) : {};
  const objects = w.objects?.length
    ? w.objects
        .map((o) => (o.qualifier === undefined ? { id: o.id, type: o.type } : { id: o.id, type: o.type, qualifier: o.qualifier }))
        .sort((a, b) => cmp(a.type, b.type) || cmp(a.id, b.id) || cmp(a.qualifier ?? '', b.qualifier ?? ''))
    : NO_OBJECTS;
  // One-shot hash: about three times cheaper than createHash for short inputs.
  const digest = hash('sha256', canonicalJson(w, attributes, objects)).slice(0, 32);
  const key = w.eventId !== undefined ? `i:${w.eventId}` : `h:${digest}`;
  // Two literals rather than a spread: the spread builds a second object per event.
  return w.resource === undefined
    ? { key, digest, caseId: w.caseId, activity: w.activity, time: w.timestamp, attributes, objects }
    : { key, digest, caseId: w.caseId, activity: w.activity, time: w.timestamp, attributes, objects, resource: w.resource };
}

/** The objects of an event that has none: one frozen array for all of them. */
const NO_OBJECTS: readonly ObjectRef[] = Object.freeze([]);

/** The attributes with their names in sorted order (a copy: the wire object is the caller's). */
function sortedAttributes(from: Record<string, AttributeValue>): Record<string, AttributeValue> {
  const names = Object.keys(from);
  // `__proto__` is a name like any other, which plain assignment would not create.
  if (names.includes('__proto__')) return Object.fromEntries(sortedEntries(from));
  let sorted = true;
  for (let i = 1; i < names.length && sorted; i++) sorted = names[i - 1]! < names[i]!;
  if (!sorted) names.sort();
  const out: Record<string, AttributeValue> = {};
  for (const name of names) out[name] = from[name]!;
  return out;
}

/**
 * The text the digest is taken of: JSON of [eventId, caseId, activity,
 * millis, resource, attribute entries, objects as [type, id, qualifier]].
 */
function canonicalJson(w: EventFields, attributes: Readonly<Record<string, AttributeValue>>, objects: readonly ObjectRef[]): string {
  return JSON.stringify([
    w.eventId ?? null,
    w.caseId,
    w.activity,
    w.timestamp,
    w.resource ?? null,
    Object.entries(attributes),
    objects.map((o) => [o.type, o.id, o.qualifier ?? null]),
  ]);
}

/** The wire form of an event (what `checkEvent` would accept back). */
export function toWire(event: Event): WireEvent {
  const wire: WireEvent = { caseId: event.caseId, activity: event.activity, timestamp: new Date(event.time).toISOString() };
  if (event.key.startsWith('i:')) wire.eventId = event.key.slice(2);
  if (event.resource !== undefined) wire.resource = event.resource;
  if (Object.keys(event.attributes).length) wire.attributes = { ...event.attributes };
  if (event.objects.length) wire.objects = event.objects.map((o) => ({ ...o }));
  return wire;
}

/** Plain string order (code units), the same on every machine and locale. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The order of events inside a case: by time, then by key. The key makes ties
 * independent of arrival order; importers give file events zero-padded ordinal
 * ids so that ties keep file order, as pm4py's stable sort does.
 */
export function compareEvents(a: { time: number; key: string }, b: { time: number; key: string }): number {
  return a.time - b.time || cmp(a.key, b.key);
}
