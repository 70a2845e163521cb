import { ApiError } from './errors.js';

/**
 * What runs on the work threads: ingestion and uploads write a project; builds, case reads and document views read it.
 * Writes of one project share one lane (one writer per store file at a time); each reading kind has its own.
 */
export type WorkKind = 'ingest' | 'upload' | 'build' | 'read' | 'view';

/** A task given the slot (work thread) it runs on and a signal that aborts when its caller gives up or the queue closes. */
export type Work<T> = (slot: number, signal: AbortSignal) => Promise<T>;

/**
 * The one way heavy work reaches the threads: `(tenant, project, kind, task, signal)`. Refused with 429
 * `rate_limited` (and `Retry-After`) when the tenant already has as many tasks waiting as it may.
 */
export type FairRun = <T>(tenant: string, project: string, kind: WorkKind, task: Work<T>, signal?: AbortSignal) => Promise<T>;

export interface FairQueueOptions {
  /** Tasks running at once: one per work thread. */
  slots: number;
  /** Tasks one tenant may have waiting; one more is 429 (PCG_TENANT_QUEUE). */
  perTenant: number;
  /**
   * Writes (ingestion, uploads) start before other work, but after this many writes in a row started while
   * other work waited, the next start is other work: builds and reads are delayed, never starved. 0 serves
   * both in one rotation. Default WRITE_TURNS.
   */
  writeTurns?: number;
}

/** Writes (one lane per project, ingestion and uploads) and the rest (builds, case reads, views): each served in its own rotation. */
type Class = 'write' | 'other';
const classOf = (kind: WorkKind): Class => (kind === 'ingest' || kind === 'upload' ? 'write' : 'other');

/** Writes that may start in a row while other work waits (see FairQueueOptions.writeTurns). */
export const WRITE_TURNS = 4;

interface Item {
  lane: Lane;
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  signal: AbortSignal | undefined;
  forget?: () => void;
}

interface Lane {
  key: string;
  kind: Class;
  /** When this lane was last served (the queue's count of started tasks): the least recently served goes first. */
  served: number;
  project: string;
  tenant: Tenant;
  items: Item[];
  running: boolean;
}

interface Tenant {
  id: string;
  /** Its lanes (project and kind) with work waiting or running. */
  lanes: Lane[];
  /** When this tenant was last served, per class: the least recently served tenant with work that can start goes first. */
  served: Record<Class, number>;
  running: number;
  waiting: number;
}

const NEVER = new AbortController().signal;

const full = (waiting: number) =>
  new ApiError('rate_limited', `this tenant already has ${waiting} tasks waiting for a work thread (PCG_TENANT_QUEUE); retry shortly`, { 'retry-after': '1' });

/** Projects whose thread is remembered. */
const HOMES = 4096;

/**
 * Each tenant's fair share of the work threads.
 *
 * Before, one request's work ran wherever it came: a tenant's 100,000-event ingestion held the request loop for
 * 4.5 s, and its builds held the one build thread every tenant shared, so another tenant's graph after a new
 * version waited 25-30 s. Here work waits in queues per tenant, and within a tenant per lane (a project and a
 * kind of work), and the slots (one per thread) are handed out round-robin: to the next tenant with work that
 * can start, then to that tenant's next lane. A lane runs one task at a time, so the writes of one project stay
 * serialized and a project builds one document at a time. A tenant never holds every slot (at most all but one
 * when there are two or more): a task cannot be cut short once it runs, so the only way another tenant's work
 * starts at once is a slot the busy tenant may not take. A tenant's waiting tasks are bounded: past the bound
 * that tenant, and only that one, is answered 429 with `Retry-After`. Tasks that wait are not cut short by
 * budgets; a caller's signal takes its task out of the queue.
 */
export class FairQueue {
  private readonly tenants = new Map<string, Tenant>();
  /** Tasks started so far: the clock of `served`. */
  private started = 0;
  private readonly busy: boolean[];
  /**
   * The slot that last ran each project's work (the most recent few thousand projects): that thread holds the
   * project's stores open with their caches (key index, case folds, counted state) warm, which another thread
   * would have to read again from the file.
   */
  private readonly home = new Map<string, number>();
  /** The most slots one tenant may hold at once. */
  readonly perTenantRunning: number;
  private readonly writeTurns: number;
  /** Writes started in a row while other work waited. */
  private writeStreak = 0;

