import { describe, expect, it } from 'vitest';
import { LineTooLong, NdjsonReader, readNdjson } from '../../engine/index.js';

describe('the NDJSON line reader (files and HTTP bodies)', () => {
  const text = '{"a":1}\n\n{oops\n  {"b":2}  \r\n{"c":3}';

  it('numbers lines across the input, skips blank ones and rejects what is not JSON', () => {
    const part = readNdjson(text);
    expect(part.records).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
    expect(part.locations).toEqual(['line 1', 'line 4', 'line 5']);
    expect(part.rejected.map((r) => [r.location, r.payload])).toEqual([['line 3', '{oops']]);
    expect(part.rejected[0]!.reason).toMatch(/^not JSON: /);
  });

  it('reads the same whatever the chunks, lines cut anywhere', () => {
    for (let cut = 1; cut < text.length; cut += 3) {
      const reader = new NdjsonReader();
      const parts = [reader.push(text.slice(0, cut)), reader.push(text.slice(cut)), reader.end()];
      expect(parts.flatMap((p) => p.records)).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
      expect(parts.flatMap((p) => p.locations)).toEqual(['line 1', 'line 4', 'line 5']);
      expect(parts.flatMap((p) => p.rejected.map((r) => r.location))).toEqual(['line 3']);
    }
  });

  it('reads the same in chunks of any sizes, many lines to a chunk or many chunks to a line', () => {
    const lines = ['{"a":1}', '', '', '{"b":"x' + 'y'.repeat(300) + '"}', '{bad', '\r', '{"c":[1,2,3]}', ''];
    const whole = lines.join('\n');
    const expected = readNdjson(whole);
    for (const size of [1, 2, 5, 17, 64, 299, 1000]) {
      const reader = new NdjsonReader();
      const parts = [];
      for (let i = 0; i < whole.length; i += size) parts.push(reader.push(whole.slice(i, i + size)));
      parts.push(reader.end());
      expect({ records: parts.flatMap((p) => p.records), locations: parts.flatMap((p) => p.locations), rejected: parts.flatMap((p) => p.rejected) }).toEqual(expected);
    }
  });

  it('refuses a line past maxLineBytes as soon as its pieces pass it, counting UTF-8 bytes', () => {
    const reader = new NdjsonReader(10);
    expect(reader.push('{"a":1}\n{"b":').records).toEqual([{ a: 1 }]);
    // Held: 6 units; 6 more pass 10 before the line ends.
    expect(() => reader.push('"xxxxxx')).toThrow(LineTooLong);
    try {
      new NdjsonReader(10).push('{"a":1}\n\n{"b":"xxxxxxxxxxx"}\n');
    } catch (error) {
      expect(error).toBeInstanceOf(LineTooLong);
      expect((error as LineTooLong).line).toBe(3);
    }
    // Ten characters, more than ten bytes: measured at the line's end.
    expect(() => new NdjsonReader(10).push('"éééééééé"\n')).toThrow(/line 1 is longer than 10 bytes/);
    expect(new NdjsonReader(10).push('"éééé"\n').records).toEqual(['éééé']);
  });
});
