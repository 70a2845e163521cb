import type { Consumer } from 'kafkajs';

/**
 * The offsets a runner tells its consumer group: those of the chunks in the
 * state, never those merely sent (kafkajs's auto-commit would commit what its
 * batches resolved, which runs ahead of the state). The group's offsets only
 * report lag; where a partition starts again is read from the state.
 * Committed once every `everyMs`, and on `flush`, for the partitions the
 * runner still holds.
 */
export class OffsetCommitter {
  /** Partition → the next offset to read, applied since the last commit. */
  private readonly pending = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly topic: string,
    private readonly everyMs: number,
    /** The partitions assigned to the runner now: a partition taken away is committed by its new owner. */
    private readonly assigned: () => readonly number[],
  ) {}

  /** Notes that a partition's chunks up to `last` are in the state. */
  applied(partition: number, last: number): void {
    this.pending.set(partition, last + 1);
  }

  start(consumer: Consumer): void {
    this.stop();
    this.timer = setInterval(() => void this.flush(consumer), this.everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Commits what was applied since the last commit, of the partitions still assigned. */
  async flush(consumer: Consumer): Promise<void> {
    const assigned = this.assigned();
    const offsets = [...this.pending].filter(([p]) => assigned.includes(p)).map(([partition, offset]) => ({ topic: this.topic, partition, offset: String(offset) }));
    this.pending.clear();
    if (offsets.length === 0) return;
    // A rebalance under way refuses the commit: the next applied chunk commits again.
    await consumer.commitOffsets(offsets).catch(() => undefined);
  }
}
