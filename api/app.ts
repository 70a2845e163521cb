import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { Auth } from './auth.js';
import { Catalog } from './catalog/index.js';
import { statfsSync } from 'node:fs';
import { eventLimitsOf, limitName, type Config } from './config.js';
import { openDescriptors, readFileLimit, storeBudget, type FileLimit } from './descriptors.js';
import { TenantUsage } from './usage.js';
import { usageThread, type UseMeter } from './usage-thread.js';
import type { AppContext } from './context.js';
import { ApiError, clientError, frameworkError, installErrorBoundary } from './errors.js';
import { guardConnections, serverOptions, type ConnectionGuard } from './connections.js';
import { ensureGlobalKey, type GlobalKeySource } from './global-key.js';
import { docsRoutes } from './docs.js';
import { webRoutes } from './web/serve.js';
import { LoopShare } from './loop-share.js';
import { RateLimiter } from './rate-limit.js';
import { registerRoutes, type RouteDef } from './route.js';
import { apiKeyRoutes } from './routes/apikeys.js';
import { datasetRoutes } from './routes/datasets.js';
import { DatasetImports } from './datasets.js';
import { liveRoutes } from './routes/live.js';
import { graphRoutes } from './routes/graph.js';
import { pingRoutes } from './routes/ping.js';
import { projectRoutes } from './routes/projects.js';
import { analysisRoutes } from './routes/analysis.js';
import { clusterRoutes } from './routes/clusters.js';
import { sourceRoutes } from './routes/sources.js';
import { startSourceThread, type SourceThread } from './source-thread.js';
import { tenantRoutes, userRoutes } from './routes/tenants.js';
import { buildInProcess, CaseReads, Graphs, ProjectRegistry, type ApplyObserver } from '../engine/projects/index.js';
import { documentPool } from './document-pool.js';
import { FairQueue } from './fair-queue.js';
import { ingestion } from './ingestion.js';
import { WorkThreads } from './work-threads.js';
import type { WorkOutcome } from './work-thread.js';
import { unwrap } from './thread-errors.js';
import type { SourceCounts } from '../engine/store/project-store.js';
import { retractOnThread } from './retract-thread.js';
import { uploadChecks } from './upload-checks.js';
import { Health } from './health.js';
import { createMetrics, type Metrics } from './metrics.js';
import { healthRoutes } from './routes/health.js';
import { SecretBox } from '../connectors/kafka/index.js';
import { mountMcp } from './mcp/transport-http.js';
import { PcgService } from './service/index.js';
import { startRetention, type RetentionRunner } from './retention.js';

export interface AppOptions {
  config: Config;
  /** Run the data directory's stream sources on a thread of the app (default: config.sources; tests of routes alone leave it off). */
  runSources?: boolean;
  /** Run retention passes (at start, then every PCG_RETENTION_INTERVAL_S; `pcg serve` does; default off). */
  runRetention?: boolean;
  /** Start every work thread at once (`pcg serve` does); else each starts at its first task (tests). */
  eagerThreads?: boolean;
  /** Defaults to <dataDir>/catalog.sqlite; closed with the app either way. */
  catalog?: Catalog;
  logger?: Logger;
  /** The process's limit on open files (default: read from /proc/self/limits; null: none known). Tests inject one. */
  fileLimit?: FileLimit | null;
  /** Free space of the data directory's file system (default fs.statfsSync). Tests inject a full disk. */
  statfs?: (dir: string) => { bavail: number; bsize: number };
  /** Where projects' stored use is counted (default a thread of its own: api/usage-thread.ts). */
  meter?: UseMeter;
}

