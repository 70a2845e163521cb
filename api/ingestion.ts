import { EngineError, type ApplyResult, type Batch, type Position } from '../engine/index.js';
import type { PreparedBatch } from '../engine/store/prepare.js';
import type { ApplyObserver, ProjectRegistry } from '../engine/projects/index.js';
import type { FairRun } from './fair-queue.js';
import { readIngestBody } from './ingest-body.js';
import type { Applied, IngestTask, WorkOutcome } from './work-thread.js';
import { OverQuota, unwrap } from './thread-errors.js';
import type { WorkThreads } from './work-threads.js';

/**
 * The largest counted change sent to the other work threads (its rows' text): a soak stream's 150-event batch
 * changes 47-115 KB of it, the fairness bench's 20,000-event batch over 3,000 activities 1.8 MB.
 */
const FOLLOW_MAX_CHARS = 256 * 1024;

/**
 * A batch as it reaches the server: a request body as it came (JSON or NDJSON bytes), records already parsed
 * (MCP's tool), or a batch of a dataset's import with its position (read, and maybe prepared, on a reader thread).
 */
export type IngestInput = { body: Uint8Array | string; ndjson: boolean } | { records: unknown[] } | { batch: Batch | PreparedBatch; position: Position };

/** Applies a tenant's batch to one of its projects; `signal` takes it out of the queue while it waits. */
export type Ingest = (tenantId: string, projectId: string, input: IngestInput, signal?: AbortSignal) => Promise<ApplyResult>;

export interface IngestionOptions {
  states: ProjectRegistry;
  /** The fair queue every batch waits in, per tenant and project. */
  run: FairRun;
  /** The work threads; without them (PCG_BUILD_THREADS=0, for comparison) batches are parsed and applied on the loop. */
  threads?: WorkThreads;
  /** PCG_LIMIT_EVENTS_PER_REQUEST. */
  maxEvents: number;
  observe?: ApplyObserver;
  /** The tenants' event quotas (api/usage.ts): `room` before the body is parsed, `check` with a count to refuse in the quota's words. */
  quota?: Quota;
}

export interface Quota {
  room(tenantId: string): Promise<number>;
  check(tenantId: string, events: number): Promise<void>;
}

/**
 * HTTP ingestion (and MCP's `ingest_events`) off the request loop. A body of
 * 100,000 events (10 MB) took 4.5 s to parse, validate and apply, and every
 * other tenant's request waited behind it. Now the body goes to a work thread
 * as the bytes that came (api/work-thread.ts): the thread parses it, checks the
 * records and applies the batch to the project's own store in the store's one
 * immediate transaction (events, counter deltas and position together: exactly
 * once per position, as on the loop), and answers the counts; this side only
 * announces the new version and counts the batch. Batches wait in the fair
 * queue (api/fair-queue.ts): per tenant, and per project in the tenant's `ingest`
 * lane, which runs one batch at a time, so one project has one writer at a
 * time. A project whose dataset is being taken back on another thread answers
 * 503 (`state_busy`), as before.
 */
export function ingestion(options: IngestionOptions): Ingest {
  const { states, run, threads, maxEvents, observe, quota } = options;
  return async (tenantId, projectId, input, signal) => {
    // The quotas (PCG_QUOTA_*): records already parsed are counted here; a body's events are counted where it is
    // parsed, against the room its tenant's quota leaves, and a body past it asks the quota again with its count
    // (which refuses in the quota's words, or, measured afresh, lets it through).
    // (A dataset's batches were counted with its file, before its import began.)
    if ('records' in input) await quota?.check(tenantId, input.records.length);
    const room = !('body' in input) || !quota ? Number.POSITIVE_INFINITY : await quota.room(tenantId);
    // Opened (made) here first: a project's first batch finds its file there, and a deleted project is never made again by a thread.
    states.store(projectId);
    return run(
      tenantId,
      projectId,
      'batch' in input ? 'upload' : 'ingest',
      async (slot) => {
        if (states.isAway(projectId)) throw new EngineError('state_busy', `project ${projectId} is taking back a dataset's events; write again shortly`);
        if (!threads) {
          if ('batch' in input) return states.ingest(projectId, input.batch, input.position);
          const batch = 'records' in input ? { records: input.records, rejected: [] } : readIngestBody(input.body, input.ndjson, maxEvents);
          if (batch.records.length > room) await quota?.check(tenantId, batch.records.length);
          return states.ingest(projectId, batch);
        }
        const file = states.fileOf(projectId);
        const apply = async (room: number) => {
          const task: IngestTask =
            'batch' in input
              ? { file, batch: input.batch, position: input.position }
              : 'records' in input
                ? { file, records: input.records }
                : { file, body: input.body, ndjson: input.ndjson, maxEvents, room };
          return unwrap(await threads.run<WorkOutcome<Applied>>(slot, { ingest: task }));
        };
        let applied: Applied;
        try {
          applied = await apply(room);
        } catch (error) {
          if (!(error instanceof OverQuota)) throw error;
          await quota?.check(tenantId, error.events);
          applied = await apply(Number.POSITIVE_INFINITY);
        }
        const { result, seconds, change } = applied;
        // The other threads that hold this project's tally carry it forward, so that its next build there does
        // not read every counter again (a project's work moves between threads: api/fair-queue.ts). Not a large
        // change: carrying it runs on the other threads outside the fair queue (a hostile tenant's 20,000-event
        // batches would take time from everyone's thread), and a thread that misses one reads the counters again.
        if (change && change.rows.length <= FOLLOW_MAX_CHARS) threads.tellOthers(slot, { follow: { file, change } });
        observe?.(projectId, 'project', result, seconds);
        // Graph streams hear of the new version (the registry reads it from the file, once per version).
        if (result.applied) states.announce(projectId);
        return result;
      },
      signal,
    );
  };
}
