import { EDGE_TEXT, nestedJson, type Prng, textOfBytes } from '../../tools/fuzz.js';
import { LIMITS } from './world.js';

/**
 * Events for the HTTP fuzz: valid wire events of a small pool of cases,
 * activities and ids, and one change to one event at a time — wrong types,
 * missing and unknown fields, each limit just under and over, odd timestamps,
 * edge text, deep nesting, names that are properties of every object — with
 * the fate the change decides (accepted, or rejected for a reason) where it
 * decides one.
 */

const ACTIVITIES = ['a', 'b', 'c', 'd', 'Ship goods', 'Prüfen', '発送'];
const TIMES: readonly unknown[] = [
  '2024-02-30T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '+010000-01-01T00:00:00Z',
  '2024-01-01T00:00:00+25:00',
  '2024-01-01 10:00',
  '2024-01-01',
  '  2024-01-01T00:00:00Z',
  'yesterday',
  '',
  '1704067200000',
  1704067200000.5,
  -62135596800001,
  253402300800000,
  1e21,
  -0,
  0,
  true,
  null,
  [],
  {},
];
export const WRONG: readonly unknown[] = [null, true, false, 0, -1, 1.5, 1e308, [], [1], {}, { a: 1 }, '', ' ', '\u0000'];

/** A valid wire event of a small pool of cases, activities and ids. */
const event = (rng: Prng): Record<string, unknown> => {
  const e: Record<string, unknown> = {
    caseId: `f${rng.int(30)}`,
    activity: rng.pick(ACTIVITIES),
    timestamp: new Date(Date.UTC(2024, 5, 1) + rng.int(500_000) * 60_000).toISOString(),
  };
  if (rng.chance(0.85)) e.eventId = `fz-${rng.word(8)}`;
  if (rng.chance(0.3)) e.resource = rng.pick(['ann', 'bob', 'cy']);
  if (rng.chance(0.5)) e.attributes = { region: rng.pick(['north', 'south']), amount: rng.int(1000), ...(rng.chance(0.3) ? { role: rng.pick(['clerk', 'lead']) } : {}) };
  if (rng.chance(0.1)) e.objects = [{ id: `o${rng.int(5)}`, type: 'order', qualifier: 'main' }];
  return e;
};
/** `n` events, now and then one of those `sent` before (a duplicate, or a new body under a known id); new ones join `sent`. */
export const batch = (sent: Record<string, unknown>[], rng: Prng, n: number) =>
  Array.from({ length: n }, () => {
    if (sent.length && rng.chance(0.08)) {
      const old = { ...rng.pick(sent) };
      if (rng.chance(0.3)) old.activity = rng.pick(ACTIVITIES);
      return old;
    }
    const e = event(rng);
    if (sent.length < 500) sent.push(e);
    return e;
  });

/** Marks inside an event that serialize() swaps for raw JSON text (nesting too deep for JSON.stringify, keys JSON.stringify cannot write). */
export const RAW = new Map<string, string>();
let rawNo = 0;
const raw = (json: string): string => {
  const mark = `\u0001raw${++rawNo}\u0001`;
  RAW.set(mark, json);
  return mark;
};
export const serialize = (value: unknown, indent?: number): string => {
  let text = JSON.stringify(value, null, indent);
  for (const [mark, json] of RAW) {
    const quoted = JSON.stringify(mark);
    if (text.includes(quoted)) text = text.split(quoted).join(json);
  }
  return text;
};

