import type { Admin, Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { EngineError, prepareBatch, type ApplyResult, type PreparedBatch } from '../../engine/index.js';
import { changelogEntry, ChangelogWriter, entryAfter, type ChangelogEntry } from './changelog.js';
import { ChangelogKeeper } from './changelog-sync.js';
import { chunkBatch } from './chunk.js';
import { clientOf, RETRY, type KafkaLog } from './client.js';
import type { SourceDefinition } from './definition.js';
import { ChunkWindow } from './chunk-window.js';
import { OffsetCommitter } from './offset-committer.js';
import { compileMapping, type MessageMapper } from './mapping.js';
import { SourceSockets } from './sockets.js';
import type { PartitionStatus, RunnerDeps, RunnerHandle, RunnerStatus } from './runner-contract.js';

/**
 * Fetch sizes: about 10 MB per request and per partition, so a backlog is read
 * in few round trips (a bare consumer reads ~430k small messages/s this way).
 * Memory stays bounded: kafkajs holds one fetch while eachBatch works, and
 * eachBatch waits for room among the chunks sent (IN_FLIGHT), so a slow store
 * pauses fetching instead of queueing.
 */
export const FETCH_BYTES = 10 * 1024 * 1024;
/** Messages per state transaction: large enough that a commit's fixed cost is shared, small enough to heartbeat often. */
export const CHUNK = 5_000;
/**
 * Chunks sent to the writer and not yet applied (chunk-window.ts): enough that the writer always finds the
 * next one waiting, across kafkajs's fetches, while this thread maps the one after. With one chunk at a time,
 * each side waited for the other: idle 3.5 s of 13.6 on the writer's thread and 4.7 s on the consumer's (1M
 * events); with two per batch, about 2.2 and 2.7 s, the rest being the fetches.
 */
export const IN_FLIGHT = 4;
/** After a chunk failed, its partition is paused this long, then consumed again from its stored offset. */
const RESYNC_MS = 1_000;
/** How often the offsets in the state are committed to the group (lag reporting only). */
const COMMIT_MS = 1_000;

/**
 * One source, consumed by one kafkajs consumer in the source's group. Exactly
 * once into the state: each chunk of a partition's messages is mapped, and its
 * events, counters and the partition's offset commit in one SQLite transaction
 * (ProjectRegistry.ingestPart); messages at or below the stored offset are
 * skipped, and on every assignment the consumer seeks to the stored offset + 1.
 * The group's own commit follows, of the offsets in the state, for lag
 * reporting only. Chunks are sent ahead of being applied (chunk-window.ts); a
 * chunk that fails pauses its partition, which then starts again from its
 * stored offset. Mapping and validating a chunk happen here, on the runner's
 * thread; in `pcg serve` and `pcg worker` that is the consumer thread, and the
 * writes happen on the thread that owns the registry (consumer-thread.ts).
 */
export class SourceRunner implements RunnerHandle {
  private readonly current: Omit<RunnerStatus, 'partitions'> = { state: 'starting', assigned: [], eventsApplied: 0, deadLetters: 0, lastError: null, updatedAt: new Date().toISOString() };
  private consumer: Consumer | undefined;
  private admin: Admin | undefined;
  private readonly map: MessageMapper;
  private readonly partitions = new Map<number, PartitionStatus>();
  private readonly chunkSize: number;
  private readonly window = new ChunkWindow(IN_FLIGHT);
  /** Partitions whose chunk failed, until they are consumed again from their stored offset. */
  private readonly broken = new Set<number>();
  private readonly commits: OffsetCommitter;
  /** Every connection of this source's clients: closed with it, so a stopped source holds none. */
  private readonly sockets = new SourceSockets((address, error) => this.connectionFailed(`cannot connect to ${address}: ${error.message}`));
  private stopped = false;
  /** The source's changelog, when it is on (changelog-sync.ts). */
  private keeper: ChangelogKeeper | undefined;
  /** Partitions held paused while their state and changelog are brought level (changelog on). */
  private readonly syncing = new Set<number>();
  /** Per partition, the last chunk sent (settles once applied and logged, or failed): a sync waits for it. */
  private readonly lastSent = new Map<number, Promise<void>>();
  /** Counts assignments: a sync of an older one gives way. */
  private generation = 0;
  /** kafkajs's log, told to the supervisor's and kept as the last error when it is one. */
  private readonly log: KafkaLog = (level, message, extra) => {
    // A stopped runner's client may retry a connect for minutes, through sockets that fail at once: not news.
    if (this.stopped) return;
    if (level === 'error') this.connectionFailed(typeof extra.error === 'string' && extra.error && !message.includes(extra.error) ? `${message}: ${extra.error}` : message);
    this.deps.log?.(level, message, extra);
  };

  constructor(
    readonly source: SourceDefinition,
    private readonly deps: RunnerDeps,
  ) {
    this.map = compileMapping(source.format, source.mapping);
    this.chunkSize = deps.chunk ?? CHUNK;
    this.commits = new OffsetCommitter(source.topic, COMMIT_MS, () => this.current.assigned);
  }

  /** A copy of the runner's status, partitions in order. */
  get status(): RunnerStatus {
    return { ...this.current, ...(this.keeper ? { changelog: { ...this.keeper.stats } } : {}), partitions: [...this.partitions.values()].sort((a, b) => a.partition - b.partition).map((p) => ({ ...p })) };
  }

  async start(): Promise<void> {
    const { source } = this;
    const kafka = clientOf(source, `pcg-${this.deps.workerId}`, this.log, this.sockets.factory);
    if (source.changelog) {
      const admin = kafka.admin();
      this.admin = admin;
      const out = new ChangelogWriter(source, kafka, () => admin);
      this.keeper = new ChangelogKeeper(source, this.deps.writer, this.map, out, kafka, this.chunkSize);
      // Its topic exists and its producer is connected before the first chunk is applied.
      await out.open();
      if (this.stopped) return;
    }
    const consumer = kafka.consumer({
      groupId: source.groupId,
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
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      // What each partition's next chunk follows is read from the state again: another worker may have moved it.
      this.window.forget();
      void this.assigned(e.payload.memberAssignment[source.topic] ?? []);
    });
    consumer.on(consumer.events.CRASH, (e) => this.failed(e.payload.error, e.payload.restart));
    consumer.on(consumer.events.COMMIT_OFFSETS, (e) => {
      for (const t of e.payload.topics) for (const p of t.partitions) this.partition(Number(p.partition)).committed = Number(p.offset);
    });
    await consumer.connect();
    // Stopped while connecting (a paused or deleted source): stop() has let it go.
    if (this.stopped) return;
    await consumer.subscribe({ topics: [source.topic], fromBeginning: source.start !== 'latest' });
    if (this.stopped) return;
    await consumer.run({
      // Resolved offsets run ahead of the state (sent, not yet applied); the group gets the state's (OffsetCommitter).
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 1,
      eachBatch: (payload) => this.eachBatch(payload),
    });
    this.commits.start(consumer);
    // A crash during the first join may already have said otherwise.
    if (this.current.state === 'starting') this.setState('running');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const consumer = this.consumer;
    this.consumer = undefined;
    this.commits.stop();
    // Not (or no longer) in the group: nothing to leave or commit, and its connect, which may be waiting on a host
    // that never answers, is cut short now rather than after its request timeout.
    if (this.current.state === 'starting') this.sockets.close();
    // No more batches, then every chunk sent applied (or failed), then their offsets told to the group.
    await consumer?.stop().catch(() => undefined);
    await this.window.drain();
    if (consumer) await this.commits.flush(consumer);
    await this.keeper?.out.close();
    await consumer?.disconnect().catch(() => undefined);
    await this.admin?.disconnect().catch(() => undefined);
    // kafkajs may still be retrying a connect (a broker away): it opens nothing from now on.
    this.sockets.close();
    this.setState('stopped');
  }

  /**
   * Sends a fetched batch to the writer chunk by chunk (each mapped and validated here), and resolves each chunk's
   * offset once it is sent: kafkajs then fetches on while the writer applies (chunk-window.ts). Messages at or below
   * the offset the partition's next chunk follows are skipped: they are applied, or on their way.
   */
  private async eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const { partition, messages, topic } = batch;
    const status = this.partition(partition);
    status.highWatermark = Number(batch.highWatermark);
    const leave = () => !isRunning() || isStale() || this.broken.has(partition) || this.syncing.has(partition);
    if (leave()) return;
    let follows = await this.window.next(partition, () => this.storedOffset(partition));
    for (let from = 0; from < messages.length; from += this.chunkSize) {
      if (leave()) return;
      const chunk = messages.slice(from, from + this.chunkSize);
      const last = chunk[chunk.length - 1]!.offset;
      const after = follows;
      const fresh = chunk.filter((m) => Number(m.offset) > after);
      if (fresh.length) {
        const batch = chunkBatch(this.map, topic, partition, fresh);
        const prepared = prepareBatch(batch, this.deps.writer.limits);
        const sent = { prepared: prepared as PreparedBatch | undefined, messages: fresh, entry: this.keeper ? changelogEntry(batch, prepared) : undefined };
        await this.window.room();
        if (leave()) return;
        this.window.send(partition, Number(last), () => {
          const settled = this.apply(topic, partition, sent, Number(last), after).then(
            () => this.chunkApplied(partition, Number(last)),
            (error: unknown) => this.chunkFailed(partition, error as Error),
          );
          this.lastSent.set(partition, settled);
          return settled;
        });
        follows = Number(last);
      }
      if (leave()) return;
      resolveOffset(last);
      await heartbeat();
    }
  }

  private chunkApplied(partition: number, last: number): void {
    // Taken away meanwhile (a rebalance): its new owner reports it, and commits it.
    if (!this.current.assigned.includes(partition)) return;
    const status = this.partition(partition);
    status.applied = Math.max(status.applied ?? -1, last);
    if (status.highWatermark !== null) status.lag = Math.max(0, status.highWatermark - status.applied - 1);
    this.commits.applied(partition, status.applied);
    this.current.updatedAt = new Date().toISOString();
    this.deps.onChange?.();
  }

  /**
   * A chunk was not applied (the chunks sent after it are then refused as gaps): the partition is paused, and
   * after RESYNC_MS consumed again from its stored offset. Fetched batches of it are left meanwhile.
   */
  private chunkFailed(partition: number, error: Error): void {
    // The chunks sent after a failed one are refused as gaps: the first failure is the one to tell.
    if (this.broken.has(partition) && error instanceof EngineError && error.code === 'position_gap') return;
    this.current.lastError = { message: `partition ${partition}: ${error.message}`, at: new Date().toISOString() };
    this.current.updatedAt = this.current.lastError.at;
    this.deps.onChange?.();
    if (this.broken.has(partition)) return;
    this.broken.add(partition);
    this.consumer?.pause([{ topic: this.source.topic, partitions: [partition] }]);
    this.resyncLater(partition);
  }

  /** After RESYNC_MS: the partition is consumed again from its stored offset (tried again while that cannot be read). */
  private resyncLater(partition: number): void {
    const consumer = this.consumer;
    const topic = this.source.topic;
    setTimeout(() => {
      void (async () => {
        if (this.keeper && consumer && this.consumer === consumer) {
          // The changelog may lack chunks the state has (a failed write): brought level first.
          const generation = this.generation;
          this.syncing.add(partition);
          // False: a newer assignment syncs it, then seeks and resumes it.
          if (!(await this.syncChangelog([partition], generation))) return void this.broken.delete(partition);
          this.syncing.delete(partition);
        }
        // Read after every chunk sent before it was answered (the writer answers in order), so it is final.
        const stored = await this.storedOffset(partition).catch(() => undefined);
        if (!consumer || this.consumer !== consumer) return;
        if (stored === undefined) return this.resyncLater(partition);
        this.window.forget(partition);
        try {
          if (this.current.assigned.includes(partition)) consumer.seek({ topic, partition, offset: String(stored + 1) });
        } catch (error) {
          this.current.lastError = { message: `partition ${partition}: ${(error as Error).message}`, at: new Date().toISOString() };
        }
        this.broken.delete(partition);
        consumer.resume([{ topic, partitions: [partition] }]);
      })();
    }, RESYNC_MS).unref();
  }

  /**
   * Applies a prepared chunk with its last offset and the offset it follows. When the stored position moved
   * meanwhile (another writer took the partition), the store refuses the overlap whole; the messages past the new
   * stored offset are mapped again here and applied. The prepared batch is let go once it is handed to the writer
   * (`sent.prepared` emptied, no local holding it across the wait): up to IN_FLIGHT chunks wait at the writer, and
   * their events kept here lived through the consumer thread's scavenges and were promoted, only to die old.
   */
  private async apply(topic: string, partition: number, sent: { prepared: PreparedBatch | undefined; messages: KafkaMessage[]; entry: ChangelogEntry | undefined }, last: number, after: number): Promise<void> {
    const { source, deps } = this;
    const position = (first: number) => ({ source: source.id, partition, offset: last, first, after });
    let first = Number(sent.messages[0]!.offset);
    /** What the chunk's changelog record follows: the offset it was sent after, or what another writer stored meanwhile. */
    let follows = after;
    let entry = sent.entry;
    let pending = deps.writer.ingest(source.projectId, sent.prepared!, position(first));
    sent.prepared = undefined;
    for (;;) {
      let result: ApplyResult;
      try {
        result = await pending;
      } catch (error) {
        if (!(error instanceof EngineError && error.code === 'position_overlap')) throw error;
        const stored = await this.storedOffset(partition);
        const rest = sent.messages.filter((m) => Number(m.offset) > stored);
        if (rest.length === 0) return;
        first = Number(rest[0]!.offset);
        follows = stored;
        if (entry) entry = entryAfter(entry, stored);
        pending = deps.writer.ingest(source.projectId, prepareBatch(chunkBatch(this.map, topic, partition, rest), deps.writer.limits), position(first));
        continue;
      }
      this.current.eventsApplied += result.accepted;
      this.current.deadLetters += result.rejected;
      // In the state now; in the changelog before it counts as applied (and its offset is committed to the group).
      // Not applied (another writer had stored all of it): that writer logs it.
      if (this.keeper && entry && result.applied) await this.keeper.log(partition, entry, { offset: last, first, after: follows });
      return;
    }
  }

  private storedOffset(partition: number): Promise<number> {
    return this.deps.writer.storedOffset(this.source.projectId, this.source.id, partition);
  }

  /**
   * On every assignment: resume each partition right after its stored offset (or at the start position when it has
   * none). The seeks may land after the first fetch: eachBatch skips what is stored either way.
   */
  private async assigned(partitions: number[]): Promise<void> {
    this.current.assigned = [...partitions].sort((a, b) => a - b);
    for (const p of [...this.partitions.keys()]) if (!partitions.includes(p)) this.partitions.delete(p);
    const generation = ++this.generation;
    if (this.keeper) {
      // No chunk of them is consumed until each state and the changelog agree (restored, or the tail republished).
      this.syncing.clear();
      for (const p of partitions) this.syncing.add(p);
      if (partitions.length) this.consumer?.pause([{ topic: this.source.topic, partitions }]);
      if (!(await this.syncChangelog(partitions, generation))) return;
    }
    const byTime: number[] = [];
    for (const p of partitions) {
      // Never throws: an error here would crash the consumer for good. Without the seek, eachBatch still skips what is stored.
      try {
        const stored = await this.storedOffset(p);
        const status = this.partition(p);
        status.applied = stored >= 0 ? stored : null;
        if (stored >= 0) this.consumer?.seek({ topic: this.source.topic, partition: p, offset: String(stored + 1) });
        else if (typeof this.source.start === 'object') byTime.push(p);
      } catch (error) {
        this.current.lastError = { message: `partition ${p}: ${(error as Error).message}`, at: new Date().toISOString() };
      }
    }
    if (byTime.length) void this.seekToTime(byTime);
    if (this.keeper && generation === this.generation) {
      this.syncing.clear();
      for (const p of partitions) this.window.forget(p);
      if (partitions.length) this.consumer?.resume([{ topic: this.source.topic, partitions }]);
    }
    this.setState('running');
  }

  /**
   * Brings the partitions' states and changelog level (ChangelogKeeper.sync), once every chunk sent of them has
   * settled; tried again every RESYNC_MS while it fails. False when a newer assignment (or a stop) took over.
   */
  private async syncChangelog(partitions: number[], generation: number): Promise<boolean> {
    const superseded = () => this.stopped || generation !== this.generation;
    for (;;) {
      try {
        await Promise.all(partitions.map((p) => this.lastSent.get(p)));
        const problems = await this.keeper!.sync(partitions, superseded);
        for (const message of problems) this.connectionFailed(message);
        return !superseded();
      } catch (error) {
        if (superseded()) return false;
        this.current.lastError = { message: `changelog: ${(error as Error).message}`, at: new Date().toISOString() };
        this.deps.onChange?.();
        await new Promise((r) => setTimeout(r, RESYNC_MS));
        if (superseded()) return false;
      }
    }
  }

  private async seekToTime(partitions: number[]): Promise<void> {
    const { source } = this;
    if (typeof source.start !== 'object') return;
    try {
      this.admin ??= clientOf(source, `pcg-${this.deps.workerId}-admin`, this.log, this.sockets.factory).admin();
      await this.admin.connect();
      const offsets = await this.admin.fetchTopicOffsetsByTimestamp(source.topic, Date.parse(source.start.timestamp));
      for (const o of offsets) {
        if (partitions.includes(o.partition)) this.consumer?.seek({ topic: source.topic, partition: o.partition, offset: o.offset });
      }
    } catch (error) {
      this.failed(error as Error, true);
    }
  }

  /** A connection or request failed (kafkajs retries it): said at once in the status, not when kafkajs gives up. */
  private connectionFailed(message: string): void {
    if (this.stopped) return;
    this.current.lastError = { message, at: new Date().toISOString() };
    this.current.updatedAt = this.current.lastError.at;
    this.deps.onChange?.();
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
