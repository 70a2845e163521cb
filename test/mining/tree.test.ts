import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTree, foldTree, leaf, node, parseTree, printTree, safeLabel, tau, treeDefect, treeLabels, type ProcessTree } from '../../engine/mining/index.js';

const treeArb: fc.Arbitrary<ProcessTree> = fc.letrec<{ tree: ProcessTree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', 'b c', 'x(1, 2)', 'τ', 'tau', '->', 'X') .map(leaf),
    fc.constant(tau()),
    fc.tuple(fc.constantFrom('sequence', 'xor', 'parallel', 'loop') as fc.Arbitrary<'sequence' | 'xor' | 'parallel' | 'loop'>, fc.array(tie('tree'), { minLength: 2, maxLength: 3 })).map(([k, c]) => node(k, c)),
  ),
})).tree;

describe('process tree text', () => {
  it('prints in pm4py syntax', () => {
    const t = node('sequence', [leaf('a'), node('xor', [leaf('b'), tau()]), node('parallel', [leaf('c'), leaf('d')]), node('loop', [leaf('e'), tau()])]);
    expect(printTree(t)).toBe("->( 'a', X( 'b', tau ), +( 'c', 'd' ), *( 'e', tau ) )");
  });

  it('parses what it prints, whatever the labels hold', () => {
    fc.assert(
      fc.property(treeArb, (t) => {
        expect(parseTree(printTree(t))).toEqual(t);
      }),
      { numRuns: 200 },
    );
  });

  it('makes quotes and line breaks in labels safe', () => {
    const t = node('sequence', [leaf("it's"), leaf('two\nlines'), leaf("('a', 'b')")]);
    const text = printTree(t);
    expect(text).toBe("->( 'it\u2019s', 'two lines', '(\u2019a\u2019, \u2019b\u2019)' )");
    expect(treeLabels(parseTree(text))).toEqual([safeLabel("it's"), 'two lines', safeLabel("('a', 'b')")]);
  });

  it('reads tau as τ too, and refuses what is not a tree', () => {
    expect(parseTree("X( 'a', τ )")).toEqual(node('xor', [leaf('a'), tau()]));
    expect(() => parseTree("->( 'a'")).toThrow(/process tree/);
    expect(() => parseTree("'a' 'b'")).toThrow(/after the tree/);
    expect(() => parseTree('O( tau, tau )')).toThrow(/expected a label/);
  });

  it('folds nested operators, single children and silent steps', () => {
    const t = node('sequence', [node('sequence', [leaf('a'), tau()]), node('xor', [tau(), node('xor', [leaf('b'), tau()])]), node('parallel', [leaf('c')])]);
    expect(printTree(foldTree(t))).toBe("->( 'a', X( tau, 'b' ), 'c' )");
  });

  it('names the first operator without children, or a loop without a redo part, by its path', () => {
    expect(treeDefect(node('sequence', [leaf('a'), node('xor', [leaf('b'), tau()]), node('loop', [leaf('c'), tau()])]))).toBeUndefined();
    expect(treeDefect(leaf('a'))).toBeUndefined();
    expect(treeDefect(node('xor', []))).toBe('/: X has no children');
    // The shape the miner used to print for an empty sublog.
    expect(treeDefect(node('sequence', [leaf('a'), node('loop', [tau(), node('xor', [])])]))).toBe('/1/1: X has no children');
    expect(treeDefect(node('xor', [leaf('a'), node('loop', [leaf('b')])]))).toBe('/1: * has a body but no redo part');
    expect(treeDefect(node('parallel', [node('sequence', []), node('loop', [])]))).toBe('/0: -> has no children');
  });

  it('checkTree returns a sound tree and fails loudly on a defect', () => {
    const ok = node('loop', [leaf('a'), tau()]);
    expect(checkTree(ok)).toBe(ok);
    expect(() => checkTree(node('loop', [tau(), node('xor', [])]))).toThrow("internal error: malformed process tree at /1: X has no children: *( tau, X(  ) )");
    expect(() => checkTree(node('loop', [leaf('a')]))).toThrow(/at \/: \* has a body but no redo part/);
  });
});
