/**
 * The chunks a runner has sent to the writer and not yet seen applied, across
 * its partitions, and the offset each partition's next chunk follows.
 *
 * Why a window: kafkajs fetches again only once every batch of its last fetch
 * is handled, and the writer (another thread) applies chunks one at a time. If
 * a batch were handled only once its chunks are in the state, the writer would
 * wait for every fetch and the fetch for the writer's last chunk. So a batch is
 * handled once its chunks are *sent*; up to `size` of them wait at the writer,
 * which keeps it busy across fetches, and memory stays bounded.
 *
 * Sending ahead is exact because each chunk names the offset it follows: the
 * store refuses one whose predecessor is not applied (`position_gap`), so a
 * failed chunk can never leave a gap behind a stored offset (SourceRunner then
 * goes back to the stored offset).
 */
export class ChunkWindow {
  private readonly pending = new Set<Promise<void>>();
  private readonly follows = new Map<number, number>();

  constructor(private readonly size: number) {}

  /** The offset the partition's next chunk follows: the last one sent, or (first, or after `forget`) the stored one. */
  async next(partition: number, stored: () => Promise<number>): Promise<number> {
    const known = this.follows.get(partition);
    if (known !== undefined) return known;
    const offset = await stored();
    this.follows.set(partition, offset);
    return offset;
  }

  /** Resolves once fewer than `size` chunks are pending. */
  async room(): Promise<void> {
    while (this.pending.size >= this.size) await Promise.race(this.pending);
  }

  /** Sends a chunk ending at `last`: `apply` starts it and settles when it is applied or failed (it must never reject). */
  send(partition: number, last: number, apply: () => Promise<void>): void {
    const applying: Promise<void> = apply().finally(() => this.pending.delete(applying));
    this.pending.add(applying);
    this.follows.set(partition, last);
  }

  /** Forgets what a partition's (or every partition's) next chunk follows: it is read from the state again. */
  forget(partition?: number): void {
    if (partition === undefined) this.follows.clear();
    else this.follows.delete(partition);
  }

  /** Waits until every chunk sent is applied or failed. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}
