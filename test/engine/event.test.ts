import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hash } from 'node:crypto';
import { checkEvent, checkEventWithSchema, compareEvents, sortEvents, DEFAULT_EVENT_LIMITS, eventLimits, type Event } from '../../engine/event.js';

/**
 * checkEvent takes a hand-written path for ordinary events and the zod schema
 * for the rest: for any input at all, both must give the same answer.
 */
const text = fc.oneof(fc.constantFrom('', ' ', 'a', 'Create Order', '__proto__', 'constructor', 'a\u0000b', 'x\ud800', '\udfffy', '\ud83d\ude00'), fc.string({ maxLength: 6 }));
const time = fc.oneof(
  fc.constantFrom('2025-01-06T09:00:00Z', '2025-01-06T09:00:00.123Z', '2025-01-06 09:00', '2025-02-30T00:00:00Z', '2025-01-06T09:00:00+02:00', 'yesterday', ''),
  fc.integer({ min: -70_000_000_000_000, max: 300_000_000_000_000 }),
  fc.constantFrom(1.5, Number.NaN, Number.POSITIVE_INFINITY, -1e20),
);
const value = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('x\u0000', '\ud83d', '\ud83d\ude00'), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.array(fc.nat(), { maxLength: 1 }));
const objectRef = fc.record(
  { id: text, type: text, qualifier: fc.oneof(text, fc.constant(undefined), fc.nat()), extra: fc.nat() },
  { requiredKeys: ['id', 'type'] },
);

/** A valid event with optional fields, then up to two fields swapped for any value of the kinds above. */
const validEventFields = {
  caseId: fc.constantFrom('c1', 'case 7'),
  activity: fc.constantFrom('a', 'Create Order'),
  timestamp: fc.constantFrom('2025-01-06T09:00:00.123Z', '2025-01-06 09:00', 1_736_150_400_000, 1_736_150_400_000.7),
  eventId: fc.constantFrom('e1', '00042'),
  resource: fc.constantFrom('ann', ''),
  attributes: fc.dictionary(fc.constantFrom('amount', 'region', 'z', 'a b'), fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean()), { maxKeys: 3 }),
  objects: fc.array(fc.record({ id: fc.constantFrom('o1', 'o2'), type: fc.constantFrom('order', 'item'), qualifier: fc.constantFrom('q', '') }, { requiredKeys: ['id', 'type'] }), { maxLength: 2 }),
};
const validEvent = fc.record(validEventFields, { requiredKeys: ['caseId', 'activity', 'timestamp'] });
const anyValue = fc.oneof(text, time, value, fc.dictionary(text, value, { maxKeys: 2 }), fc.array(objectRef, { maxLength: 2 }));
const field = fc.constantFrom('caseId', 'activity', 'timestamp', 'eventId', 'resource', 'attributes', 'objects', 'extra', '__proto__');
const nearEvent = fc
  .tuple(validEvent, fc.array(fc.tuple(field, anyValue), { maxLength: 2 }))
  .map(([event, changes]) => {
    const out: Record<string, unknown> = { ...event };
    for (const [k, v] of changes) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  });

