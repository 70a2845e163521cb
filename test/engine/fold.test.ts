import { describe, expect, it } from 'vitest';
import { simulate } from '../../connectors/simulator/index.js';
import { CaseFold } from '../../engine/contribution.js';
import { DEFAULT_EVENT_LIMITS, type Event } from '../../engine/event.js';
import { Counters } from '../../engine/store/codec.js';
import { KeyBook } from '../../engine/store/counter-keys.js';
import { prepareBatch } from '../../engine/store/prepare.js';

/** Simulated cases (with resources and decision attributes), each cut in two: the events a fold has seen, and those still to come. */
function halves(model: string, cases: number): [Event[], Event[]][] {
  const events = prepareBatch({ records: [...simulate({ model, cases, seed: 7 })] }, DEFAULT_EVENT_LIMITS).events;
  const byCase = new Map<string, Event[]>();
  for (const e of events) byCase.set(e.caseId, [...(byCase.get(e.caseId) ?? []), e]);
  return [...byCase.values()].map((trace) => {
    const cut = Math.ceil(trace.length / 2);
    return [trace.slice(0, cut), trace.slice(cut)];
  });
}

const rows = (c: Counters) => [...c.rows()].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('a fold packed as text (the case cache keeps given-up folds this way)', () => {
  it.each(['order-to-cash', 'claims'])('continues exactly as the fold it was packed from (%s)', (model) => {
    const book = new KeyBook();
    const seenHalf = new Counters(book);
    for (const [before, after] of halves(model, 300)) {
      const fold = new CaseFold(book);
      for (const e of before) fold.step(e, seenHalf, 1);
      const text = fold.pack();
      const back = CaseFold.unpack(text, book);
      expect(back.pack()).toBe(text);
      expect(back.toJSON()).toEqual(fold.toJSON());
      // The rest of the case, appended to each: the same counter changes, finish retracted and added as the store does.
      const original = new Counters(book);
      const restored = new Counters(book);
      for (const [f, into] of [[fold, original], [back, restored]] as const) {
        f.finish(into, -1);
        for (const e of after) f.step(e, into, 1);
        f.finish(into, 1);
      }
      expect(rows(restored)).toEqual(rows(original));
      expect(back.pack()).toBe(fold.pack());
    }
  });

  it('keeps the time and key a pruned case was pruned until', () => {
    const book = new KeyBook();
    const [before] = halves('order-to-cash', 1)[0]!;
    const fold = new CaseFold(book);
    for (const e of before) fold.step(e, new Counters(book), 1);
    fold.prunedUntil = { time: 1_736_121_600_000, key: 'i:SO-000001-003' };
    expect(CaseFold.unpack(fold.pack(), book).prunedUntil).toEqual({ time: 1_736_121_600_000, key: 'i:SO-000001-003' });
  });

  it('takes half the characters of the fold in words', () => {
    const book = new KeyBook();
    let packed = 0;
    let words = 0;
    for (const [before, after] of halves('order-to-cash', 200)) {
      const fold = new CaseFold(book);
      for (const e of [...before, ...after]) fold.step(e, new Counters(book), 1);
      packed += fold.pack().length;
      words += JSON.stringify(fold.toJSON()).length;
    }
    expect(packed / words).toBeLessThan(0.5);
  });
});
