import type { ProjectRegistry } from '../../engine/projects/index.js';
import type { KafkaLog } from './client.js';
import type { SourceDefinition } from './definition.js';
import type { RunnerHandle, RunnerHooks, RunnerStatus } from './runner-contract.js';
import { SourceRunner } from './runner.js';
import { registryWriter } from './state-writer.js';

/** Where the supervisor learns which sources to run and leaves their status (the catalog, in pcg). */
export interface SourceDirectory {
  /** Every source that should run now (not paused), secrets in clear. */
  active(): SourceDefinition[];
  /** This worker's status of a source, or null once it stopped running it. */
  report(sourceId: string, workerId: string, status: RunnerStatus | null): void;
  /** Whether the project still exists (a runner stopped because its project was deleted leaves no files behind). */
  projectExists(projectId: string): boolean;
}

export interface SupervisorOptions {
  workerId: string;
  /** How often the directory is read again (default 1 s): pause, resume, new and deleted sources take effect within it. */
  pollMs?: number;
  /** How often changed statuses are written (default 1 s). */
  reportMs?: number;
  log?: KafkaLog;
  /** Messages per state transaction (runner default when unset). */
  chunk?: number;
  /**
   * Where runners run: by default here, writing to the registry directly; `pcg serve` and `pcg worker` run them
   * on a consumer thread (ConsumerThread.runner), which sends prepared chunks back to this thread's registry.
   */
  runners?: RunnerFactory;
}

/** Makes the runner of a source. */
export type RunnerFactory = (source: SourceDefinition, hooks: RunnerHooks) => RunnerHandle;

/** An unchanged status is written again this often, so a report older than a few of these means its worker is gone. */
const HEARTBEAT_MS = 10_000;

/** A source that failed to start is tried again after this long. */
const RESTART_MS = 5_000;

/**
 * Runs every active source of a data directory, one SourceRunner each, the
 * same in `pcg serve` (on a thread of its own) and in `pcg worker`. It
 * reconciles with the directory every poll: new sources start, deleted or
 * paused ones stop (their partitions go back to the group), a changed
 * declaration restarts its runner. Statuses are written at most once a
 * period, not once a batch.
 */
export class SourceSupervisor {
  private readonly runners = new Map<string, RunnerHandle>();
  private readonly dirty = new Set<string>();
  private readonly retryAt = new Map<string, number>();
  private readonly reportedAt = new Map<string, number>();
  private timers: NodeJS.Timeout[] = [];
  private reconciling: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly directory: SourceDirectory,
    private readonly registry: ProjectRegistry,
    private readonly options: SupervisorOptions,
  ) {}

  start(): void {
    this.stopped = false;
    void this.reconcile();
    this.timers.push(
      setInterval(() => void this.reconcile(), this.options.pollMs ?? 1_000),
      setInterval(() => this.flush(), this.options.reportMs ?? 1_000),
    );
  }

  /** Brings the running set in line with the directory; calls are serialised. */
  reconcile(): Promise<void> {
    this.reconciling = this.reconciling.then(() => this.reconcileNow()).catch((error) => this.options.log?.('error', `source supervisor: ${(error as Error).message}`, {}));
    return this.reconciling;
  }

  private async reconcileNow(): Promise<void> {
    if (this.stopped) return;
    const wanted = new Map(this.directory.active().map((s) => [s.id, s]));
    const stopping: Promise<void>[] = [];
    for (const [id, runner] of this.runners) {
      const def = wanted.get(id);
      if (!def || def.revision !== runner.source.revision) stopping.push(this.stopRunner(id));
    }
    await Promise.all(stopping);
    const now = Date.now();
    for (const [id, def] of wanted) {
      if (this.runners.has(id) || (this.retryAt.get(id) ?? 0) > now) continue;
      this.startRunner(def);
    }
  }

  /** Starts without waiting: connecting may retry for minutes while the broker is away, and must not hold other sources. */
  private startRunner(def: SourceDefinition): void {
    const make: RunnerFactory = this.options.runners ?? ((source, hooks) => new SourceRunner(source, { ...hooks, writer: registryWriter(this.registry) }));
    const runner = make(def, {
      workerId: this.options.workerId,
      ...(this.options.log ? { log: this.options.log } : {}),
      ...(this.options.chunk ? { chunk: this.options.chunk } : {}),
      onChange: () => this.dirty.add(def.id),
      // kafkajs gave up on this consumer: a fresh runner is started after a pause, as for one that failed to start.
      onFailed: (error) => {
        this.options.log?.('error', `source ${def.id}: the consumer stopped: ${error.message}`, {});
        if (this.runners.get(def.id) !== runner) return;
        this.retryAt.set(def.id, Date.now() + RESTART_MS);
        void this.stopRunner(def.id).then(() => this.directory.report(def.id, this.options.workerId, runner.status));
      },
    });
    this.runners.set(def.id, runner);
    this.dirty.add(def.id);
    runner.start().catch((error: Error) => {
      // Stopped while it started (paused, deleted, changed): its connect was cut short on purpose.
      if (this.runners.get(def.id) !== runner) return;
      this.options.log?.('error', `source ${def.id}: ${error.message}`, {});
      this.directory.report(def.id, this.options.workerId, { ...runner.status, state: 'failed', lastError: { message: error.message, at: new Date().toISOString() } });
      this.retryAt.set(def.id, Date.now() + RESTART_MS);
      this.runners.delete(def.id);
      void runner.stop();
    });
  }

  private async stopRunner(id: string): Promise<void> {
    const runner = this.runners.get(id);
    this.runners.delete(id);
    this.dirty.delete(id);
    this.reportedAt.delete(id);
    await runner?.stop();
    this.directory.report(id, this.options.workerId, null);
    // The project was deleted while its source ran: a chunk applied in between may have re-made a partition file.
    if (runner && !this.directory.projectExists(runner.source.projectId)) this.registry.remove(runner.source.projectId);
  }

  /** Writes the statuses that changed since the last flush. */
  flush(): void {
    const now = Date.now();
    for (const [id, runner] of this.runners) {
      if (!this.dirty.has(id) && now - (this.reportedAt.get(id) ?? 0) < HEARTBEAT_MS) continue;
      this.directory.report(id, this.options.workerId, runner.status);
      this.reportedAt.set(id, now);
    }
    this.dirty.clear();
  }

  statuses(): Map<string, RunnerStatus> {
    return new Map([...this.runners].map(([id, r]) => [id, r.status]));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.reconciling;
    await Promise.all([...this.runners.keys()].map((id) => this.stopRunner(id)));
  }
}
