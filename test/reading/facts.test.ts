import { describe, expect, it } from 'vitest';
import { simulate } from '../../connectors/simulator/index.js';
import { variantLog } from '../../engine/mining/index.js';
import { backboneOf } from '../../engine/reading/backbone.js';
import { factsOf, type Facts } from '../../engine/reading/facts.js';
import { freshStore } from '../engine/helpers.js';

/** What the readers see of the facts, as plain data. */
function view(f: Facts) {
  const pairs: number[][] = [];
  for (const a of f.activities) for (const b of f.activities) pairs.push([f.order(a, b).both, f.order(a, b).aFirst]);
  return {
    variants: f.variants.map((v) => ({ path: v.path, end: v.end, count: v.count, ids: [...v.ids], distinct: [...v.distinct] })),
    pairs,
    backbone: backboneOf(f),
  };
}

describe('the reading facts', () => {
  const store = freshStore();
  store.apply({ records: [...simulate({ model: 'claims', cases: 400, seed: 11 })] });
  const tally = store.snapshot().tally;
  const hours = (ms: number) => ms / 3_600_000;

  it('are the same from the keys or from the parsed variants, in any key order', () => {
    const base = view(factsOf(tally, hours));
    expect(base.variants.length).toBeGreaterThan(5);
    const shuffled = { ...tally, variants: new Map([...tally.variants].reverse()) };
    const p = variantLog(shuffled.variants);
    const parsed = { traces: p.log.traces, counts: p.log.counts, labels: p.labels, keys: p.keys };
    expect(view(factsOf(shuffled, hours, parsed))).toEqual(base);
    const q = variantLog(tally.variants);
    expect(view(factsOf(tally, hours, { traces: q.log.traces, counts: q.log.counts, labels: q.labels, keys: q.keys }))).toEqual(base);
  });

  it('list variants by cases, then key, with first-occurrence order counted per pair', () => {
    const f = factsOf(tally, hours);
    for (let i = 1; i < f.variants.length; i++) expect(f.variants[i - 1]!.count).toBeGreaterThanOrEqual(f.variants[i]!.count);
    const [a, b] = backboneOf(f).steps;
    // Counted directly over the variants' label paths.
    let both = 0;
    let aFirst = 0;
    for (const v of f.variants) {
      const ia = v.path.indexOf(a!);
      const ib = v.path.indexOf(b!);
      if (ia < 0 || ib < 0) continue;
      both += v.count;
      if (ia < ib) aFirst += v.count;
    }
    expect(f.order(a!, b!)).toEqual({ both, aFirst });
    expect(both).toBeGreaterThan(0);
  });
});
