import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hash } from 'node:crypto';
import { checkEvent, checkEventWithSchema, type Event } from '../../engine/event.js';

/**
 * checkEvent takes a hand-written path for ordinary events and the zod schema
 * for the rest: for any input at all, both must give the same answer.
 */
const text = fc.oneof(fc.constantFrom('', ' ', 'a', 'Create Order', '__proto__', 'constructor'), fc.string({ maxLength: 6 }));
const time = fc.oneof(
  fc.constantFrom('2025-01-06T09:00:00Z', '2025-01-06T09:00:00.123Z', '2025-01-06 09:00', '2025-02-30T00:00:00Z', '2025-01-06T09:00:00+02:00', 'yesterday', ''),
  fc.integer({ min: -70_000_000_000_000, max: 300_000_000_000_000 }),
  fc.constantFrom(1.5, Number.NaN, Number.POSITIVE_INFINITY, -1e20),
);
const value = fc.oneof(fc.string({ maxLength: 4 }), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.array(fc.nat(), { maxLength: 1 }));
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
      fc.constantFrom('10', '2', 'b'),
    );
    const attributeValue = fc.oneof(fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean());
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
