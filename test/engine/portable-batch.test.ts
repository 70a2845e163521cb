import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../connectors/simulator/index.js';
import { DEFAULT_EVENT_LIMITS, fromPortable, prepareBatch, tallyToJson, toPortable } from '../../engine/index.js';
import { freshStore } from './helpers.js';

/** A prepared batch crosses threads in its portable form: read back, it is the batch that was sent. */
describe('portable prepared batches', () => {
  const record = fc.record(
    {
      caseId: fc.constantFrom('c1', 'c2', 'ç3', '案件4'),
      activity: fc.constantFrom('a', 'b', 'Ünïcode', '"quoted"'),
      timestamp: fc.integer({ min: 0, max: 10 ** 12 }),
      eventId: fc.string({ minLength: 1, maxLength: 6 }),
      resource: fc.constantFrom('r1', 'r2', ''),
      attributes: fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string({ maxLength: 8 }), fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)), fc.boolean())),
      objects: fc.array(fc.record({ id: fc.constantFrom('o1', 'o2'), type: fc.constantFrom('order', 'item') }), { maxLength: 2 }),
    },
    { requiredKeys: ['caseId', 'activity', 'timestamp'] },
  );

  it('gives back the same events, bodies and refusals after a structured clone', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(record, fc.constant({ activity: 'no case' })), { maxLength: 40 }), (records) => {
        const batch = prepareBatch({ records }, DEFAULT_EVENT_LIMITS);
        const back = fromPortable(structuredClone(toPortable(batch)));
        expect(back.events).toEqual(batch.events);
        // Same shape too: a resource only when the event has one.
        expect(back.events.map((e) => Object.keys(e))).toEqual(batch.events.map((e) => Object.keys(e)));
        expect({ ...back, events: [] }).toEqual({ ...batch, events: [] });
      }),
      { numRuns: 300 },
    );
  });

  it('applied to a store, gives the state of the batch itself', () => {
    const records = [...simulate({ model: 'order-to-cash', cases: 300, seed: 5 })];
    const direct = freshStore();
    const crossed = freshStore();
    for (let i = 0; i < records.length; i += 500) {
      const batch = prepareBatch({ records: records.slice(i, i + 500) }, DEFAULT_EVENT_LIMITS);
      direct.apply(batch);
      crossed.apply(fromPortable(structuredClone(toPortable(batch))));
    }
    expect(crossed.snapshot().logDigest).toBe(direct.snapshot().logDigest);
    expect(tallyToJson(crossed.snapshot().tally)).toEqual(tallyToJson(direct.snapshot().tally));
    expect(crossed.eventCount()).toBe(records.length);
  });
});
