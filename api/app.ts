import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { Auth } from './auth.js';
import { Catalog } from './catalog/index.js';
import { eventLimitsOf, type Config } from './config.js';
import type { AppContext } from './context.js';
import { clientError, frameworkError, installErrorBoundary } from './errors.js';
import { ensureGlobalKey, type GlobalKeySource } from './global-key.js';
import { docsRoutes } from './docs.js';
import { webRoutes } from './web/serve.js';
import { LoopShare } from './loop-share.js';
import { RateLimiter } from './rate-limit.js';
import { registerRoutes, type RouteDef } from './route.js';
import { apiKeyRoutes } from './routes/apikeys.js';
import { datasetRoutes } from './routes/datasets.js';
import { DatasetImports } from './datasets.js';
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
import { retractOnThread } from './retract-thread.js';
import { uploadChecks } from './upload-checks.js';
import { Health } from './health.js';
import { createMetrics, type Metrics } from './metrics.js';
import { healthRoutes } from './routes/health.js';
import { SecretBox } from '../connectors/kafka/index.js';
import { mountMcp } from './mcp/transport-http.js';
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
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The whole HTTP service over one data directory; `listen` is the caller's business. */
export function createApp(options: AppOptions): PcgApp {
  const { config } = options;
  const logger = options.logger ?? pino({ level: config.logLevel });
  const catalog =
    options.catalog ??
    Catalog.open(join(config.dataDir, 'catalog.sqlite'), {
      ...(config.sourceSecretKey ? { secrets: new SecretBox(config.sourceSecretKey) } : {}),
      graphVersions: { keep: config.limitGraphVersions, maxBytes: config.limitGraphVersionsBytes },
    });
  // Metrics (made below, once the context exists) observe every applied batch.
  let observe: ApplyObserver | undefined;
  // The event limits reach every store the registry opens: HTTP ingestion, dataset uploads and the demo feed all apply through it.
  const states = new ProjectRegistry(config.dataDir, { maxOpen: config.maxOpenStores, cachedCases: config.cachedCases, cachedCaseTextBytes: config.cachedCaseTextMiB * 2 ** 20, limits: eventLimitsOf(config), observe: (...args) => observe?.(...args) });
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
  const ingest = ingestion({ states, run: queue.run, ...(threads ? { threads } : {}), maxEvents: config.limitEventsPerRequest, observe: (...args) => observe?.(...args) });
  const context: AppContext = { config, catalog, states, logger, loopShare: new LoopShare(config.loopShareMs), work: queue.run, queue, ingest, closing: closing.signal };
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
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // No response is sniffed as another type; set on the raw response so hijacked streams (SSE, MCP) carry it too.
    reply.raw.setHeader('x-content-type-options', 'nosniff');
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
  if (options.runSources ?? false) sources = startSourceThread(config, states, logger, (...args) => observe?.(...args));
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
  const routes: RouteDef[] = [
    ...pingRoutes(context),
    ...healthRoutes(config, health, metrics),
    ...tenantRoutes(context),
    ...userRoutes(context),
    ...apiKeyRoutes(context),
    ...projectRoutes(context),
    ...datasetRoutes(context, datasetImports),
    ...graphRoutes(context, graphs),
    ...analysisRoutes(context, graphs, cases),
    ...sourceRoutes(context, () => sources?.reconcile()),
    ...clusterRoutes(context, () => sources?.reconcile()),
  ];
  registerRoutes(app, new Auth(catalog, new RateLimiter(config.rateLimitBurst, config.rateLimitPerSecond)), routes, context.loopShare);
  docsRoutes(app, routes);
  webRoutes(app);
  // The MCP server for agents at /mcp, with the same keys and permissions (api/mcp/).
  mountMcp(app, context, graphs, cases, pool?.view);

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
    states.close();
    catalog.close();
    metrics?.close();
  });
  return { app, context, globalKey, routes, health, metrics, retention, stopImports: () => datasetImports.stop() };
}

/** The Fastify instance alone, for callers that need nothing else. */
export function buildApp(options: AppOptions): FastifyInstance {
  return createApp(options).app;
}
