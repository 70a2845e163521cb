import type { Kafka } from 'kafkajs';
import { EngineError, prepareBatch, type Position } from '../../engine/index.js';
import { batchOfRecord, changelogEntry, decodeRecord, encodeRecord, entryAfter, type ChangelogEntry, type ChangelogWriter } from './changelog.js';
import { chunkBatch } from './chunk.js';
import type { SourceDefinition } from './definition.js';
import { faultPoint } from './fault.js';
import type { MessageMapper } from './mapping.js';
import { readRanges, type ReadRange } from './partition-reader.js';
import type { ChangelogStats } from './runner-contract.js';
import type { StateWriter } from './state-writer.js';

/**
 * Fetch size when reading a changelog: its records are gzip-compressed about tenfold, and a fetch is held
 * decompressed while it is applied, so a tenth of a source fetch (FETCH_BYTES) holds about as many events.
 */
const CHANGELOG_FETCH_BYTES = 1024 * 1024;

/**
 * Keeps a source's partition states and its changelog (changelog.ts) in step,
 * for the runner that owns the partitions:
 * - `log`: each applied chunk's record, written after the state's transaction
 *   and before the chunk counts as applied (so before its offset is committed
 *   to the group), one partition's records strictly in order; after a write
 *   failed, the partition's later records are refused until `sync` ran.
 * - `sync`, on every assignment and after a failure: compares each partition's
 *   stored offset with the source offset its changelog ends at. A state behind
 *   (absent: a new host, a lost disk) is restored from the changelog through
 *   the same apply path as the source's chunks; a state ahead (killed between
 *   its transaction and the changelog write) has its tail read again from the
 *   source topic and written to the changelog.
 */
export class ChangelogKeeper {
  readonly stats: ChangelogStats = { writtenRecords: 0, restoredRecords: 0, restoredEvents: 0, republishedRecords: 0 };
  /** Per partition: the last write (never rejects), which the next one waits for. */
  private readonly tails = new Map<number, Promise<void>>();
  /** Partitions whose last write failed: their changelog would have a hole after it. */
  private readonly broken = new Set<number>();
  /** Per partition: the changelog offset this runner last wrote, and the source offset that record ends at. */
  private readonly written = new Map<number, { at: number; offset: number }>();

  constructor(
    private readonly source: SourceDefinition,
    private readonly writer: StateWriter,
    private readonly map: MessageMapper,
    readonly out: ChangelogWriter,
    private readonly kafka: Kafka,
    private readonly chunkSize: number,
  ) {}

  /** Writes the record of a chunk just applied; rejects when it, or a record before it of the partition, was not written. */
  log(partition: number, entry: ChangelogEntry, position: Required<Pick<Position, 'offset' | 'first' | 'after'>>): Promise<void> {
    const next = (this.tails.get(partition) ?? Promise.resolve()).then(async () => {
      if (this.broken.has(partition)) throw new Error(`changelog ${this.out.topic}/${partition}: a record before this one was not written`);
      // Between the state's commit and the changelog: where a crash leaves a tail to publish again.
      faultPoint('changelog-write');
      const at = await this.out.write(partition, encodeRecord(entry, position));
      this.written.set(partition, { at, offset: position.offset });
      this.stats.writtenRecords += 1;
    });
    this.tails.set(
      partition,
      next.catch(() => {
        this.broken.add(partition);
      }),
    );
    return next;
  }

