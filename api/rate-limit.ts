/**
 * Per-key token buckets, in memory: `burst` requests at once, refilled at
 * `perSecond`. A burst of 0 turns limiting off.
 *
 * A bucket that has refilled is the same as none, so once the map doubles
 * past its size at the last sweep, full buckets are dropped: keys come and go
 * (revoked, expired, a tenant minting them), and the soak's key churn grew
 * this map for as long as the server ran.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private sweepAbove = MIN_SWEEP;
  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Takes `cost` tokens (a request, or each call of an MCP batch) at once, or none: undefined when allowed, otherwise the seconds to wait. */
  take(key: string, cost = 1): number | undefined {
    if (this.burst <= 0) return undefined;
    const t = this.clock();
    if (this.buckets.size >= this.sweepAbove) this.sweep(t);
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: t };
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.perSecond);
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens >= cost) {
      b.tokens -= cost;
      return undefined;
    }
    return this.perSecond > 0 ? Math.ceil((cost - b.tokens) / this.perSecond) : 60;
  }

  /** Buckets held (for tests). */
  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(key);
    }
    this.sweepAbove = Math.max(MIN_SWEEP, 2 * this.buckets.size);
  }
}

const MIN_SWEEP = 1024;
