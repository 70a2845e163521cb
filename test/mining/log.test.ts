import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addPicked, addRange, addSplit, LogBuilder, type VariantLog } from '../../engine/mining/log.js';

/** The multiset a log stands for, as sorted "trace#count" rows (traces merged by content). */
function multiset(log: VariantLog): string[] {
  const m = new Map<string, number>();
  log.traces.forEach((t, v) => m.set(t.join(','), (m.get(t.join(',')) ?? 0) + log.counts[v]!));
  return [...m].map(([t, n]) => `${t}#${n}`).sort();
}

/** Naive projection: the same multiset built with plain maps, in first-seen order. */
function naive(rows: { trace: number[]; count: number }[]): VariantLog {
  const index = new Map<string, number>();
  const out: VariantLog = { traces: [], counts: [] };
  for (const { trace, count } of rows) {
    const k = trace.join(',');
    const at = index.get(k);
    if (at !== undefined) out.counts[at]! += count;
    else {
      index.set(k, out.traces.length);
      out.traces.push([...trace]);
      out.counts.push(count);
    }
  }
  return out;
}

const traces = fc.array(fc.record({ trace: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 12 }), count: fc.integer({ min: 1, max: 9 }) }), { maxLength: 300 });

describe('LogBuilder and the projections', () => {
  it('merges equal traces, keeps first-seen order, and survives its table growing', () => {
    const b = new LogBuilder();
    // 5000 distinct traces (the table rehashes many times), each added three times.
    for (let round = 0; round < 3; round++) for (let i = 0; i < 5000; i++) b.add([i % 7, Math.floor(i / 7), i], 1 + round);
    expect(b.log.traces).toHaveLength(5000);
    expect(b.log.traces[1234]).toEqual([1234 % 7, Math.floor(1234 / 7), 1234]);
    expect(new Set(b.log.counts)).toEqual(new Set([6]));
  });

  it('addPicked, addRange and addSplit give the multisets (and order) of naive projection', () => {
    fc.assert(
      fc.property(traces, fc.integer({ min: 0, max: 5 }), (rows, a) => {
        const groupOf = Int32Array.from([0, 1, 0, 1, 2, 0]);
        const picked = new LogBuilder();
        const range = new LogBuilder();
        const only = new LogBuilder();
        const rest = new LogBuilder();
        for (const { trace, count } of rows) {
          addPicked(picked, trace, 1, trace.length, groupOf, 0, count);
          addRange(range, trace, 0, Math.floor(trace.length / 2), count);
          addSplit(only, rest, trace, a, count);
        }
        const expectPicked = naive(rows.map(({ trace, count }) => ({ trace: trace.slice(1).filter((x) => groupOf[x] === 0), count })));
        const expectRange = naive(rows.map(({ trace, count }) => ({ trace: trace.slice(0, Math.floor(trace.length / 2)), count })));
        const expectOnly = naive(rows.map(({ trace, count }) => ({ trace: trace.filter((x) => x === a), count })));
        const expectRest = naive(rows.map(({ trace, count }) => ({ trace: trace.filter((x) => x !== a), count })));
        expect(picked.log).toEqual(expectPicked);
        expect(range.log).toEqual(expectRange);
        expect(only.log).toEqual(expectOnly);
        expect(rest.log).toEqual(expectRest);
        expect(multiset(rest.log)).toEqual(multiset(expectRest));
      }),
      { numRuns: 60 },
    );
  });
});
