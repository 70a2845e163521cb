/**
 * Per-key token buckets, in memory: `burst` requests at once, refilled at
 * `perSecond`. A burst of 0 turns limiting off.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Undefined when allowed, otherwise the seconds to wait. */
  take(key: string): number | undefined {
    if (this.burst <= 0) return undefined;
    const t = this.clock();
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: t };
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.perSecond);
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return undefined;
    }
    return this.perSecond > 0 ? Math.ceil((1 - b.tokens) / this.perSecond) : 60;
  }
}
