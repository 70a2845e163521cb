import { describe, expect, it } from 'vitest';
import { KeyIndex } from '../../engine/store/key-index.js';

/** The in-memory de-duplication index: a hash match is only a candidate, confirmed by the caller. */
describe('KeyIndex', () => {
  it('finds every added key through growth, and nothing for keys never added', () => {
    const index = new KeyIndex(4);
    for (let i = 1; i <= 5000; i++) index.add(`i:e${i}`, i);
    expect(index.size).toBe(5000);
    for (let i = 1; i <= 5000; i++) expect(index.find(`i:e${i}`, () => true)).toBe(i);
    for (let i = 5001; i <= 6000; i++) expect(index.find(`i:e${i}`, () => true)).toBeUndefined();
  });

  it('probes past a candidate the caller rejects, as it must for two keys with equal hashes', () => {
    // The same key under two ids stands in for a collision: both hash alike.
    const index = new KeyIndex();
    index.add('h:abc', 7);
    index.add('h:abc', 9);
    const seen: number[] = [];
    expect(
      index.find('h:abc', (id) => {
        seen.push(id);
        return id === 9;
      }),
    ).toBe(9);
    expect(seen).toEqual([7, 9]);
    expect(index.find('h:abc', () => false)).toBeUndefined();
  });
});

describe('KeyIndex memory', () => {
  it('holds 8 bytes a slot, at most 70% full, and moves to float ids past 2^32 - 1 without losing an entry', () => {
    const index = new KeyIndex();
    for (let i = 1; i <= 100_000; i++) index.add(`i:SO-${i}`, i);
    // 100k keys: 2^18 slots (38% full) of 8 bytes.
    expect(index.bytes).toBe(2 ** 18 * 8);
    const big = 2 ** 32 + 5;
    index.add('i:far', big);
    expect(index.find('i:far', () => true)).toBe(big);
    expect(index.bytes).toBe(2 ** 18 * 12);
    for (let i = 1; i <= 100_000; i += 997) expect(index.find(`i:SO-${i}`, (id) => id === i)).toBe(i);
  });
});