/** One change to one event; what it was, and whether it decides the record's fate (accepted, or rejected for a reason). */
export const mutateEvent = (rng: Prng, e: Record<string, unknown>): { what: string; fate?: true | RegExp; replace?: string } => {
  const kind = rng.weighted([
    ['wrong-type', 3],
    ['missing', 1],
    ['unknown-field', 1],
    ['limit-id', 3],
    ['limit-activity', 2],
    ['limit-value', 2],
    ['limit-attributes', 2],
    ['timestamp', 2],
    ['unicode', 3],
    ['deep', 2],
    ['names', 2],
  ] as const);
  const units = ['x', 'é', '€', '\ud83d\ude00'];
  switch (kind) {
    case 'wrong-type': {
      const field = rng.pick(['caseId', 'activity', 'timestamp', 'eventId', 'resource', 'attributes', 'objects']);
      const value = rng.pick(WRONG);
      e[field] = value;
      const decided = (field === 'caseId' || field === 'activity') && typeof value !== 'string';
      return { what: `${field}=${JSON.stringify(value)}`, ...(decided ? { fate: new RegExp(field) } : {}) };
    }
    case 'missing': {
      const field = rng.pick(['caseId', 'activity', 'timestamp']);
      delete e[field];
      return { what: `no ${field}`, fate: new RegExp(field) };
    }
    case 'unknown-field':
      e[`x_${rng.word(4)}`] = 1;
      return { what: 'unknown field', fate: /Unrecognized key/ };
    case 'limit-id': {
      const over = rng.chance(0.5);
      const bytes = LIMITS.limitIdBytes + (over ? rng.between(1, 4) : -rng.between(0, 2));
      const text = textOfBytes(bytes, rng.pick(units));
      const field = rng.pick(['caseId', 'eventId', 'resource', 'object id', 'attribute name']);
      if (field === 'object id') e.objects = [{ id: text, type: 'order' }];
      else if (field === 'attribute name') e.attributes = { [text]: 1 };
      else e[field] = text;
      return { what: `${field} of ${bytes} bytes`, fate: over ? /limit PCG_LIMIT_ID_BYTES/ : true };
    }
    case 'limit-activity': {
      const over = rng.chance(0.5);
      const bytes = LIMITS.limitActivityBytes + (over ? rng.between(1, 4) : -rng.between(0, 2));
      e.activity = textOfBytes(bytes, rng.pick(units));
      return { what: `activity of ${bytes} bytes`, fate: over ? /^activity: limit PCG_LIMIT_ACTIVITY_BYTES/ : true };
    }
    case 'limit-value': {
      const over = rng.chance(0.5);
      const bytes = LIMITS.limitAttributeValueBytes + (over ? rng.between(1, 4) : -rng.between(0, 2));
      e.attributes = { note: textOfBytes(bytes, rng.pick(units)) };
      return { what: `attribute value of ${bytes} bytes`, fate: over ? /^attributes\.note: limit PCG_LIMIT_ATTRIBUTE_VALUE_BYTES/ : true };
    }
    case 'limit-attributes': {
      const n = LIMITS.limitAttributesPerEvent + rng.between(-1, 2);
      e.attributes = Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
      return { what: `${n} attributes`, fate: n > LIMITS.limitAttributesPerEvent ? /^attributes: limit PCG_LIMIT_ATTRIBUTES_PER_EVENT/ : true };
    }
    case 'timestamp': {
      const value = rng.pick(TIMES);
      e.timestamp = value;
      return { what: `timestamp ${JSON.stringify(value)}` };
    }
    case 'unicode': {
      const text = rng.chance(0.5) ? rng.pick(EDGE_TEXT) : `${rng.word(2)}${rng.pick(EDGE_TEXT)}${rng.word(2)}`;
      const field = rng.pick(['caseId', 'activity', 'resource', 'eventId', 'attribute value', 'attribute name', 'object type']);
      if (field === 'attribute value') e.attributes = { note: text };
      else if (field === 'attribute name') e.attributes = { [text]: 'v' };
      else if (field === 'object type') e.objects = [{ id: 'o1', type: text }];
      else e[field] = text;
      // NUL (the counters' keys join names with it) and lone surrogates (not Unicode) are refused in any text of an event.
      const unfit = text.includes('\u0000') || !(text as string & { isWellFormed(): boolean }).isWellFormed();
      return { what: `${field} ${JSON.stringify(text)}`, ...(unfit ? { fate: /must not contain (NUL|a lone surrogate)/ } : {}) };
    }
    case 'deep': {
      const depth = rng.pick([8, 64, 700, 2000, 4000]);
      const where = rng.pick(['attribute', 'objects', 'record', 'record with toString']);
      const json = rng.chance(0.5) ? nestedJson(depth) : nestedJson(depth, '1', '{"a":', '}');
      if (where === 'attribute') e.attributes = { deep: raw(json) };
      else if (where === 'objects') e.objects = raw(json);
      else if (where === 'record') return { what: `record nested ${depth} deep`, fate: /./, replace: raw(json) };
      else {
        Object.defineProperty(e, 'toString', { value: 1, enumerable: true, writable: true, configurable: true });
        e.attributes = { deep: raw(json) };
      }
      return { what: `${where} nested ${depth} deep`, fate: /./ };
    }
    case 'names': {
      const name = rng.pick(['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype', '__defineGetter__']);
      const field = rng.pick(['caseId', 'activity', 'resource', 'attribute name', 'attribute value', 'role value', 'eventId']);
      if (field === 'attribute name') {
        // A key JSON.stringify would drop or that would set the prototype: written as raw JSON.
        e.attributes = raw(`{${JSON.stringify(name)}:"v","region":"north"}`);
      } else if (field === 'attribute value') e.attributes = { region: name };
      else if (field === 'role value') e.attributes = { role: name, team: name };
      else e[field] = name;
      return { what: `${field} ${name}` };
    }
  }
};