export interface PcgApp {
  app: FastifyInstance;
  context: AppContext;
  globalKey: GlobalKeySource;
  routes: readonly RouteDef[];
  /** The readiness checks of `GET /health/ready`; `pcg serve` adds its own (shutting down). */
  health: Health;
  /** Present when a metrics token is configured. */
  metrics: Metrics | undefined;
  /** Present when retention passes run (api/retention.ts). */
  retention: RetentionRunner | undefined;
  /**
   * Stops the dataset checks and imports in flight at once (their requests get 503; an import resumes at the next
   * start): `pcg serve` calls it as it is told to stop, before the grace it gives other requests.
   */
  stopImports(): void;
  /** Open sockets per client address (api/connections.ts). */
  connections: ConnectionGuard;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The whole HTTP service over one data directory; `listen` is the caller's business. */
export function createApp(options: AppOptions): PcgApp {
  const { config } = options;
  const logger = options.logger ?? pino({ level: config.logLevel });
  // Before anything is opened: a cap on open stores that the descriptor limit cannot hold is lowered, or refused.
  const budget = storeBudget(config, options.fileLimit === undefined ? readFileLimit() : (options.fileLimit ?? undefined), openDescriptors() ?? 0);
  if (budget.warning) logger.warn({ maxOpenStores: budget.maxOpenStores, configured: config.maxOpenStores }, budget.warning);
  const catalog =
    options.catalog ??
    Catalog.open(join(config.dataDir, 'catalog.sqlite'), {
      ...(config.sourceSecretKey ? { secrets: new SecretBox(config.sourceSecretKey) } : {}),
      graphVersions: { keep: config.limitGraphVersions, maxBytes: config.limitGraphVersionsBytes },
    });
  // Metrics (made below, once the context exists) observe every applied batch.
  let observe: ApplyObserver | undefined;
  // The event limits reach every store the registry opens: HTTP ingestion, dataset uploads and the demo feed all apply through it.
  const states = new ProjectRegistry(config.dataDir, {
    maxOpen: budget.maxOpenStores,
    cachedCases: config.cachedCases,
    cachedCaseTextBytes: config.cachedCaseTextMiB * 2 ** 20,
    limits: eventLimitsOf(config),
    observe: (projectId, store, result, seconds) => {
      usage.observe(projectId, store, result);
      observe?.(projectId, store, result, seconds);
    },
  });
  const closing = new AbortController();
  // The request loop only routes: ingestion, builds and reads whose cost grows with a project run on the work
  // threads, handed out fairly among tenants (api/fair-queue.ts).
  const queue = new FairQueue({ slots: Math.max(1, config.buildThreads), perTenant: config.tenantQueue });
  const threads =
    config.buildThreads > 0
      ? new WorkThreads(config.buildThreads, {
          limits: eventLimitsOf(config),
          // Each thread's stores fold cases within its part of the budget the registry's stores also keep.
          cachedCases: Math.ceil(config.cachedCases / config.buildThreads),
          cachedCaseTextBytes: Math.ceil((config.cachedCaseTextMiB * 2 ** 20) / config.buildThreads),
        }, { eager: options.eagerThreads ?? false })
      : undefined;
  const meter = options.meter ? { measure: options.meter, close: async () => {} } : usageThread();
  const usage = new TenantUsage({ catalog, states, config, logger }, meter.measure);
  const ingest = ingestion({
    states,
    run: queue.run,
    ...(threads ? { threads } : {}),
    maxEvents: config.limitEventsPerRequest,
    quota: usage,
    // A batch applied on a work thread is counted as the registry counts one applied on the loop.
    observe: (projectId, store, result, seconds) => {
      usage.observe(projectId, store, result);
      observe?.(projectId, store, result, seconds);
    },
  });
  // A dataset's summary reads every event its source holds (219k of them held the loop 400 ms): on a work thread too.
  const sourceCounts = (tenantId: string, projectId: string, source: string) =>
    queue.run(tenantId, projectId, 'read', async (slot) =>
      threads ? unwrap(await threads.run<WorkOutcome<SourceCounts>>(slot, { sourceCounts: { file: states.fileOf(projectId), source } })) : states.store(projectId).sourceCounts(source),
    );
  const context: AppContext = { config, catalog, states, logger, loopShare: new LoopShare(config.loopShareMs), work: queue.run, queue, ingest, sourceCounts, closing: closing.signal, usage, ...(threads ? { threadStats: () => threads.stats() } : {}) };
  const globalKey = ensureGlobalKey(config, catalog);
  // The clusters of the configuration are the catalog's configured ones from now on (workers read them there).
  const clusters = catalog.clusters.syncConfigured(config.kafkaClusters);
  if (clusters.removed.length) logger.warn({ clusters: clusters.removed }, 'Kafka clusters no longer in PCG_KAFKA_CLUSTERS were removed; their sources stop');

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Graph streams stay open: closing the server ends them rather than waiting.
    forceCloseConnections: true,
    // Router failures and requests Node rejects before routing leave in the error format too.
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    // Header, body, request and idle timeouts (api/connections.ts).
    ...serverOptions(config),
    // HEAD is answered on every GET route (the graph stream's answers its headers and ends: routes/graph.ts).
    exposeHeadRoutes: true,
    // One log line per request (below), not Fastify's two ("incoming request", "request completed").
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
  });
  const connections = guardConnections(app, config, logger);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // No response is sniffed as another type; set on the raw response so hijacked streams (SSE, MCP) carry it too.
    reply.raw.setHeader('x-content-type-options', 'nosniff');
    // HTTP/1.1 requires Host (RFC 9112, 3.2); Node's own refusal was a bare 400 outside the error format.
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      reply.header('connection', 'close');
      throw new ApiError('missing_headers', 'the Host header is required');
    }
  });
  app.addContentTypeParser(['application/x-ndjson', 'application/ndjson'], { parseAs: 'string' }, (_req, body, done) => done(null, body));
  // Uploads arrive as a stream and are written to disk as they come (see routes/datasets.ts).
  app.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));
  installErrorBoundary(app, () => routes, { bodyLimitBytes: config.bodyLimitBytes });
  // Measured only when someone may read the measures (PCG_METRICS_TOKEN).
  const metrics = config.metricsToken ? createMetrics(context) : undefined;
  if (metrics) {
    observe = metrics.observe;
    app.addHook('onResponse', metrics.onResponse);
  }

  let sources: SourceThread | undefined;
  if (options.runSources ?? false) {
    sources = startSourceThread(config, states, logger, (projectId, store, result, seconds) => {
      usage.observe(projectId, store, result);
      observe?.(projectId, store, result, seconds);
    });
  }
  // Versions written by other processes (pcg worker) or the source thread reach graph streams too.
  states.watch(250);
  const pool = threads ? documentPool({ threads, queue, budgetMs: config.buildBudgetMs, tenantOf: (id) => catalog.projects.tenantOf(id) ?? '' }) : undefined;
  const builder = pool?.build ?? buildInProcess;
  const graphs = new Graphs(states, catalog.graphVersions, metrics ? metrics.timeBuilds(builder) : builder);
  const cases = new CaseReads(states, pool?.read);
  const health = new Health().add('catalog', () => {
    if (!catalog.db.open) return 'the catalog is closed';
    catalog.db.prepare('SELECT count(*) FROM tenant').get();
    return true;
  });
  // A full disk fails every tenant's writes: not ready while the data directory's file system has less than the floor free.
  const statfs = options.statfs ?? statfsSync;
  if (config.minFreeDiskBytes > 0) {
    health.add('disk', () => {
      const { bavail, bsize } = statfs(config.dataDir);
      const free = bavail * bsize;
      return free >= config.minFreeDiskBytes ? true : `the data directory's file system has ${free} bytes free, under ${limitName('minFreeDiskBytes')} (${config.minFreeDiskBytes})`;
    });
  }
  if (sources) {
    const thread = sources;
    const says = { starting: 'is starting', stopping: 'is stopping', stopped: 'has stopped', failed: 'has failed' } as const;
    health.add('sources', () => {
      const state = thread.state();
      return state === 'running' ? true : `the source thread ${says[state]}`;
    });
  }
  // Uploads are checked on threads of their own, under a time and heap budget (api/upload-checks.ts).
  const checks = uploadChecks({ threads: config.checkThreads, budgetMs: config.checkBudgetMs, heapMiB: config.readHeapMiB });
  // Dataset imports a stopped server left are resumed (or rolled back) once the app is up.
  const datasetImports = new DatasetImports(context, checks, retractOnThread);
  // The use cases, written once below every face: the routes and /mcp call these (api/service/).
  const service = new PcgService({ catalog, states, graphs, cases, views: pool?.view, config, ingest, usage, datasets: datasetImports, sourcesChanged: () => sources?.reconcile(), log: logger });
  const routes: RouteDef[] = [
    ...pingRoutes(context),
    ...healthRoutes(config, health, metrics),
    ...tenantRoutes(context),
    ...userRoutes(context),
    ...apiKeyRoutes(context),
    ...projectRoutes(context, service),
    ...datasetRoutes(context, service),
    ...graphRoutes(context, service),
    ...analysisRoutes(context, service),
    ...liveRoutes(service),
    ...sourceRoutes(context, service),
    ...clusterRoutes(context, () => sources?.reconcile()),
  ];
  registerRoutes(app, new Auth(catalog, new RateLimiter(config.rateLimitBurst, config.rateLimitPerSecond)), routes, context.loopShare);
  docsRoutes(app, routes);
  webRoutes(app);
  // The MCP server for agents at /mcp, with the same keys and permissions (api/mcp/).
  mountMcp(app, context, service, graphs, cases, pool?.view);

  const resumed = datasetImports.resume().catch((error: unknown) => logger.error({ err: error }, 'resuming dataset imports failed'));
  const retention = options.runRetention ? startRetention(context, metrics) : undefined;
  // Graph streams end before the catalog and the stores they read close (a stream's timer firing after would throw).
  app.addHook('preClose', async () => closing.abort());
  app.addHook('onClose', async () => {
    await retention?.close();
    await datasetImports.close();
    await checks.close();
    await resumed;
    await sources?.close();
    queue.close();
    await pool?.close();
    await threads?.close();
    await meter.close();
    states.close();
    catalog.close();
    metrics?.close();
  });
  return { app, context, globalKey, routes, health, metrics, retention, connections, stopImports: () => datasetImports.stop() };
}

/** The Fastify instance alone, for callers that need nothing else. */
export function buildApp(options: AppOptions): FastifyInstance {
  return createApp(options).app;
}
