import type { Batch, EventLimits } from '../../engine/index.js';
import type { FormatName } from './formats.js';
import type { PartsRun, XesInParts } from './xes-parts.js';

/**
 * The contract every file reader keeps. A reader streams a log as engine
 * batches (bounded in size), so import and inspect share one path and memory
 * stays flat in the size of the file.
 */
export const LIFECYCLE_MODES = ['pair', 'all', 'complete', 'label'] as const;
export type LifecycleMode = (typeof LIFECYCLE_MODES)[number];

export interface ImportOptions {
  /** Force a format instead of detecting it from the content. */
  format?: FormatName;
  /**
   * XES: what lifecycle transitions make (lifecycle.ts). `pair`: each start and the transition that closes it are one
   * execution, with the start as its start_timestamp, marking transitions left out; `all`: every event is a step;
   * `complete`: only complete events; `label`: the transition appended to the activity. Absent: chosen from the log's
   * values (lifecycle-choice.ts): `label` when most are outside the standard model (a sub-status), else `pair`.
   */
  lifecycle?: LifecycleMode;
  /** XES: name of a classifier declared in the log's header. */
  classifier?: string;
  /** CSV column mapping (auto-detected when absent). */
  caseColumn?: string;
  activityColumn?: string;
  timestampColumn?: string;
  resourceColumn?: string;
  startTimestampColumn?: string;
  /** CSV delimiter (sniffed when absent). */
  delimiter?: string;
  /** IANA zone or `UTC` for zone-less times (default UTC). */
  timezone?: string;
  /** OCEL: the object type whose objects become cases (default: the type with one object per process execution touching the most activities; see ocel/case-notion.ts). */
  caseNotion?: string;
  /** Records per batch (default 5000). */
  batchSize?: number;
  /**
   * XES: the log records order only. Not a user's option: set when the log's first events carry no time:timestamp
   * (lifecycle-choice.ts samples them), so that every thread reading a part of the file reads it the same way.
   */
  untimed?: boolean;
}

export interface LogSource {
  /** The detected (or forced) format. */
  format: NonNullable<ImportOptions['format']>;
  /** What a case is: `trace` for XES, the case column for CSV, the object type for OCEL. */
  caseNotion: string;
  /** Why that is the case notion, in words (OCEL: the rule and its numbers); stored as meta `case_notion_reason`. */
  caseNotionReason?: string;
  /** Events left out for having no case under the notion (OCEL: no object of the type; meta `events_without_case_object`). */
  eventsWithoutCase?: number;
  /**
   * OCEL: per object type, the activities whose events relate to its objects, over every event of
   * the log (not only those the case notion keeps); stored as meta `object_type_activities`, so the
   * document lists them for any case notion, also when the project is opened again.
   */
  objectTypeActivities?: Record<string, string[]>;
  /** XES: the lifecycle mode the events are read with and why (lifecycle-choice.ts); stored as meta `lifecycle` and `lifecycle_reason`. */
  lifecycle?: { mode: LifecycleMode; reason: string };
  /** A content digest of the file: the source id under which its batches are positioned. */
  sourceId: string;
  /** The batches of the log, in file order. Each may carry rejections with their line or element. */
  batches(): AsyncGenerator<Batch>;
  /** Extra facts for `pcg inspect` (OCEL: object types and relations with counts). */
  extra(): Record<string, unknown>;
  /** Bytes of content (decompressed) read so far: the whole file's once batches() has been read to the end. */
  contentBytes?(): number;
  /**
   * Where the content stops early or breaks, once batches() has been read to the end: a .gz whose
   * stream ends early, XML that ends inside an element, a last line cut off. (Its complete events
   * are still in the batches, and the damage itself is one of their rejections.)
   */
  damage?(): FileDamage | undefined;
  /**
   * XES: reads the log into memory on two threads (xes-parts.ts); undefined when it cannot be read so
   * exactly (then read its batches).
   */
  readInParts?(limits: EventLimits, run?: PartsRun): Promise<XesInParts | undefined>;
}

/** Damage to a file as a whole, with where reading stopped. */
export interface FileDamage {
  location: string;
  reason: string;
}
