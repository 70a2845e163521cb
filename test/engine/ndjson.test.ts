import { describe, expect, it } from 'vitest';
import { NdjsonReader, readNdjson } from '../../engine/index.js';

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
});
