import type { Tally } from '../tally.js';

/** The store's public shapes: what sources hand in and what readers get back. */

/** Where a batch came from: applying a position at or below the stored one is a no-op. */
export interface Position {
  source: string;
  partition: number;
  offset: number;
}

/** A record the connector could not even turn into a wire event (bad CSV row, bad JSON). */
export interface Rejection {
  reason: string;
  /** The raw input, as text. */
  payload: string;
  /** Where it was: a line, an element, a Kafka offset. */
  location: string;
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

export interface StoreOptions {
  /** Folds of recently touched cases kept in memory (default 100k cases, a few hundred MB at most: the cases a stream has in flight). */
  cacheCases?: number;
  /** Counter ids numbered before the store starts a fresh KeyBook between batches (default 200k; small values exercise the reset in tests). */
  maxCounterIds?: number;
  /** Pending counter or case changes (rows of their batch logs) that trigger a merge into the counter and case tables (default 100k; see CounterTable). */
  mergeAfter?: number;
}
