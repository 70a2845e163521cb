import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { Auth } from './auth.js';
import { Catalog } from './catalog/index.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { clientError, frameworkError, installErrorBoundary } from './errors.js';
import { ensureGlobalKey, type GlobalKeySource } from './global-key.js';
import { docsRoutes } from './docs.js';
import { RateLimiter } from './rate-limit.js';
import { registerRoutes, type RouteDef } from './route.js';
import { apiKeyRoutes } from './routes/apikeys.js';
import { datasetRoutes } from './routes/datasets.js';
import { graphRoutes } from './routes/graph.js';
import { pingRoutes } from './routes/ping.js';
import { projectRoutes } from './routes/projects.js';
import { analysisRoutes } from './routes/analysis.js';
import { sourceRoutes } from './routes/sources.js';
import { startSourceThread, type SourceThread } from './source-thread.js';
import { tenantRoutes, userRoutes } from './routes/tenants.js';
import { buildInProcess, Graphs, ProjectRegistry } from '../engine/projects/index.js';
import { documentPool } from './document-pool.js';
import { SecretBox } from '../connectors/kafka/index.js';

export interface AppOptions {
  config: Config;
  /** Run the data directory's stream sources on a thread of the app (default: config.sources; tests of routes alone leave it off). */
  runSources?: boolean;
  /** Defaults to <dataDir>/catalog.sqlite; closed with the app either way. */
  catalog?: Catalog;
  logger?: Logger;
}

export interface PcgApp {
  app: FastifyInstance;
  context: AppContext;
  globalKey: GlobalKeySource;
  routes: readonly RouteDef[];
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The whole HTTP service over one data directory; `listen` is the caller's business. */
export function createApp(options: AppOptions): PcgApp {
  const { config } = options;
  const logger = options.logger ?? pino({ level: config.logLevel });
  const catalog =
    options.catalog ?? Catalog.open(join(config.dataDir, 'catalog.sqlite'), config.sourceSecretKey ? { secrets: new SecretBox(config.sourceSecretKey) } : {});
  const states = new ProjectRegistry(config.dataDir, config.maxOpenStores);
  const context: AppContext = { config, catalog, states, logger };
  const globalKey = ensureGlobalKey(config, catalog);

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
  });
  app.addContentTypeParser(['application/x-ndjson', 'application/ndjson'], { parseAs: 'string' }, (_req, body, done) => done(null, body));
  // Uploads arrive as a stream and are written to disk as they come (see routes/datasets.ts).
  app.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));
  installErrorBoundary(app, () => routes);

  let sources: SourceThread | undefined;
  if (options.runSources ?? false) sources = startSourceThread(config, states, logger);
  // Versions written by other processes (pcg worker) or the source thread reach graph streams too.
  states.watch(250);
  const pool = config.buildThreads > 0 ? documentPool({ threads: config.buildThreads, budgetMs: config.buildBudgetMs }) : undefined;
  const graphs = new Graphs(states, catalog.graphVersions, pool?.build ?? buildInProcess);
  const routes: RouteDef[] = [
    ...pingRoutes(context),
    ...tenantRoutes(context),
    ...userRoutes(context),
    ...apiKeyRoutes(context),
    ...projectRoutes(context),
    ...datasetRoutes(context),
    ...graphRoutes(context, graphs),
    ...analysisRoutes(context, graphs),
    ...sourceRoutes(context, () => sources?.reconcile()),
  ];
  registerRoutes(app, new Auth(catalog, new RateLimiter(config.rateLimitBurst, config.rateLimitPerSecond)), routes);
  docsRoutes(app, routes);

  app.addHook('onClose', async () => {
    await sources?.close();
    await pool?.close();
    states.close();
    catalog.close();
  });
  return { app, context, globalKey, routes };
}

/** The Fastify instance alone, for callers that need nothing else. */
export function buildApp(options: AppOptions): FastifyInstance {
  return createApp(options).app;
}
