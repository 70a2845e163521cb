import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../connectors/simulator/index.js';
import { recompute, tallyToJson, type WireEvent } from '../../engine/index.js';
import { caseFold, choiceValue, FOLDS, numberBin } from '../../engine/tally.js';
import { freshStore } from '../engine/helpers.js';

/**
 * The reading's counters (decision tables, shared resources, last events)
 * obey the engine's key property like every other counter: whatever the
 * arrival order, duplication or batch split, the store equals the oracle.
 */
const logs = new Map<string, WireEvent[]>(
  ['claims', 'helpdesk', 'order-to-cash'].map((m) => [m, [...simulate({ model: m, cases: 40, seed: 3, lateShare: 0.1, duplicateShare: 0.05 })]]),
);

describe('reading counters: incremental == oracle', () => {
  it('holds for shuffled, duplicated simulated logs in random batches', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('claims', 'helpdesk', 'order-to-cash'),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 8 }),
        (model, seed, cuts) => {
          const log = logs.get(model)!;
          const arrival = shuffle([...log, ...log.filter((_, i) => i % 7 === 0)], seed);
          const store = freshStore();
          const points = [...new Set(cuts.map((c) => c % arrival.length))].sort((a, b) => a - b);
          let from = 0;
          for (const p of [...points, arrival.length]) {
            if (p > from) store.apply({ records: arrival.slice(from, p) });
            from = p;
          }
          const incremental = tallyToJson(store.snapshot().tally) as Record<string, unknown[]>;
          const oracle = tallyToJson(recompute(log)) as Record<string, unknown[]>;
          expect(incremental).toEqual(oracle);
          expect(incremental.choices!.length).toBeGreaterThan(0);
          expect(incremental.lastEvents!.length).toBeGreaterThan(0);
          expect(incremental.firstEvents!.length).toBeGreaterThan(0);
          expect(incremental.sameResource!.length).toBeGreaterThan(0);
          store.close();
        },
      ),
      { numRuns: 12 },
    );
  });
});

function shuffle<T>(items: T[], seed: number): T[] {
  let s = seed >>> 0 || 1;
  for (let i = items.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

describe('counted attribute values', () => {
  it('bins numbers on the 1-2-5 scale', () => {
    expect([0, 1, 1.99, 2, 4.9, 5, 9.99, 10, 10000, 19999, 20000, 0.03, 0.07].map(numberBin)).toEqual([0, 1, 1, 2, 2, 5, 5, 10, 10000, 10000, 20000, 0.02, 0.05]);
    expect([-1, -3, -10000].map(numberBin)).toEqual([-2, -5, -20000]);
  });

  it('bins any number as the plain 1-2-5 formula does (the memoised bins and labels change nothing)', () => {
    // The formula, computed afresh per call.
    const plainBin = (v: number): number => {
      if (v === 0 || !Number.isFinite(v)) return 0;
      const a = Math.abs(v);
      let e = Math.floor(Math.log10(a));
      if (10 ** e > a) e -= 1;
      if (10 ** (e + 1) <= a) e += 1;
      const m = a / 10 ** e;
      const steps = [1, 2, 5, 10];
      const i = m >= 5 ? 2 : m >= 2 ? 1 : 0;
      const round = (x: number) => Number(x.toPrecision(12));
      return v > 0 ? round(steps[i]! * 10 ** e) : -round(steps[i + 1]! * 10 ** e);
    };
    const numbers = fc.oneof(fc.double(), fc.integer({ min: -1e6, max: 1e6 }), fc.constantFrom(1, 2, 5, 10, 0.2, 0.5, -2, -5, 1e-300, 5e-324));
    fc.assert(
      fc.property(numbers, (v) => {
        expect(numberBin(v)).toBe(plainBin(v));
        expect(choiceValue(v)).toBe(`n:${plainBin(v)}`);
        // Decimal text counts as the number it spells.
        if (/^-?\d+(\.\d+)?$/.test(String(v))) expect(choiceValue(String(v))).toBe(`n:${plainBin(v)}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps short strings and booleans, leaves ids and long text out', () => {
    expect(choiceValue('high')).toBe('s:high');
    expect(choiceValue(true)).toBe('b:true');
    expect(choiceValue(12_345)).toBe('n:10000');
    expect(choiceValue('CL-000123')).toBeUndefined();
    expect(choiceValue('2025-01-06')).toBeUndefined();
    expect(choiceValue('x'.repeat(41))).toBeUndefined();
    expect(choiceValue('')).toBeUndefined();
  });

  it('folds a case by a stable hash of its id', () => {
    expect(caseFold('CL-000001')).toBe(caseFold('CL-000001'));
    const folds = new Set(Array.from({ length: 100 }, (_, i) => caseFold(`c${i}`)));
    expect([...folds].sort()).toEqual(Array.from({ length: FOLDS }, (_, i) => i));
  });
});
