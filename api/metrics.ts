import type { FastifyReply, FastifyRequest } from 'fastify';
import { constants as perfConstants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ApplyResult } from '../engine/index.js';
import { PROJECT_DELETED, type ApplyObserver, type DocumentBuilder, type PassResult } from '../engine/projects/index.js';
import type { AppContext } from './context.js';
import { sourceStatus } from './source-status.js';

/**
 * The service's Prometheus metrics (prom-client), one registry per app. The
 * engine knows nothing of them: the API wraps what it hands the engine (the
 * registry's ingest paths, the document builder) and reads the rest (open
 * stores, source lag) at scrape time.
 *
 * Counted here: what this process applies (HTTP ingestion, dataset uploads,
 * the demo feed). Stream sources apply on their own thread or in `pcg worker`
 * processes; their progress is read from the partition states at scrape time
 * (`pcg_source_*`), whoever wrote them.
 */
export interface Metrics {
  readonly registry: Registry;
  /** Prometheus text exposition format. */
  readonly contentType: string;
  scrape(): Promise<string>;
  /** Counts every batch applied through the registry: events applied, rejected and duplicate per project, and apply time. */
  /** The registry's apply observer (also fed the source thread's applied chunks). */
  observe: ApplyObserver;
  /** The builder, timed. */
  timeBuilds(build: DocumentBuilder): DocumentBuilder;
  /** Counts what a retention pass of a project pruned (api/retention.ts). */
  observePrune(projectId: string, result: PassResult): void;
  /** Fastify `onResponse` hook: request duration by method, route pattern and status. */
  onResponse(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  close(): void;
}

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const BUILD_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const APPLY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createMetrics(ctx: AppContext): Metrics {
  const registry = new Registry();
  const registers = [registry];
  // Process CPU, memory, file descriptors, GC, and the event-loop delay (nodejs_eventloop_lag_*).
  collectDefaultMetrics({ register: registry });

  const http = new Histogram({
    name: 'pcg_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern (unmatched: no route) and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const applied = new Counter({ name: 'pcg_events_applied_total', help: 'Events applied to a project by this process (HTTP ingestion, dataset uploads, the demo feed, and its source thread; not by pcg worker processes)', labelNames: ['project'] as const, registers });
  const rejected = new Counter({ name: 'pcg_events_rejected_total', help: 'Events refused by validation (kept as dead letters) per project', labelNames: ['project'] as const, registers });
  const duplicates = new Counter({ name: 'pcg_events_duplicate_total', help: 'Events already in the project (same eventId and body), skipped', labelNames: ['project'] as const, registers });
  const pruned = new Counter({ name: 'pcg_events_pruned_total', help: "Raw events deleted by retention per project (cases closed beyond the project's window; their counts are kept)", labelNames: ['project'] as const, registers });
  const lettersPruned = new Counter({ name: 'pcg_dead_letters_pruned_total', help: 'Dead letters deleted per project by age (PCG_DEAD_LETTER_DAYS) or past the count (PCG_DEAD_LETTER_MAX)', labelNames: ['project'] as const, registers });
  const applyTime = new Histogram({
    name: 'pcg_batch_apply_seconds',
    help: "Time to apply one batch in one transaction, by store kind (project: the project's own store; partition: a stream partition's state)",
    labelNames: ['store'] as const,
    buckets: APPLY_BUCKETS,
    registers,
  });
  const builds = new Histogram({
    name: 'pcg_document_build_seconds',
    help: 'Graph document build time (full and scoped graphs), by outcome (ok, failed: aborted past the budget or an error)',
    labelNames: ['outcome'] as const,
    buckets: BUILD_BUCKETS,
    registers,
  });
  // Heap used sampled at any moment includes however much garbage V8 let pile up since its last collection (a sawtooth
  // of tens of MiB): right after a full collection it is the live data, the figure that says whether memory grows.
  const liveHeap = new Gauge({
    name: 'pcg_heap_live_bytes',
    help: 'V8 heap used right after the latest full (mark-sweep-compact) garbage collection: the live data; 0 before the first',
    registers,
  });
  const gcs = new PerformanceObserver((list) => {
    if (list.getEntries().some((e) => (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR)) liveHeap.set(getHeapStatistics().used_heap_size);
  });
  gcs.observe({ entryTypes: ['gc'] });
  // The work threads hold stores of their own (the batches they apply, the builds they read): what each reported
  // last is added (api/work-threads.ts), asked once per scrape and never waited for. `threads` is read by the
  // first of these gauges and used by the rest of the same scrape (gauges collect in registration order).
  const none = { openStores: 0, counterKeys: 0, cachedFolds: 0, cachedFoldTextBytes: 0, heapUsedBytes: 0, heapLiveBytes: 0 };
  let threads = none;
  new Gauge({
    name: 'pcg_open_project_stores',
    help: "Project state files (projects' own stores and stream partition states) held open by the API process, its request loop and its work threads together (a store open on two of them counts twice); the loop's at most PCG_MAX_OPEN_STORES, each work thread's at most 16",
    registers,
    collect() {
      threads = ctx.threadStats?.() ?? none;
      this.set(ctx.states.openCount + threads.openStores);
    },
  });
  new Gauge({
    name: 'pcg_counter_keys',
    help: "Counter keys the open project stores of the API process (loop and work threads) hold in memory (each store's key book: at most 200,000, then renewed with only those in use); grows with a project's distinct counters, e.g. its end activities per hour",
    registers,
    collect() {
      this.set(ctx.states.counterKeys + threads.counterKeys);
    },
  });
  new Gauge({
    name: 'pcg_cached_case_folds',
    help: 'Case folds the open project stores of the API process (loop and work threads) cache together; at most PCG_CACHED_CASES on the loop and as much again shared by the work threads',
    registers,
    collect() {
      this.set(ctx.states.folds.size + threads.cachedFolds);
    },
  });
  new Gauge({
    name: 'pcg_cached_case_text_bytes',
    help: 'Bytes of case folds the open project stores (loop and work threads) gave up and keep as text (restored when the case comes back); at most PCG_CACHED_CASE_TEXT_MIB MiB on the loop and as much again shared by the work threads',
    registers,
    collect() {
      this.set(ctx.states.folds.coldBytes + threads.cachedFoldTextBytes);
    },
  });
  new Gauge({
    name: 'pcg_work_thread_heap_bytes',
    help: 'V8 heap used by the work threads together, as each last reported it (the loop\'s own is nodejs_heap_size_used_bytes)',
    registers,
    collect() {
      this.set(threads.heapUsedBytes);
    },
  });
  new Gauge({
    name: 'pcg_work_thread_heap_live_bytes',
    help: 'V8 heap used by the work threads together right after each one\'s latest full collection (their live data), as each last reported it; 0 for a thread before its first',
    registers,
    collect() {
      this.set(threads.heapLiveBytes);
    },
  });
  new Counter({
    name: 'pcg_loop_share_deferred_total',
    help: 'Request handlers that waited a turn of the event loop because their tenant had taken more than PCG_LOOP_SHARE_MS of it lately',
    registers,
    collect() {
      this.reset();
      this.inc(ctx.loopShare.deferred);
    },
  });
  new Gauge({
    name: 'pcg_work_tasks',
    help: 'Tasks on the work threads (ingestion, builds, case reads, views) by state: running, or waiting in their tenant\'s fair queue',
    labelNames: ['state'],
    registers,
    collect() {
      this.set({ state: 'running' }, ctx.queue.running());
      this.set({ state: 'waiting' }, ctx.queue.waiting());
    },
  });
  new Counter({
    name: 'pcg_work_refused_total',
    help: 'Tasks refused with 429 because their tenant already had PCG_TENANT_QUEUE tasks waiting for a work thread',
    registers,
    collect() {
      this.reset();
      this.inc(ctx.queue.refused);
    },
  });
  new Gauge({
    name: 'pcg_max_open_project_stores',
    help: 'The cap on open project state files (PCG_MAX_OPEN_STORES, or lower to fit the descriptor limit; least recently used closed first)',
    registers,
    collect() {
      this.set(ctx.states.maxOpen);
    },
  });

  // Source progress, read from the partition states and the workers' reports (GET …/source/{s} shows the same).
  // The per-partition gauges are registered after `pcg_sources`, whose collect fills them: a scrape reads metrics in registration order.
  const sourceLabels = ['project', 'source', 'partition'] as const;
  const lag = new Gauge({ name: 'pcg_source_lag_messages', help: "Messages of a stream partition not yet in the project's state (high watermark - stored offset - 1)", labelNames: sourceLabels, registers: [] });
  const kept = new Gauge({ name: 'pcg_source_events', help: "Events kept in a stream partition's state", labelNames: sourceLabels, registers: [] });
  const letters = new Gauge({ name: 'pcg_source_dead_letters', help: "Dead letters in a stream partition's state", labelNames: sourceLabels, registers: [] });
  const stored = new Gauge({ name: 'pcg_source_stored_offset', help: 'The last offset of a stream partition whose events are in the state', labelNames: sourceLabels, registers: [] });
  const allSources = ctx.catalog.db.prepare<[], { tenantId: string; projectId: string; id: string }>(
    'SELECT tenant_id AS tenantId, project_id AS projectId, id FROM source ORDER BY created_at, id',
  );
  new Gauge({
    name: 'pcg_sources',
    help: 'Stream sources declared in the catalog, by state (running, starting, paused, failed, waiting)',
    labelNames: ['state'] as const,
    registers,
    collect() {
      this.reset();
      lag.reset();
      kept.reset();
      letters.reset();
      stored.reset();
      const byState = new Map<string, number>();
      for (const row of allSources.all()) {
        const source = ctx.catalog.sources.get(row.tenantId, row.projectId, row.id);
        if (!source) continue;
        try {
          const status = sourceStatus(ctx, source);
          byState.set(status.state, (byState.get(status.state) ?? 0) + 1);
          for (const p of status.partitions) {
            const labels = { project: source.projectId, source: source.id, partition: String(p.partition) };
            if (p.lag !== null) lag.set(labels, p.lag);
            kept.set(labels, p.eventsKept);
            letters.set(labels, p.deadLetters);
            if (p.storedOffset !== null) stored.set(labels, p.storedOffset);
          }
        } catch (error) {
          // A busy or damaged partition file costs its own series, never the scrape.
          ctx.logger.warn({ err: error, sourceId: source.id }, 'source status for metrics failed');
        }
      }
      for (const [state, n] of byState) this.set({ state }, n);
    },
  });
  for (const gauge of [lag, kept, letters, stored]) registry.registerMetric(gauge);

  const count = (projectId: string, r: ApplyResult) => {
    if (r.accepted) applied.inc({ project: projectId }, r.accepted);
    if (r.rejected) rejected.inc({ project: projectId }, r.rejected);
    if (r.duplicates) duplicates.inc({ project: projectId }, r.duplicates);
  };

  // A deleted project's series go with it: project churn would otherwise grow every scrape, and the heap, for good.
  const perProject = [applied, rejected, duplicates, pruned, lettersPruned];
  const forget = (projectId: string) => {
    for (const c of perProject) c.remove({ project: projectId });
  };
  ctx.states.changes.on(PROJECT_DELETED, forget);

  return {
    registry,
    contentType: registry.contentType,
    scrape: () => registry.metrics(),
    observe(projectId, store, result, seconds) {
      applyTime.observe({ store }, seconds);
      count(projectId, result);
    },
    observePrune(projectId, result) {
      if (result.events) pruned.inc({ project: projectId }, result.events);
      if (result.deadLetters) lettersPruned.inc({ project: projectId }, result.deadLetters);
    },
    timeBuilds(build) {
      return async (source) => {
        const end = builds.startTimer();
        try {
          const built = await build(source);
          end({ outcome: 'ok' });
          return built;
        } catch (error) {
          end({ outcome: 'failed' });
          throw error;
        }
      };
    },
    async onResponse(request, reply) {
      http.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    },
    close() {
      gcs.disconnect();
      ctx.states.changes.off(PROJECT_DELETED, forget);
      registry.clear();
    },
  };
}
