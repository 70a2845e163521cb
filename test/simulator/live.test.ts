import { describe, expect, it } from 'vitest';
import { checkEvent, type WireEvent } from '../../engine/index.js';
import { groundTruth, liveFeed } from '../../connectors/simulator/index.js';

describe('liveFeed', () => {
  it('yields batches of events that became due, stamped around the clock, until aborted', async () => {
    // A clock that moves 20 s per reading: fast, and independent of the machine's speed.
    let clock = Date.UTC(2026, 5, 1, 12);
    const started = clock;
    const now = () => (clock += 20_000);
    const controller = new AbortController();
    const batches: { at: number; events: WireEvent[] }[] = [];
    for await (const events of liveFeed({ model: 'helpdesk', seed: 1, casesPerMinute: 30, now, intervalMs: 1, signal: controller.signal })) {
      batches.push({ at: clock, events });
      if (batches.length === 40) controller.abort();
    }
    expect(batches.length).toBe(40);
    const all = batches.flatMap((b) => b.events);
    expect(all.filter((e) => !checkEvent(e).ok)).toEqual([]);
    for (const b of batches) {
      for (const e of b.events) {
        const t = Date.parse(e.timestamp as string);
        expect(t).toBeLessThanOrEqual(b.at);
        expect(t).toBeGreaterThan(started);
      }
    }
    const times = all.map((e) => Date.parse(e.timestamp as string));
    expect(times.every((t, i) => i === 0 || t >= times[i - 1]!)).toBe(true);
    // Cases start and, sped up (a model day per minute), some already finish.
    const truth = groundTruth('helpdesk');
    expect(all.filter((e) => e.activity === truth.startActivity).length).toBeGreaterThan(100);
    expect(all.some((e) => e.activity === 'Close Ticket')).toBe(true);
  });

  it('stops when the consumer breaks out of the loop', async () => {
    let clock = 0;
    let batches = 0;
    for await (const events of liveFeed({ model: 'claims', seed: 2, casesPerMinute: 600, now: () => (clock += 60_000), intervalMs: 1 })) {
      expect(events.length).toBeGreaterThan(0);
      if (++batches === 3) break;
    }
    expect(batches).toBe(3);
  });
});
