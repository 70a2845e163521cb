import { describe, expect, it } from 'vitest';
import { parseTree, replayVariants, variantLog } from '../../engine/mining/index.js';

const replay = (tree: string, rows: [string, number][]) => {
  const { log, labels, keys } = variantLog(new Map(rows.map(([p, n]) => [JSON.stringify(p ? p.split(',') : []), n])));
  const r = replayVariants(parseTree(tree), log, labels);
  return { ...r, byPath: Object.fromEntries(keys.map((k, i) => [(JSON.parse(k) as string[]).join(','), r.accepted[i]])) };
};

describe('language membership', () => {
  it('follows sequence, choice, loop and parallel exactly', () => {
    const r = replay("->( 'a', *( +( 'b', 'c' ), 'd' ), X( 'e', tau ) )", [
      ['a,b,c', 1],
      ['a,c,b,e', 2],
      ['a,b,c,d,c,b', 3],
      ['a,b,c,d,b,c,d,c,b,e', 4],
      ['a,b', 5],
      ['a,b,c,d', 6],
      ['a,b,d,c', 7],
      ['', 8],
    ]);
    expect(r.byPath).toEqual({
      'a,b,c': true,
      'a,c,b,e': true,
      'a,b,c,d,c,b': true,
      'a,b,c,d,b,c,d,c,b,e': true,
      'a,b': false,
      'a,b,c,d': false,
      'a,b,d,c': false,
      '': false,
    });
    expect(r.acceptedCases).toBe(1 + 2 + 3 + 4);
    expect(r.cases).toBe(36);
  });

  it('handles silent loops and a parallel of skippable branches', () => {
    const r = replay("+( X( 'a', tau ), *( tau, 'b' ), X( 'c', tau ) )", [['', 1], ['b,b,a,b,c', 1], ['c,a', 1], ['a,a', 1]]);
    expect(r.byPath).toEqual({ '': true, 'b,b,a,b,c': true, 'c,a': true, 'a,a': false });
  });

  it('measures escaping-edges precision as pm4py counts it', () => {
    // Prefixes: <> (1 case) allows {a}, log {a}; <a> (1 case) allows {b, c}, log {b}: 1 escaping of 3 allowed.
    const r = replay("->( 'a', X( 'b', 'c' ) )", [['a,b', 1]]);
    expect(r.precision).toBeCloseTo(1 - 1 / 3, 12);
    // Flower over {a, b}: 2 allowed at each of the 2 prefixes, 1 escaping at each.
    expect(r.flowerPrecision).toBeCloseTo(0.5, 12);
    // Prefixes the model cannot replay are left out; a perfect model is 1.
    expect(replay("->( 'a', 'b' )", [['a,b', 3], ['b,a', 1]]).precision).toBeCloseTo(1 - 0 / 4, 12);
  });
});

describe('the replay walk', () => {
  it('gives the same acceptance and precision whether the keys come sorted (walked as they come) or not (sorted first)', () => {
    // Labels with characters below the quote and prefixes of one another: the sorted keys still keep traces with a shared prefix together.
    const paths = ['a', 'a b', 'a,b', 'a,b,c', 'a b,a', 'a,a b,c', 'b!,a', 'b', 'a,c', 'a,b,a', 'ab,a', 'a,ab'];
    const rows = paths.map((p, i) => [JSON.stringify(p.split(',')), i + 1] as [string, number]);
    const tree = parseTree("->( X( 'a', 'a b', 'b!', 'b' ), *( X( tau, 'b', 'c', 'a' ), 'a b' ) )");
    const sorted = new Map([...rows].sort((x, y) => (x[0] < y[0] ? -1 : 1)));
    const shuffled = new Map([...rows].reverse());
    const of = (m: Map<string, number>) => {
      const { log, labels, keys } = variantLog(m);
      const r = replayVariants(tree, log, labels);
      return { precision: r.precision, flower: r.flowerPrecision, accepted: Object.fromEntries(keys.map((k, i) => [k, r.accepted[i]])), cases: r.acceptedCases };
    };
    const a = of(sorted);
    expect(of(shuffled)).toEqual(a);
    expect(a.precision).toBeGreaterThan(0);
    expect(a.precision).toBeLessThan(1);
    expect(a.cases).toBeGreaterThan(0);
  });
});
