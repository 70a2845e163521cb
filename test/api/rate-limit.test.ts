import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../api/rate-limit.js';

describe('RateLimiter', () => {
  it('allows a burst, then answers the seconds to wait, and refills at its rate', () => {
    let now = 0;
    const limiter = new RateLimiter(3, 1, () => now);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([undefined, undefined, undefined]);
    expect(limiter.take('a')).toBe(1);
    expect(limiter.take('b')).toBeUndefined();
    now = 1000;
    expect(limiter.take('a')).toBeUndefined();
    expect(limiter.take('a')).toBe(1);
  });

  it('forgets refilled buckets once keys pile up, and keeps the ones still draining', () => {
    let now = 0;
    const limiter = new RateLimiter(2, 1, () => now);
    // One key still owes tokens when the sweep runs.
    limiter.take('busy');
    limiter.take('busy');
    for (let i = 0; i < 1023; i++) limiter.take(`churned-${i}`);
    expect(limiter.size).toBe(1024);
    now = 1500; // every churned key has refilled (one token in 1 s); 'busy' has 1.5 of 2
    limiter.take('one-more');
    expect(limiter.size).toBe(2);
    // 'busy' kept its debt: 1.5 tokens, so one request passes and the next waits.
    expect(limiter.take('busy')).toBeUndefined();
    expect(limiter.take('busy')).toBe(1);
  });
});
