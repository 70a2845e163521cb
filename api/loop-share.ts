/**
 * Each tenant's share of the one event loop that runs every request handler.
 *
 * A tenant sending many cheap requests at once (600 project listings within
 * its rate limit, twenty at a time) had its handlers run back to back as they
 * arrived, and every other tenant's request that came meanwhile waited behind
 * them: the soak's CPU profile showed 300-580 ms stretches of one tenant's
 * listings, the tail of the other tenants' ingest latency. So the loop time
 * each tenant's handlers take is tracked, as a sum that decays by half every
 * `HALF_LIFE_MS`; a tenant past `shareMs` of it runs its handlers one per
 * turn of the event loop, each after everything that arrived meanwhile. That
 * bounds what another tenant waits for to about one handler of the busy
 * tenant, and costs the busy tenant nothing when nobody else is there: a turn
 * of an idle loop is a few microseconds. Work conserving, unlike a cap.
 */
export class LoopShare {
  private readonly used = new Map<string, Use>();
  /** Per tenant past its share: the end of the queue of its handlers waiting for their turn. */
  private readonly queues = new Map<string, { tail: Promise<void>; waiting: number }>();
  private sweepAbove = MIN_SWEEP;
  /** Handlers that waited for their turn (a metric). */
  deferred = 0;

  constructor(
    /** Loop time (ms, decayed) past which a tenant's handlers take turns; 0 turns sharing off. */
    private readonly shareMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /**
   * Waits for the tenant's turn when it is past its share, and returns what the caller calls right after its
   * handler's synchronous part (with the time it took): the next waiting handler of the tenant then runs a
   * turn of the loop later.
   */
  async turn(tenant: string): Promise<(ms: number) => void> {
    if (this.shareMs <= 0 || this.usage(tenant) <= this.shareMs) return (ms) => this.charge(tenant, ms);
    this.deferred += 1;
    const queue = this.queues.get(tenant) ?? { tail: Promise.resolve(), waiting: 0 };
    this.queues.set(tenant, queue);
    const before = queue.tail;
    let release!: () => void;
    queue.tail = new Promise<void>((resolve) => (release = resolve));
    queue.waiting += 1;
    await before;
    // One turn of the loop: requests that arrived meanwhile (other tenants') are read and run first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return (ms) => {
      this.charge(tenant, ms);
      if (--queue.waiting === 0 && this.queues.get(tenant) === queue) this.queues.delete(tenant);
      release();
    };
  }

  /**
   * Runs `work` in the tenant's turn and charges it the synchronous part (up to its first await): what an HTTP
   * route's handler (api/route.ts) and an MCP tool call (api/mcp/local.ts) both do, so neither face skips the share.
   */
  async charged<T>(tenant: string, work: () => T): Promise<Awaited<T>> {
    const done = await this.turn(tenant);
    const started = performance.now();
    let running: T;
    try {
      running = work();
    } finally {
      done(performance.now() - started);
    }
    return await running;
  }

  /** The tenant's loop time, decayed to now (ms). */
  usage(tenant: string): number {
    const u = this.used.get(tenant);
    return u ? decay(u, this.clock()) : 0;
  }

  /** Tenants tracked (for tests). */
  get size(): number {
    return this.used.size;
  }

  private charge(tenant: string, ms: number): void {
    const now = this.clock();
    if (this.used.size >= this.sweepAbove) this.sweep(now);
    const u = this.used.get(tenant);
    if (u) {
      u.ms = decay(u, now) + ms;
      u.at = now;
    } else this.used.set(tenant, { ms, at: now });
  }

  /** Tenants whose time has decayed to nothing are dropped (tenants come and go). */
  private sweep(now: number): void {
    for (const [tenant, u] of this.used) if (decay(u, now) < FORGOTTEN_MS) this.used.delete(tenant);
    this.sweepAbove = Math.max(MIN_SWEEP, 2 * this.used.size);
  }
}

interface Use {
  ms: number;
  at: number;
}

const HALF_LIFE_MS = 1_000;
const FORGOTTEN_MS = 0.01;
const MIN_SWEEP = 1024;

function decay(u: Use, now: number): number {
  return u.ms * 0.5 ** (Math.max(0, now - u.at) / HALF_LIFE_MS);
}
