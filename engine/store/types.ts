import type { EventLimits } from '../event.js';
import type { Tally } from '../tally.js';
import type { FoldBudget } from './case-cache.js';

/** The store's public shapes: what sources hand in and what readers get back. */

/** Where a batch came from: applying a position at or below the stored one is a no-op. */
export interface Position {
  source: string;
  partition: number;
  /** The batch's last offset. */
  offset: number;
  /** The batch's first offset, when it covers a range (a stream's batch): a stored position inside the range is refused, never half-applied. */
  first?: number;
  /**
   * The stored offset the batch follows, when the sender has batches in flight: a stored position below it
   * means a batch before this one was not applied, and this one is refused rather than leave a gap.
   */
  after?: number;
}

/** A record the connector could not even turn into a wire event (bad CSV row, bad JSON). */
export interface Rejection {
  reason: string;
  /** The raw input, as text. */
  payload: string;
  /** Where it was: a line, an element, a Kafka offset. */
  location: string;
  /** The input's own bytes, when they are not text (a stream message): kept so that it can be re-mapped later. */
  raw?: Uint8Array;
}

export interface ObjectRecord {
  id: string;
  type: string;
}
export interface ObjectRelation {
  fromId: string;
  toId: string;
  qualifier: string;
}

export interface Batch {
  /** Wire events, unvalidated. */
  records: readonly unknown[];
  /** Per record, where it came from (for dead letters); defaults to `record N`. */
  locations?: readonly string[];
  rejected?: readonly Rejection[];
  /** Per record, the message it was mapped from: kept with the record's dead letter if it is refused. */
  raws?: readonly (Uint8Array | undefined)[];
  objects?: readonly ObjectRecord[];
  objectRelations?: readonly ObjectRelation[];
}

export interface ApplyResult {
  /** False when the position had already been applied: nothing changed. */
  applied: boolean;
  accepted: number;
  duplicates: number;
  rejected: number;
  /** The first few rejections of this batch. */
  rejections: { location: string; reason: string }[];
  dataVersion: number;
}

/**
 * One batch's counted change, between two consecutive data versions of a store: its counter rows as the store
 * keeps them (the rows of a JSON array of `[kind, k1, k2, bucket, n]`). Another connection to the same file that
 * holds the tally at `from` adds them instead of reading every counter (ProjectStore.followChange).
 */
export interface TallyChange {
  from: number;
  to: number;
  rows: string;
}

/** What the document builder reads: sufficient statistics plus source facts. */
export interface ProjectSnapshot {
  tally: Tally;
  dataVersion: number;
  logDigest: string;
  periodStart: number | undefined;
  periodEnd: number | undefined;
  rejected: number;
  meta: Readonly<Record<string, string>>;
  objectCounts: Map<string, number>;
  objectRelations: { fromType: string; toType: string; qualifier: string; count: number }[];
}

/** A refused input kept in the store, with what a source needs to re-map it. */
export interface DeadLetter {
  id: number;
  source: string;
  location: string;
  reason: string;
  /** The refused record as text (JSON of a mapped record, or the input line). */
  payload: string;
  /** The original message's bytes, at most MAX_RAW_BYTES of them (undefined for file and HTTP inputs). */
  raw: Uint8Array | undefined;
  receivedAt: number;
}

/** What replaying a dead letter through a fixed mapping gives: a record to apply again, or why it still fails. */
export type Remapped = { record: unknown } | { reason: string };

export interface ReplayResult {
  /** Letters whose record was applied again (and removed). */
  replayed: number;
  /** Letters that still do not map or validate (kept, with their new reason). */
  failing: number;
  dataVersion: number;
}

export interface StoreOptions {
  /** Folds of recently touched cases kept in memory (default 100k cases, a few hundred MB at most: the cases a stream has in flight). */
  cacheCases?: number;
  /**
   * Bytes of folds the cache gave up kept as text, so that a case back after a long wait is restored rather than
   * recounted from its rows (default DEFAULT_COLD_FOLD_BYTES; see ColdFolds).
   */
  coldFoldBytes?: number;
  /** Counter ids numbered before the store starts a fresh KeyBook between batches (default 200k; small values exercise the reset in tests). */
  maxCounterIds?: number;
  /** Pending counter or case changes (rows of their batch logs) that trigger a merge into the counter and case tables (default 100k for counters, 400k for cases; see CounterTable and CaseTable). */
  mergeAfter?: number;
  /**
   * Whether a due merge of pending changes waits for `settle` (until it is overdue) instead of running inside the
   * batch that made it due: a server settles after answering, so no ingest request waits for a merge (default false).
   */
  deferMerges?: boolean;
  /** Bounds on one event (default DEFAULT_EVENT_LIMITS): an event over one is a dead letter whose reason names the limit. */
  limits?: EventLimits;
  /** A cap on cached folds shared with other stores of the process (a registry's), on top of cacheCases. */
  foldBudget?: FoldBudget;
}
