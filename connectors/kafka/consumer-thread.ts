import { parentPort, Worker, workerData, type ResourceLimits } from 'node:worker_threads';
import { fromPortable, toPortable, type ApplyResult, type EventLimits, type PortableBatch, type Position, type PreparedBatch } from '../../engine/index.js';
import type { ProjectRegistry } from '../../engine/projects/index.js';
import type { KafkaLog } from './client.js';
import type { SourceDefinition } from './definition.js';
import type { RunnerHandle, RunnerHooks, RunnerStatus } from './runner-contract.js';
import { SourceRunner } from './runner.js';
import { fromWireError, storedOffset, toWireError, type StateWriter, type WireError } from './state-writer.js';

/**
 * The consumer thread: every source's kafkajs consumer (fetching, decoding)
 * and the mapping and validation of its chunks run here, and the thread that
 * owns the project registry only applies prepared chunks. A worker's profile
 * before this split: the registry's thread busy all the time (applying, kafkajs
 * fetching and decoding about 2 s a million, GC), the mapping thread idle half
 * of it. Each chunk crosses once, prepared and portable, in a message; up to
 * four wait at the host (chunk-window.ts), which answers them in order.
 *
 * The protocol: the host starts and stops runners (`start`, `stop`); a runner
 * reports (`started`, `startFailed`, `status`, `failed`, `stopped`, `log`) and
 * asks the host's registry (`stored`, `ingest`), answered by `reply`.
 */

type ToThread =
  | { type: 'start'; run: number; source: SourceDefinition; workerId: string; chunk?: number; logs: boolean }
  | { type: 'stop'; run: number }
  | { type: 'reply'; id: number; value?: unknown; error?: WireError };

/** What a runner asks the host's registry. */
type Request = { type: 'stored'; projectId: string; source: string; partition: number } | { type: 'ingest'; projectId: string; batch: PortableBatch; position: Position };

type FromThread =
  | { type: 'started' | 'stopped'; run: number }
  | { type: 'startFailed' | 'failed'; run: number; error: WireError }
  | { type: 'status'; run: number; status: RunnerStatus }
  | { type: 'log'; level: Parameters<KafkaLog>[0]; message: string; extra: Record<string, unknown> }
  | (Request & { id: number });

/**
 * The thread's young generation: half of the writers' INGEST_HEAP (engine/heap.ts). A chunk's garbage here
 * (kafkajs's decoded messages, parsed records) is posted away or dropped within the chunk, so it needs less room
 * to die young. One worker over 1M events, two rounds each (steady events/s, peak RSS): 48 MB 106k and 123k,
 * 706 and 846 MB; 96 MB 123k and 121k, 879 and 874 MB; 192 MB 127k and 115k, 940 and 1,020 MB.
 */
const CONSUMER_HEAP: ResourceLimits = Object.freeze({ maxYoungGenerationSizeMb: 96 });

/** The host's side: one thread for every runner of the process, started when the first runner is. */
export class ConsumerThread {
  private worker: Worker | undefined;
  private readonly runs = new Map<number, RemoteRunner>();
  private nextRun = 1;

  constructor(
    private readonly registry: ProjectRegistry,
    private readonly log?: KafkaLog,
  ) {}

  /** A runner of this source on the thread (supervisor's factory). */
  runner(source: SourceDefinition, hooks: RunnerHooks): RunnerHandle {
    const run = new RemoteRunner(this, this.nextRun++, source, hooks);
    this.runs.set(run.run, run);
    return run;
  }

  /** @internal */
  send(message: ToThread): void {
    const worker = (this.worker ??= this.spawn());
    // While a runner lives (its consumer's sockets, a stop being answered), the thread keeps the process alive, as the consumer's sockets did on this thread.
    if (this.runs.size > 0) worker.ref();
    worker.postMessage(message);
  }

  /** @internal */
  forget(run: number): void {
    this.runs.delete(run);
    if (this.runs.size === 0) this.worker?.unref();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./consumer-thread.mjs', import.meta.url), { resourceLimits: CONSUMER_HEAP, workerData: { limits: { ...this.registry.limits } } });
    worker.on('message', (m: FromThread) => this.receive(worker, m));
    const gone = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const run of [...this.runs.values()]) run.lost(error);
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`the consumer thread exited with code ${code}`)));
    return worker;
  }

  private receive(worker: Worker, m: FromThread): void {
    switch (m.type) {
      case 'stored':
      case 'ingest': {
        let reply: ToThread;
        try {
          const value: number | ApplyResult =
            m.type === 'stored' ? storedOffset(this.registry, m.projectId, m.source, m.partition) : this.registry.ingestPart(m.projectId, fromPortable(m.batch), m.position);
          reply = { type: 'reply', id: m.id, value };
        } catch (error) {
          reply = { type: 'reply', id: m.id, error: toWireError(error) };
        }
        worker.postMessage(reply);
        return;
      }
      case 'log':
        this.log?.(m.level, m.message, m.extra);
        return;
      default:
        this.runs.get(m.run)?.receive(m);
    }
  }
}

