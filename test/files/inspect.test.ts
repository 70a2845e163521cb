import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkEvent } from '../../engine/index.js';
import { lightCheck } from '../../connectors/files/index.js';

describe('lightCheck', () => {
  it('gives the engine check’s verdict on records shaped like the XES and CSV readers’', () => {
    const text = fc.oneof(fc.constantFrom('', ' ', '\t', 'A', ' a '), fc.string({ maxLength: 6 }));
    const time = fc.oneof(
      fc.double({ noNaN: false }),
      fc.integer({ min: -62_200_000_000_000, max: 253_500_000_000_000 }),
      fc.constantFrom(Date.UTC(1, 0, 1), Date.UTC(1, 0, 1) - 1, Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 1, Number.NaN, Infinity),
    );
    fc.assert(
      fc.property(text, text, time, fc.boolean(), (caseId, activity, timestamp, withResource) => {
        const record: Record<string, unknown> = { caseId, activity, timestamp, eventId: 'abc:0000000001', attributes: { n: 1, s: 'x', b: true } };
        if (withResource) record.resource = 'r';
        expect(lightCheck(record) === undefined).toBe(checkEvent(record).ok);
      }),
      { numRuns: 500 },
    );
  });
});
