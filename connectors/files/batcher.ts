import type { Batch, Rejection } from '../../engine/index.js';

export const DEFAULT_BATCH_SIZE = 5000;

/**
 * Cuts a reader's output into batches of exactly `size` items (records plus
 * rejections), whatever the chunking of the input: batch boundaries, and so
 * the positions an import stores, are the same on every run over one file.
 */
export class Batcher {
  private records: unknown[] = [];
  private locations: string[] = [];
  private rejected: Rejection[] = [];
  private readonly ready: Batch[] = [];

  constructor(private readonly size: number) {}

  /** Without a location (lean reading for inspect, whose records cannot fail the check) none is kept. */
  record(record: unknown, location?: string): void {
    this.records.push(record);
    if (location !== undefined) this.locations.push(location);
    if (this.records.length + this.rejected.length >= this.size) this.cut();
  }

  reject(location: string, reason: string, payload: string): void {
    this.rejected.push({ location, reason, payload });
    if (this.records.length + this.rejected.length >= this.size) this.cut();
  }

  /** Batches completed so far (each returned once). */
  take(): Batch[] {
    return this.ready.splice(0);
  }

  /** Everything left, as a final (smaller) batch. */
  flush(): Batch[] {
    if (this.records.length + this.rejected.length > 0) this.cut();
    return this.take();
  }

  private cut(): void {
    const batch: Batch = this.locations.length ? { records: this.records, locations: this.locations } : { records: this.records };
    if (this.rejected.length) (batch as { rejected?: Rejection[] }).rejected = this.rejected;
    this.ready.push(batch);
    this.records = [];
    this.locations = [];
    this.rejected = [];
  }
}

export function batchSizeOf(value: number | undefined): number {
  if (value === undefined) return DEFAULT_BATCH_SIZE;
  return Number.isInteger(value) && value > 0 ? value : Number.NaN;
}

/** A zero-padded ordinal under the file's prefix: ties in time keep file order, and a re-import finds the same ids. */
export function ordinalId(prefix: string, ordinal: number): string {
  return `${prefix}:${String(ordinal).padStart(10, '0')}`;
}
