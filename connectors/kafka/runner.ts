import type { Admin, Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { EngineError, type ApplyResult, type Batch, type PreparedBatch } from '../../engine/index.js';
import type { ProjectRegistry } from '../../engine/projects/index.js';
import { clientOf, RETRY, type KafkaLog } from './client.js';
import { groupIdOf, type SourceDefinition } from './definition.js';
import { compileMapping, type MessageMapper } from './mapping.js';
import { chunkBatch, inlinePreparer, type ChunkPreparer } from './preparer.js';

/**
 * Fetch sizes: about 10 MB per request and per partition, so a backlog is read
 * in few round trips (a bare consumer reads ~430k small messages/s this way).
 * Memory stays bounded: kafkajs holds at most one fetched batch per partition
 * while eachBatch works, and eachBatch returns only once its messages are
 * committed to the state, so a slow store pauses fetching instead of queueing.
 */
export const FETCH_BYTES = 10 * 1024 * 1024;
/** Messages per state transaction: large enough that a commit's fixed cost is shared, small enough to heartbeat often. */
export const CHUNK = 5_000;

export interface PartitionStatus {
  partition: number;
  /** The last offset whose events are in the state (from this runner's view; the state file has the truth). */
  applied: number | null;
  /** The next offset committed to the group (lag reporting only). */
  committed: number | null;
  /** The partition's end as of the last fetch. */
  highWatermark: number | null;
  /** Messages between the state and the end. */
  lag: number | null;
}

export interface RunnerStatus {
  state: 'starting' | 'running' | 'failed' | 'stopped';
  assigned: number[];
  partitions: PartitionStatus[];
  /** Since this runner started: events kept, messages that became dead letters. */
  eventsApplied: number;
  deadLetters: number;
  lastError: { message: string; at: string } | null;
  updatedAt: string;
}

export interface RunnerDeps {
  registry: ProjectRegistry;
  /** Names this process to the brokers (client id) and in status rows. */
  workerId: string;
  log?: KafkaLog;
  /** Called after each applied chunk and each state change (the supervisor writes status from it). */
  onChange?: () => void;
  /** Messages per transaction (default CHUNK). */
  chunk?: number;
  /** Where chunks are mapped and validated (default: on the runner's own thread). */
  preparer?: ChunkPreparer;
  /** The consumer crashed and will not restart itself (kafkajs gives up on errors it does not deem retriable): the supervisor starts a fresh runner. */
  onFailed?: (error: Error) => void;
}

/**
 * One source, consumed by one kafkajs consumer in the source's group. Exactly
 * once into the state: each chunk of a partition's messages is mapped, and its
 * events, counters and the partition's offset commit in one SQLite transaction
 * (ProjectRegistry.ingestPart); messages at or below the stored offset are
 * skipped, and on every assignment the consumer seeks to the stored offset + 1.
 * The group's own commit follows, for lag reporting only.
 */
export class SourceRunner {
  private readonly current: Omit<RunnerStatus, 'partitions'> = { state: 'starting', assigned: [], eventsApplied: 0, deadLetters: 0, lastError: null, updatedAt: new Date().toISOString() };
  private consumer: Consumer | undefined;
  private admin: Admin | undefined;
  private readonly map: MessageMapper;
  private readonly preparer: ChunkPreparer;
  private readonly partitions = new Map<number, PartitionStatus>();
  private readonly chunkSize: number;

  constructor(
    readonly source: SourceDefinition,
    private readonly deps: RunnerDeps,
  ) {
    this.map = compileMapping(source.format, source.mapping);
    this.preparer = deps.preparer ?? inlinePreparer();
    this.chunkSize = deps.chunk ?? CHUNK;
  }

  /** A copy of the runner's status, partitions in order. */
  get status(): RunnerStatus {
    return { ...this.current, partitions: [...this.partitions.values()].sort((a, b) => a.partition - b.partition).map((p) => ({ ...p })) };
  }

  async start(): Promise<void> {
    const { source } = this;
    const kafka = clientOf(source, `pcg-${this.deps.workerId}`, this.deps.log);
    const consumer = kafka.consumer({
      groupId: groupIdOf(source),
      maxBytes: FETCH_BYTES,
      maxBytesPerPartition: FETCH_BYTES,
      maxWaitTimeInMs: 100,
      // A dead worker's partitions move to the others after this long; a chunk takes well under a second, so a live one heartbeats in time.
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
      allowAutoTopicCreation: false,
      retry: { ...RETRY, restartOnFailure: async () => true },
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, (e) => this.assigned(e.payload.memberAssignment[source.topic] ?? []));
    consumer.on(consumer.events.CRASH, (e) => this.failed(e.payload.error, e.payload.restart));
    consumer.on(consumer.events.COMMIT_OFFSETS, (e) => {
      for (const t of e.payload.topics) for (const p of t.partitions) this.partition(Number(p.partition)).committed = Number(p.offset);
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [source.topic], fromBeginning: source.start !== 'latest' });
    await consumer.run({
      autoCommit: true,
      autoCommitInterval: 1_000,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 1,
      eachBatch: (payload) => this.eachBatch(payload),
    });
    // A crash during the first join may already have said otherwise.
    if (this.current.state === 'starting') this.setState('running');
  }

  async stop(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.disconnect().catch(() => undefined);
    await this.admin?.disconnect().catch(() => undefined);
    this.setState('stopped');
  }

  /**
   * Applies a fetched batch chunk by chunk. Chunks are prepared (mapped and validated) one ahead of the one being
   * applied, by the preparer's thread when there is one, so that preparing the next overlaps writing this one.
   * Filtering by the stored offset before the chunk ahead is applied is right: the chunks are disjoint and
   * increasing, and this runner is the only one moving the partition's offset meanwhile (another writer shows up
   * as a position overlap, handled in `apply`).
   */
  private async eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale, commitOffsetsIfNecessary }: EachBatchPayload): Promise<void> {
    const { partition, messages } = batch;
    const status = this.partition(partition);
    status.highWatermark = Number(batch.highWatermark);
    const stored = this.storedOffset(partition);
    const chunks: KafkaMessage[][] = [];
    for (let i = 0; i < messages.length; i += this.chunkSize) chunks.push(messages.slice(i, i + this.chunkSize));
    type Ahead = { fresh: KafkaMessage[]; prepared: Promise<PreparedBatch> };
    const prepare = (chunk: KafkaMessage[]): Ahead | undefined => {
      const fresh = chunk.filter((m) => Number(m.offset) > stored);
      if (fresh.length === 0) return undefined;
      const prepared = this.preparer.prepare(this.source, this.deps.registry.limits, batch.topic, partition, fresh);
      // Settled even when this call leaves early, so that a failure of a chunk ahead is never left unhandled.
      prepared.catch(() => undefined);
      return { fresh, prepared };
    };
    let ahead = chunks.length ? prepare(chunks[0]!) : undefined;
    for (let c = 0; c < chunks.length; c++) {
      const chunk = chunks[c]!;
      const current = ahead;
      ahead = c + 1 < chunks.length ? prepare(chunks[c + 1]!) : undefined;
      if (!isRunning() || isStale()) return;
      const last = Number(chunk[chunk.length - 1]!.offset);
      if (current) this.apply(batch.topic, partition, await current.prepared, current.fresh, last);
      if (!isRunning() || isStale()) return;
      status.applied = Math.max(status.applied ?? -1, last);
      status.lag = Math.max(0, status.highWatermark - status.applied - 1);
      resolveOffset(chunk[chunk.length - 1]!.offset);
      this.current.updatedAt = new Date().toISOString();
      this.deps.onChange?.();
      await heartbeat();
    }
    await commitOffsetsIfNecessary();
  }

  /**
   * Applies a prepared chunk with its last offset. When the stored position moved meanwhile (another writer took the
   * partition), the store refuses the overlap whole; the messages past the new stored offset are mapped again here
   * and applied.
   */
  private apply(topic: string, partition: number, prepared: PreparedBatch, messages: KafkaMessage[], last: number): void {
    const { source, deps } = this;
    let batch: Batch | PreparedBatch = prepared;
    let first = Number(messages[0]!.offset);
    for (;;) {
      let result: ApplyResult;
      try {
        result = deps.registry.ingestPart(source.projectId, batch, { source: source.id, partition, offset: last, first });
      } catch (error) {
        if (!(error instanceof EngineError && error.code === 'position_overlap')) throw error;
        const stored = this.storedOffset(partition);
        const rest = messages.filter((m) => Number(m.offset) > stored);
        if (rest.length === 0) return;
        batch = chunkBatch(this.map, topic, partition, rest);
        first = Number(rest[0]!.offset);
        continue;
      }
      this.current.eventsApplied += result.accepted;
      this.current.deadLetters += result.rejected;
      return;
    }
  }

  private storedOffset(partition: number): number {
    return this.deps.registry.part(this.source.projectId, this.source.id, partition).position(this.source.id, partition) ?? -1;
  }

  /** On every assignment: resume each partition right after its stored offset (or at the start position when it has none). */
  private assigned(partitions: number[]): void {
    this.current.assigned = [...partitions].sort((a, b) => a - b);
    for (const p of [...this.partitions.keys()]) if (!partitions.includes(p)) this.partitions.delete(p);
    const byTime: number[] = [];
    for (const p of partitions) {
      // Never throws: an error here would crash the consumer for good. Without the seek, eachBatch still skips what is stored.
      try {
        const stored = this.storedOffset(p);
        const status = this.partition(p);
        status.applied = stored >= 0 ? stored : null;
        if (stored >= 0) this.consumer?.seek({ topic: this.source.topic, partition: p, offset: String(stored + 1) });
        else if (typeof this.source.start === 'object') byTime.push(p);
      } catch (error) {
        this.current.lastError = { message: `partition ${p}: ${(error as Error).message}`, at: new Date().toISOString() };
      }
    }
    if (byTime.length) void this.seekToTime(byTime);
    this.setState('running');
  }

  private async seekToTime(partitions: number[]): Promise<void> {
    const { source } = this;
    if (typeof source.start !== 'object') return;
    try {
      this.admin ??= clientOf(source, `pcg-${this.deps.workerId}-admin`, this.deps.log).admin();
      await this.admin.connect();
      const offsets = await this.admin.fetchTopicOffsetsByTimestamp(source.topic, Date.parse(source.start.timestamp));
      for (const o of offsets) {
        if (partitions.includes(o.partition)) this.consumer?.seek({ topic: source.topic, partition: o.partition, offset: o.offset });
      }
    } catch (error) {
      this.failed(error as Error, true);
    }
  }

  private failed(error: Error, restarting: boolean): void {
    this.current.lastError = { message: error.message, at: new Date().toISOString() };
    this.setState(restarting ? 'starting' : 'failed');
    if (!restarting) this.deps.onFailed?.(error);
  }

  private partition(p: number): PartitionStatus {
    let s = this.partitions.get(p);
    if (!s) this.partitions.set(p, (s = { partition: p, applied: null, committed: null, highWatermark: null, lag: null }));
    return s;
  }

  private setState(state: RunnerStatus['state']): void {
    this.current.state = state;
    this.current.updatedAt = new Date().toISOString();
    this.deps.onChange?.();
  }
}
