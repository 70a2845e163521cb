import type { KafkaLog } from './client.js';
import type { SourceDefinition } from './definition.js';
import type { StateWriter } from './state-writer.js';

/**
 * What passes between the supervisor and a source's runner, wherever the
 * runner lives (this thread, or the consumer thread): its status, the hooks
 * the supervisor gives it, and the handle the supervisor holds.
 */

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

/** What a runner did with its source's changelog (changelog-sync.ts), since it started. */
export interface ChangelogStats {
  /** Records written after their chunk was applied (republished ones included). */
  writtenRecords: number;
  /** Changelog records read to restore states that lacked them, and the events those kept. */
  restoredRecords: number;
  restoredEvents: number;
  /** Records of a state's tail that had not reached the changelog, read again from the source topic and written. */
  republishedRecords: number;
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
  /** Only for a source whose changelog is on. */
  changelog?: ChangelogStats;
}

/** What the supervisor gives every runner, wherever it runs. */
export interface RunnerHooks {
  /** Names this process to the brokers (client id) and in status rows. */
  workerId: string;
  log?: KafkaLog;
  /** Called after each applied chunk and each state change (the supervisor writes status from it). */
  onChange?: () => void;
  /** Messages per transaction (default CHUNK). */
  chunk?: number;
  /** The consumer crashed and will not restart itself (kafkajs gives up on errors it does not deem retriable): the supervisor starts a fresh runner. */
  onFailed?: (error: Error) => void;
}

export interface RunnerDeps extends RunnerHooks {
  /** The partition states (the registry, or the thread that owns it). */
  writer: StateWriter;
}

/** A running source as the supervisor sees it: a SourceRunner here, or one on the consumer thread. */
export interface RunnerHandle {
  readonly source: SourceDefinition;
  readonly status: RunnerStatus;
  start(): Promise<void>;
  stop(): Promise<void>;
}