  /** Tasks refused because their tenant's queue was full (a metric). */
  refused = 0;
  private closed = false;

  constructor(private readonly options: FairQueueOptions) {
    if (!(options.slots >= 1) || !(options.perTenant >= 1)) throw new Error('a fair queue needs at least one slot and one waiting place per tenant');
    this.busy = Array.from({ length: options.slots }, () => false);
    this.perTenantRunning = options.slots > 1 ? options.slots - 1 : 1;
    this.writeTurns = options.writeTurns ?? WRITE_TURNS;
  }

  /** The FairRun of this queue (bound, to hand around). */
  readonly run: FairRun = <T>(tenant: string, project: string, kind: WorkKind, work: Work<T>, signal?: AbortSignal): Promise<T> => {
    if (this.closed) return Promise.reject(new ApiError('unavailable', 'the server is shutting down; retry later', { 'retry-after': '5' }));
    if (signal?.aborted) return Promise.reject(signal.reason ?? new DOMException('aborted', 'AbortError'));
    let t = this.tenants.get(tenant);
    if (!t) {
      // A tenant new to the rotation (or back after it had nothing) goes first: it was served least recently.
      t = { id: tenant, lanes: [], served: { write: 0, other: 0 }, running: 0, waiting: 0 };
      this.tenants.set(tenant, t);
    }
    if (t.waiting >= this.options.perTenant) {
      this.refused += 1;
      return Promise.reject(full(t.waiting));
    }
    const key = `${project}\u0000${kind === 'upload' ? 'ingest' : kind}`;
    let lane = t.lanes.find((l) => l.key === key);
    if (!lane) {
      lane = { key, kind: classOf(kind), served: 0, project, tenant: t, items: [], running: false };
      t.lanes.push(lane);
    }
    return new Promise<T>((resolve, reject) => {
      const item: Item = { lane: lane!, work: work as Work<unknown>, resolve: resolve as (v: unknown) => void, reject, signal };
      if (signal) {
        const onAbort = () => {
          const at = item.lane.items.indexOf(item);
          if (at < 0) return;
          item.lane.items.splice(at, 1);
          t!.waiting -= 1;
          this.tidy(item.lane);
          reject(signal.reason ?? new DOMException('aborted', 'AbortError'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        item.forget = () => signal.removeEventListener('abort', onAbort);
      }
      lane!.items.push(item);
      t!.waiting += 1;
      this.pump();
    });
  };

  /**
   * Throws the 429 a task of the tenant would get now (its queue is full): asked before a request's body is read,
   * so that a tenant past its share is refused without the server reading, copying and dropping megabytes.
   */
  admit(tenant: string): void {
    const waiting = this.tenants.get(tenant)?.waiting ?? 0;
    if (waiting < this.options.perTenant) return;
    this.refused += 1;
    throw full(waiting);
  }

  /** Tasks waiting (not running) for one tenant, or for all. */
  waiting(tenant?: string): number {
    if (tenant !== undefined) return this.tenants.get(tenant)?.waiting ?? 0;
    let n = 0;
    for (const t of this.tenants.values()) n += t.waiting;
    return n;
  }

  /** Tasks running for one tenant, or for all. */
  running(tenant?: string): number {
    if (tenant !== undefined) return this.tenants.get(tenant)?.running ?? 0;
    return this.busy.filter(Boolean).length;
  }

  /** Refuses new work and every task still waiting (503); running tasks finish. */
  close(): void {
    this.closed = true;
    for (const t of this.tenants.values()) {
      for (const lane of t.lanes) {
        for (const item of lane.items.splice(0)) {
          item.forget?.();
          item.reject(new ApiError('unavailable', 'the server is shutting down; retry later', { 'retry-after': '5' }));
        }
      }
      t.waiting = 0;
    }
  }

  /** Starts waiting work on free slots, a tenant at a time in turn. */
  private pump(): void {
    for (;;) {
      if (this.busy.indexOf(false) < 0) return;
      const picked = this.pick();
      if (!picked) return;
      this.start(picked);
    }
  }

  /**
   * The next item to start. Writes first: a good tenant's batch of 150 events waited behind the builds on both
   * threads (its p99 doubled over the soak's ten minutes), though it takes a few milliseconds and a build
   * hundreds. But after `writeTurns` writes in a row while other work waited, other work goes, so a stream of
   * writes delays builds without starving them. (A thread kept for writes instead, builds taking the others, did
   * no better for ingests in test/bench/fairness.ts and made a good tenant's graph after a new version wait
   * behind a hostile tenant's builds on the one thread left: p99 17.7 s against 0.6 s; BENCHMARKS.md, Fairness.) Within a class, round-robin: of the tenants with a lane of
   * that class ready and a slot left to take, the one served least recently in that class; of its ready
   * lanes, likewise. (An index cursor over a list would serve a tenant twice in a row when another arrived
   * just behind it.)
   */
  private pick(): Item | undefined {
    const write = this.ready('write');
    const other = this.ready('other');
    let best: Lane | undefined;
    if (this.writeTurns <= 0) {
      // One rotation for both classes: the tenant, then the lane, served least recently of either.
      const lanes = write?.tenant.lanes ?? [];
      const otherFirst =
        write && other && (other.tenant === write.tenant ? other.served - write.served || lanes.indexOf(other) - lanes.indexOf(write) : other.tenant.served.other - write.tenant.served.write) < 0;
      best = otherFirst ? other : (write ?? other);
    } else best = write && other ? (this.writeStreak >= this.writeTurns ? other : write) : (write ?? other);
    if (!best) return undefined;
    this.writeStreak = best.kind === 'write' && other ? this.writeStreak + 1 : 0;
    this.started += 1;
    best.served = this.started;
    best.tenant.served[best.kind] = this.started;
    if (this.writeTurns <= 0) best.tenant.served[best.kind === 'write' ? 'other' : 'write'] = this.started;
    return best.items.shift();
  }

  /** The lane of this class that would start next: of the least recently served tenant (in the class), its least recently served ready lane. */
  private ready(kind: Class): Lane | undefined {
    let best: Lane | undefined;
    for (const t of this.tenants.values()) {
      if (t.waiting === 0 || t.running >= this.perTenantRunning) continue;
      if (best && t.served[kind] >= best.tenant.served[kind]) continue;
      let lane: Lane | undefined;
      for (const l of t.lanes) if (l.kind === kind && !l.running && l.items.length > 0 && (!lane || l.served < lane.served)) lane = l;
      if (lane) best = lane;
    }
    return best;
  }

  private start(item: Item): void {
    const { lane } = item;
    const t = lane.tenant;
    // The project's own thread when it is free (its stores are open there), else the first free one.
    const home = this.home.get(lane.project);
    const slot = home !== undefined && !this.busy[home] ? home : this.busy.indexOf(false);
    this.busy[slot] = true;
    lane.running = true;
    this.home.delete(lane.project);
    this.home.set(lane.project, slot);
    if (this.home.size > HOMES) this.home.delete(this.home.keys().next().value!);
    t.waiting -= 1;
    t.running += 1;
    item.forget?.();
    let outcome: Promise<unknown>;
    try {
      outcome = item.work(slot, item.signal ?? NEVER);
    } catch (error) {
      outcome = Promise.reject(error);
    }
    outcome.then(item.resolve, item.reject).finally(() => {
      this.busy[slot] = false;
      lane.running = false;
      t.running -= 1;
      this.tidy(lane);
      this.pump();
    });
  }

  /** An idle lane leaves its tenant, and a tenant with nothing waiting or running leaves the rotation (tenants come and go). */
  private tidy(lane: Lane): void {
    const t = lane.tenant;
    if (!lane.running && lane.items.length === 0) {
      const at = t.lanes.indexOf(lane);
      if (at >= 0) t.lanes.splice(at, 1);
    }
    if (t.waiting > 0 || t.running > 0 || t.lanes.length > 0) return;
    if (this.tenants.get(t.id) === t) this.tenants.delete(t.id);
  }
}
