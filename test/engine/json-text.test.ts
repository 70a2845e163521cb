import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonText, stringifyWithText } from '../../engine/projects/json-text.js';

describe('stringifyWithText', () => {
  it('writes each JsonText as its text, and everything else as JSON.stringify does, whatever strings the data holds', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), fc.array(fc.string({ unit: 'binary' })), (a, b, strings) => {
        const value = { strings, a: new JsonText(JSON.stringify(a)), list: [new JsonText(JSON.stringify(b)), strings], n: 1 };
        const text = stringifyWithText(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify({ strings, a, list: [b, strings], n: 1 })));
        expect(stringifyWithText({ strings })).toBe(JSON.stringify({ strings }));
      }),
      { numRuns: 300 },
    );
  });

  it('splices the text as it is (a marker spelled by the data is left alone)', () => {
    const doc = '{"b":1,  "a":[2]}';
    expect(stringifyWithText({ x: new JsonText(doc), y: '\u0000pcg-0' })).toBe('{"x":{"b":1,  "a":[2]},"y":"\\u0000pcg-0"}');
  });
});