/** A runner on the consumer thread, seen from the host: its last reported status and its lifecycle. */
class RemoteRunner implements RunnerHandle {
  status: RunnerStatus = { state: 'starting', assigned: [], partitions: [], eventsApplied: 0, deadLetters: 0, lastError: null, updatedAt: new Date().toISOString() };
  private starting: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private stopping: (() => void) | undefined;
  private ended = false;

  constructor(
    private readonly thread: ConsumerThread,
    readonly run: number,
    readonly source: SourceDefinition,
    private readonly hooks: RunnerHooks,
  ) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.starting = { resolve, reject };
      const { workerId, chunk, log } = this.hooks;
      this.thread.send({ type: 'start', run: this.run, source: this.source, workerId, ...(chunk ? { chunk } : {}), logs: log !== undefined });
    });
  }

  stop(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      this.stopping = resolve;
      this.thread.send({ type: 'stop', run: this.run });
    });
  }

  receive(m: Exclude<FromThread, { type: 'log' | 'stored' | 'ingest' }>): void {
    switch (m.type) {
      case 'status':
        this.status = m.status;
        this.hooks.onChange?.();
        return;
      case 'started':
        this.starting?.resolve();
        this.starting = undefined;
        return;
      case 'startFailed':
        this.starting?.reject(fromWireError(m.error));
        this.starting = undefined;
        return;
      case 'failed':
        this.hooks.onFailed?.(fromWireError(m.error));
        return;
      case 'stopped':
        this.end();
    }
  }

  /** The thread died: a start or stop in progress ends, a running runner failed (the supervisor starts a fresh one, on a fresh thread). */
  lost(error: Error): void {
    if (this.ended) return;
    this.status = { ...this.status, state: 'failed', lastError: { message: error.message, at: new Date().toISOString() } };
    const { starting, stopping } = this;
    this.end();
    if (starting) starting.reject(error);
    else if (!stopping) this.hooks.onFailed?.(error);
  }

  private end(): void {
    this.ended = true;
    this.thread.forget(this.run);
    this.stopping?.();
    this.stopping = undefined;
    this.starting = undefined;
  }
}

/**
 * A prepared chunk as it is posted: in its portable form (engine/store/portable-batch.ts), a refused record's
 * bytes copied out, for they are a view of its whole fetch (10 MB), which a structured clone would copy whole
 * with each.
 */
function portable(batch: PreparedBatch): PortableBatch {
  return toPortable({ ...batch, rejected: batch.rejected.map((r) => (r.raw ? { ...r, raw: Buffer.from(r.raw) } : r)) });
}

/** Log entries cross as JSON: kafkajs puts errors and buffers in them. */
function plain(extra: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(extra)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** The thread's side (consumer-thread.mjs calls it). */
export function runConsumerThread(): void {
  const port = parentPort!;
  const post = (m: FromThread) => port.postMessage(m);
  const waiting = new Map<number, { resolve: (v: never) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  const ask = <T>(m: Request): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve: resolve as (v: never) => void, reject });
      post({ ...m, id });
    });
  const writer: StateWriter = {
    limits: (workerData as { limits: EventLimits }).limits,
    storedOffset: (projectId, source, partition) => ask<number>({ type: 'stored', projectId, source, partition }),
    ingest: (projectId, batch, position) => ask<ApplyResult>({ type: 'ingest', projectId, batch: portable(batch), position }),
  };
  const runners = new Map<number, SourceRunner>();
  port.on('message', (m: ToThread) => {
    if (m.type === 'reply') {
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error) w?.reject(fromWireError(m.error));
      else w?.resolve(m.value as never);
      return;
    }
    if (m.type === 'stop') {
      const runner = runners.get(m.run);
      runners.delete(m.run);
      void (runner?.stop() ?? Promise.resolve()).then(() => post({ type: 'stopped', run: m.run }));
      return;
    }
    const { run } = m;
    const runner: SourceRunner = new SourceRunner(m.source, {
      writer,
      workerId: m.workerId,
      ...(m.chunk ? { chunk: m.chunk } : {}),
      ...(m.logs ? { log: (level, message, extra) => post({ type: 'log', level, message, extra: plain(extra) }) } : {}),
      onChange: () => post({ type: 'status', run, status: runner.status }),
      onFailed: (error) => post({ type: 'failed', run, error: toWireError(error) }),
    });
    runners.set(run, runner);
    runner.start().then(
      () => post({ type: 'started', run }),
      (error: unknown) => post({ type: 'startFailed', run, error: toWireError(error) }),
    );
  });
}