describe('checkEvent', () => {
  it('agrees with the zod schema on any input', () => {
    fc.assert(
      fc.property(fc.oneof(nearEvent, nearEvent, fc.anything()), (input) => {
        expect(checkEvent(input)).toEqual(checkEventWithSchema(input));
      }),
      { numRuns: 3000 },
    );
  });

  it('treats an attribute named __proto__ as the schema does', () => {
    const input = JSON.parse('{"caseId":"c","activity":"a","timestamp":0,"attributes":{"__proto__":"x","b":1}}') as unknown;
    expect(checkEvent(input)).toEqual(checkEventWithSchema(input));
  });

  it('accepts an ordinary event and refuses a broken one with the reason', () => {
    const ok = checkEvent({ caseId: 'c1', activity: 'a', timestamp: '2025-01-06T09:00:00Z', attributes: { b: 1, a: 'x' } });
    expect(ok).toMatchObject({ ok: true, event: { caseId: 'c1', time: Date.UTC(2025, 0, 6, 9), attributes: { a: 'x', b: 1 } } });
    if (ok.ok) expect(Object.keys(ok.event.attributes)).toEqual(['a', 'b']);
    expect(checkEvent({ caseId: ' ', activity: 'a', timestamp: 0, colour: 'red' })).toEqual({
      ok: false,
      reason: 'caseId: must not be empty; event: Unrecognized key: "colour"',
    });
  });

  it('digests the same text as JSON.stringify of the canonical array (stored digests and keys stay valid)', () => {
    // Names in any order, integer-like ones included (objects list those first).
    const name = fc.oneof(
      text.filter((n) => n !== '__proto__'),
      fc.constantFrom('10', '2', 'b', 'say "hi"', 'tab\there'),
    );
    // Text JSON escapes (quotes, backslashes, control characters) and text it writes as is (U+2028, astral characters): the digest's text is written by hand.
    const escaped = fc.constantFrom('"q"', 'a\\b', 'line\nbreak', '\t', '\u001f', '\u2028', 'é€😀', '-0');
    const attributeValue = fc.oneof(fc.string(), escaped, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 1e21, 5e-324), fc.boolean());
    const withNames = fc.record(
      { ...validEventFields, attributes: fc.dictionary(name, attributeValue, { maxKeys: 4 }) },
      { requiredKeys: ['caseId', 'activity', 'timestamp'] },
    );
    fc.assert(
      fc.property(withNames, (w) => {
        const checked = checkEvent(w);
        if (!checked.ok) return;
        const e: Event = checked.event;
        const sorted = Object.fromEntries(Object.keys(w.attributes ?? {}).sort().map((k) => [k, w.attributes![k]]));
        const canonical = JSON.stringify([w.eventId ?? null, w.caseId, w.activity, e.time, w.resource ?? null, Object.entries(sorted), e.objects.map((o) => [o.type, o.id, o.qualifier ?? null])]);
        expect(e.digest).toBe(hash('sha256', canonical).slice(0, 32));
        expect(Object.entries(e.attributes)).toEqual(Object.entries(sorted));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('event limits', () => {
  // Small limits, so that fuzzed inputs cross them (multi-byte characters included: the limits count UTF-8 bytes).
  const small = eventLimits({ idBytes: 4, activityBytes: 6, attributeValueBytes: 3, attributesPerEvent: 2, objectsPerEvent: 1 });
  const wide = fc.oneof(fc.constantFrom('', 'a', 'abc', 'abcd', 'abcde', 'abcdef', 'abcdefg', 'é', 'éé', 'ééé', '日本', '😀', 'a😀', ' '), fc.string({ maxLength: 8, unit: 'binary' }));
  // Mostly within the limits, so that one field at a time crosses one.
  const text = fc.oneof({ arbitrary: fc.constantFrom('a', 'ab'), weight: 5 }, { arbitrary: wide, weight: 1 });

  it('checkEvent agrees with the zod schema on any input under any limits', () => {
    const limited = fc.record(
      {
        caseId: text,
        activity: text,
        timestamp: fc.constant(0),
        eventId: text,
        resource: text,
        attributes: fc.dictionary(text, fc.oneof(text, fc.integer(), fc.boolean()), { maxKeys: 3 }),
        objects: fc.array(fc.record({ id: text, type: text, qualifier: text }, { requiredKeys: ['id', 'type'] }), { maxLength: 2 }),
      },
      { requiredKeys: ['caseId', 'activity', 'timestamp'] },
    );
    fc.assert(
      fc.property(fc.oneof(limited, limited, nearEvent, fc.anything()), (input) => {
        expect(checkEvent(input, small)).toEqual(checkEventWithSchema(input, small));
        expect(checkEvent(input)).toEqual(checkEventWithSchema(input));
      }),
      { numRuns: 3000 },
    );
  });

  const base = { caseId: 'c1', activity: 'a', timestamp: 0 };
  const refused = (input: object, limits = small) => {
    const r = checkEvent(input, limits);
    expect(r.ok).toBe(false);
    return r.ok ? '' : r.reason;
  };

  it('refuses an event over each limit with a reason naming the limit, and accepts one at it', () => {
    expect(checkEvent({ ...base, caseId: 'abcd', activity: 'abcdef' }, small).ok).toBe(true);
    expect(refused({ ...base, caseId: 'abcde' })).toBe('caseId: limit PCG_LIMIT_ID_BYTES: a case id may have at most 4 bytes (this one has 5)');
    // Three characters, six bytes: the limits count bytes, not characters.
    expect(checkEvent({ ...base, activity: 'ééé' }, small).ok).toBe(true);
    expect(refused({ ...base, activity: 'éééé' })).toBe('activity: limit PCG_LIMIT_ACTIVITY_BYTES: an activity name may have at most 6 bytes (this one has 8)');
    expect(refused({ ...base, caseId: 'éé€' })).toMatch(/^caseId: limit PCG_LIMIT_ID_BYTES: .* \(this one has 7\)$/);
    expect(refused({ ...base, eventId: 'e-12345' })).toMatch(/^eventId: limit PCG_LIMIT_ID_BYTES: an event id/);
    expect(refused({ ...base, resource: 'annabel' })).toMatch(/^resource: limit PCG_LIMIT_ID_BYTES: a resource/);
    expect(refused({ ...base, objects: [{ id: 'order-1', type: 'o' }] })).toMatch(/^objects\.0\.id: limit PCG_LIMIT_ID_BYTES: an object id/);
    expect(refused({ ...base, objects: [{ id: 'o', type: 'order', qualifier: 'q' }] })).toMatch(/^objects\.0\.type: limit PCG_LIMIT_ID_BYTES: an object type/);
    expect(refused({ ...base, attributes: { a: 'abcd' } })).toBe('attributes.a: limit PCG_LIMIT_ATTRIBUTE_VALUE_BYTES: an attribute value may have at most 3 bytes (this one has 4)');
    expect(checkEvent({ ...base, attributes: { a: 'abc', b: 123456789 } }, small).ok).toBe(true);
    expect(refused({ ...base, attributes: { a: 1, b: 2, c: 3 } })).toBe('attributes: limit PCG_LIMIT_ATTRIBUTES_PER_EVENT: an event may have at most 2 attributes (this one has 3)');
    expect(refused({ ...base, attributes: { region: 1 } })).toBe('attributes: limit PCG_LIMIT_ID_BYTES: an attribute name may have at most 4 bytes (this one has 6)');
  });

  it('holds the defaults: 512-byte ids, 1024-byte activity names, 64 KiB values, 1000 attributes, 1000 objects, 1000 object types', () => {
    expect(DEFAULT_EVENT_LIMITS).toEqual({ idBytes: 512, activityBytes: 1024, attributeValueBytes: 65536, attributesPerEvent: 1000, objectsPerEvent: 1000, objectTypesPerProject: 1000 });
    expect(Object.isFrozen(DEFAULT_EVENT_LIMITS)).toBe(true);
    expect(checkEvent({ ...base, caseId: 'c'.repeat(512), activity: 'a'.repeat(1024), attributes: { v: 'v'.repeat(65536) } }).ok).toBe(true);
    expect(refused({ ...base, caseId: 'c'.repeat(513) }, DEFAULT_EVENT_LIMITS)).toMatch(/limit PCG_LIMIT_ID_BYTES/);
    expect(refused({ ...base, activity: 'a'.repeat(1025) }, DEFAULT_EVENT_LIMITS)).toMatch(/limit PCG_LIMIT_ACTIVITY_BYTES: an activity name may have at most 1024 bytes/);
    expect(refused({ ...base, attributes: { v: 'v'.repeat(65537) } }, DEFAULT_EVENT_LIMITS)).toMatch(/limit PCG_LIMIT_ATTRIBUTE_VALUE_BYTES/);
    const many = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`a${i}`, i]));
    expect(refused({ ...base, attributes: many }, DEFAULT_EVENT_LIMITS)).toMatch(/limit PCG_LIMIT_ATTRIBUTES_PER_EVENT: an event may have at most 1000 attributes \(this one has 1001\)/);
    const objects = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `o${i}`, type: `t${i % 7}` }));
    expect(checkEvent({ ...base, objects: objects(1000) }).ok).toBe(true);
    expect(refused({ ...base, objects: objects(1001) }, DEFAULT_EVENT_LIMITS)).toBe('objects: limit PCG_LIMIT_OBJECTS_PER_EVENT: an event may have at most 1000 objects (this one has 1001)');
  });

  it('refuses an event of 300,000 objects by counting them, and agrees with the schema on objects per event', () => {
    const limits = eventLimits({ objectsPerEvent: 2 });
    const objects = Array.from({ length: 300_000 }, (_, i) => ({ id: `o${i}`, type: `t${i % 50_000}` }));
    // Counted, not parsed one by one: its cost (about 10 ms) is measured in test/bench/inputs.ts, never timed here.
    expect(refused({ ...base, objects }, DEFAULT_EVENT_LIMITS)).toMatch(/this one has 300000\)$/);
    for (const n of [0, 1, 2, 3]) {
      const input = { ...base, objects: objects.slice(0, n) };
      expect(checkEvent(input, limits)).toEqual(checkEventWithSchema(input, limits));
    }
    expect(refused({ ...base, objects: objects.slice(0, 3) }, limits)).toBe('objects: limit PCG_LIMIT_OBJECTS_PER_EVENT: an event may have at most 2 objects (this one has 3)');
  });

  it('refuses a 10 MB activity name and 200k attributes by their size and count', () => {
    // The cost (about 0.1 s; the unbounded check took seconds) is measured in test/bench/inputs.ts: a test on a busy
    // machine waits for conditions, never for a time.
    expect(refused({ ...base, activity: 'x'.repeat(10 * 1024 * 1024) }, DEFAULT_EVENT_LIMITS)).toMatch(/this one has 10485760/);
    const attributes: Record<string, number> = {};
    for (let i = 0; i < 200_000; i++) attributes[`a${i}`] = i;
    expect(refused({ ...base, attributes }, DEFAULT_EVENT_LIMITS)).toMatch(/this one has 200000/);
  });

  it('builds limits with defaults and refuses nonsense', () => {
    expect(eventLimits({ activityBytes: 50 })).toEqual({ ...DEFAULT_EVENT_LIMITS, activityBytes: 50 });
    expect(() => eventLimits({ idBytes: -1 })).toThrow(/PCG_LIMIT_ID_BYTES/);
    expect(() => eventLimits({ attributesPerEvent: 1.5 })).toThrow(/PCG_LIMIT_ATTRIBUTES_PER_EVENT/);
    expect(() => eventLimits({ objectsPerEvent: -2 })).toThrow(/PCG_LIMIT_OBJECTS_PER_EVENT/);
    expect(() => eventLimits({ objectTypesPerProject: Number.NaN })).toThrow(/PCG_LIMIT_OBJECT_TYPES_PER_PROJECT/);
  });
});

describe('sortEvents', () => {
  it('leaves events already in case order as they are, and sorts any others as compareEvents does', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ time: fc.integer({ min: 0, max: 5 }), key: fc.constantFrom('a', 'b', 'c') }), { maxLength: 12 }), (events) => {
        const copy = [...events];
        const sorted = sortEvents(copy);
        expect(sorted).toBe(copy);
        expect(sorted).toEqual([...events].sort(compareEvents));
      }),
    );
    const inOrder = [
      { time: 1, key: 'b' },
      { time: 2, key: 'a' },
    ];
    const before = [...inOrder];
    expect(sortEvents(inOrder)).toEqual(before);
    expect(sortEvents([{ time: 2, key: 'a' }, { time: 1, key: 'b' }, { time: 1, key: 'a' }])).toEqual([
      { time: 1, key: 'a' },
      { time: 1, key: 'b' },
      { time: 2, key: 'a' },
    ]);
  });
});