  /**
   * Brings the partitions' states and changelogs level (see the class). The caller holds them paused, with every
   * chunk it sent of them settled. Returns what could not be made exact (a changelog with a hole): the partition
   * then goes on from its stored offset in the source topic.
   */
  async sync(partitions: readonly number[], stopped: () => boolean): Promise<string[]> {
    await Promise.all(partitions.map((p) => this.tails.get(p)));
    for (const p of partitions) this.broken.delete(p);
    const { source, out } = this;
    const ends = await out.offsets();
    const stored = new Map<number, number>();
    for (const p of partitions) stored.set(p, await this.writer.storedOffset(source.projectId, source.id, p));
    // The source offset each changelog partition ends at (-1: empty), from the last record, unless this runner wrote it.
    const last = new Map<number, number>();
    const unknown = new Map<number, ReadRange>();
    for (const p of partitions) {
      const end = ends.get(p);
      if (!end || end.high <= end.low) last.set(p, -1);
      else if (this.written.get(p)?.at === end.high - 1) last.set(p, this.written.get(p)!.offset);
      else unknown.set(p, { from: end.high - 1, until: end.high - 1 });
    }
    await readRanges(this.kafka, source.groupId, out.topic, unknown, async (p, messages) => void last.set(p, decodeRecord(messages[messages.length - 1]!.value).offset), stopped, CHANGELOG_FETCH_BYTES);
    if (stopped()) return [];
    const restore = new Map<number, ReadRange>();
    const republish = new Map<number, ReadRange>();
    for (const p of partitions) {
      const s = stored.get(p)!;
      const l = last.get(p)!;
      if (s < l) restore.set(p, { from: ends.get(p)!.low, until: ends.get(p)!.high - 1 });
      else if (s > l) republish.set(p, { from: l + 1, until: s });
    }
    const problems = restore.size ? await this.restore(restore, stored, stopped) : [];
    if (republish.size && !stopped()) await this.republish(republish, last, stopped);
    return problems;
  }

  /** Applies the changelog's records past each state's stored offset, in order, as the runner applies chunks. */
  private async restore(ranges: Map<number, ReadRange>, stored: Map<number, number>, stopped: () => boolean): Promise<string[]> {
    const { source, writer } = this;
    const problems: string[] = [];
    const holed = new Set<number>();
    await readRanges(
      this.kafka,
      source.groupId,
      this.out.topic,
      ranges,
      async (p, messages) => {
        for (const m of messages) {
          if (holed.has(p)) return;
          const record = decodeRecord(m.value);
          this.stats.restoredRecords += 1;
          for (;;) {
            const s = stored.get(p)!;
            // Already in the state (the store would find it applied, too).
            if (record.offset <= s) break;
            // Written twice (a former owner's last writes after the next owner's): the part past the state.
            const whole = record.first > s;
            const entry = whole ? record : entryAfter(record, s);
            const position = { source: source.id, partition: p, offset: record.offset, first: whole ? record.first : s + 1, after: whole ? record.after : s };
            try {
              const result = await writer.ingest(source.projectId, prepareBatch(batchOfRecord({ ...record, ...entry }, source.topic, p), writer.limits), position);
              this.stats.restoredEvents += result.accepted;
              stored.set(p, record.offset);
              break;
            } catch (error) {
              if (error instanceof EngineError && error.code === 'position_overlap') {
                stored.set(p, await writer.storedOffset(source.projectId, source.id, p));
                continue;
              }
              if (error instanceof EngineError && error.code === 'position_gap') {
                holed.add(p);
                problems.push(`changelog ${this.out.topic}/${p} at ${m.offset}: its records follow offset ${record.after}, the state holds up to ${s}; restored up to ${s}, the rest is read from the source topic`);
                return;
              }
              throw error;
            }
          }
        }
      },
      stopped,
      CHANGELOG_FETCH_BYTES,
    );
    return problems;
  }

  /** Reads the source offsets a state holds past its changelog again, and writes them to the changelog as chunks. */
  private async republish(ranges: Map<number, ReadRange>, last: Map<number, number>, stopped: () => boolean): Promise<void> {
    const { source, writer } = this;
    const after = new Map(last);
    await readRanges(
      this.kafka,
      source.groupId,
      source.topic,
      ranges,
      async (p, messages) => {
        for (let i = 0; i < messages.length; i += this.chunkSize) {
          const chunk = messages.slice(i, i + this.chunkSize);
          const batch = chunkBatch(this.map, source.topic, p, chunk);
          const offset = Number(chunk[chunk.length - 1]!.offset);
          await this.log(p, changelogEntry(batch, prepareBatch(batch, writer.limits)), { offset, first: Number(chunk[0]!.offset), after: after.get(p)! });
          after.set(p, offset);
          this.stats.republishedRecords += 1;
        }
      },
      stopped,
    );
  }
}
