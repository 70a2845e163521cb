import { describe, expect, it } from 'vitest';
import type { CaseFold } from '../../engine/contribution.js';
import { CaseCache, FoldBudget, type FoldCodec } from '../../engine/store/case-cache.js';
import { ENTRY_BYTES } from '../../engine/store/cold-folds.js';

/** A stand-in fold: the cache only reads `size` (0 = the case is gone). */
const fold = (size = 1) => ({ size }) as unknown as CaseFold;

describe('CaseCache', () => {
  it('evicts, when full, the first entry not used since the hand last passed it', () => {
    const cache = new CaseCache(3);
    const [a, b, c] = [fold(), fold(), fold()];
    cache.set('a', a);
    cache.set('b', b);
    cache.set('c', c);
    expect(cache.get('a')).toBe(a); // a gets a second chance
    cache.set('d', fold());
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(a);
    expect(cache.get('c')).toBe(c);
  });

  it('removes a case on an empty fold and fills its slot again', () => {
    const cache = new CaseCache(2);
    cache.set('a', fold());
    cache.set('b', fold());
    cache.set('a', fold(0));
    expect(cache.size).toBe(1);
    expect(cache.get('a')).toBeUndefined();
    const c = fold();
    cache.set('c', c);
    expect(cache.size).toBe(2);
    expect(cache.get('c')).toBe(c);
    expect(cache.get('b')).toBeDefined();
    cache.set('never-held', fold(0));
    expect(cache.size).toBe(2);
  });

  it('keeps the cases a stream keeps touching through a long churn of one-off cases', () => {
    const cache = new CaseCache(1000);
    const hot = Array.from({ length: 400 }, (_, i) => `hot-${i}`);
    for (const id of hot) cache.set(id, fold());
    for (let round = 0; round < 500; round++) {
      for (const id of hot) expect(cache.get(id)).toBeDefined();
      // Each round, 300 cases seen once and never again: four times the free room.
      for (let i = 0; i < 300; i++) cache.set(`once-${round}-${i}`, fold());
      expect(cache.size).toBe(Math.min(1000, 400 + 300 * (round + 1)));
    }
  });

  it('gives folds back to a shared budget as it evicts, removes and clears', () => {
    const budget = new FoldBudget(5);
    const one = new CaseCache(100, budget);
    const two = new CaseCache(100, budget);
    for (let i = 0; i < 4; i++) one.set(`a${i}`, fold());
    for (let i = 0; i < 4; i++) two.set(`b${i}`, fold());
    expect(budget.size).toBe(5);
    expect(one.size + two.size).toBe(5);
    two.set('b0', fold(0));
    two.set('b1', fold(0));
    expect(budget.size).toBe(one.size + two.size);
    one.dispose();
    expect(budget.size).toBe(two.size);
    for (let i = 0; i < 20; i++) two.set(`c${i}`, fold());
    expect(two.size).toBe(5);
    expect(budget.size).toBe(5);
  });

  describe('with folds given up kept as text', () => {
    // A stand-in codec: the text names the fold, 10 characters each, charged E bytes.
    const E = 10 + ENTRY_BYTES;
    const made = new Map<string, CaseFold>();
    const codec: FoldCodec = {
      text: (f) => `fold-${String((f as unknown as { n: number }).n).padStart(5, '0')}`,
      fold: (text) => ({ size: 1, n: Number(text.slice(5)), restored: true }) as unknown as CaseFold,
    };
    const numbered = (n: number) => {
      const f = { size: 1, n } as unknown as CaseFold;
      made.set(String(n), f);
      return f;
    };

    it('restores a case it gave up, and drops the oldest text past its bytes', () => {
      const cache = new CaseCache(2, undefined, codec, 3 * E);
      for (let i = 1; i <= 6; i++) cache.set(`c${i}`, numbered(i));
      // Two live, four given up: c1..c4 as text, one more than fits, so c1 is gone.
      expect(cache.size).toBe(2);
      expect(cache.coldBytes).toBe(3 * E);
      expect(cache.get('c1')).toBeUndefined();
      const back = cache.get('c2') as unknown as { n: number; restored: boolean };
      expect(back).toMatchObject({ n: 2, restored: true });
      // Taken back into the ring (which gave up another fold as text for it).
      expect(cache.size).toBe(2);
      expect(cache.get('c2')).toBe(back);
      expect(cache.coldBytes).toBe(3 * E);
    });

    it('forgets a case’s text when the case gets a new fold or is removed, and everything on clear', () => {
      const cache = new CaseCache(1, undefined, codec, 100 * E);
      cache.set('a', numbered(1));
      cache.set('b', numbered(2)); // a given up as text
      expect(cache.coldBytes).toBe(E);
      const fresh = numbered(3);
      cache.set('a', fresh); // b given up; a's old text dropped
      expect(cache.get('a')).toBe(fresh);
      cache.set('b', fold(0));
      expect(cache.get('b')).toBeUndefined();
      cache.clear();
      expect([cache.size, cache.coldBytes]).toEqual([0, 0]);
    });

    it('shares a byte budget across caches, each giving up its oldest text past its share', () => {
      const budget = new FoldBudget(100, 4 * E);
      const one = new CaseCache(1, budget, codec, 100 * E);
      const two = new CaseCache(1, budget, codec, 100 * E);
      for (let i = 0; i < 10; i++) one.set(`a${i}`, numbered(i));
      expect(one.coldBytes).toBe(4 * E);
      expect(budget.coldBytes).toBe(4 * E);
      for (let i = 0; i < 3; i++) two.set(`b${i}`, numbered(100 + i));
      // two holds two texts (its share, half the budget); one gave up its oldest to make room.
      expect(two.coldBytes).toBe(2 * E);
      expect(one.coldBytes).toBe(2 * E);
      expect(budget.coldBytes).toBe(4 * E);
      one.dispose();
      expect(budget.coldBytes).toBe(2 * E);
    });
  });
});
