import { join } from 'node:path';
import { ConfigError, readConfig } from '../config.js';
import { oneLine } from '../../engine/render/safe-text.js';
import { UsageError, type Command } from './command.js';

/** Exit code when a second SIGTERM/SIGINT cuts the graceful shutdown short (128 + SIGINT, as shells report ^C). */
export const FORCED_EXIT = 130;

export const command: Command = {
  keepsData: true,
  summary: 'Run the HTTP API (with --demo: a demo tenant fed by a live simulated stream)',
  usage: `Usage: pcg serve [options]

Runs the multi-tenant HTTP API. Each option falls back to its environment
variable, then to the default.

Options:
  --data-dir <dir>          catalog and project state (PCG_DATA_DIR, default ./data)
  --host <host>             address to listen on (PCG_HOST, default 127.0.0.1)
  --port <n>                port (PCG_PORT, default 8080; 0 picks a free one)
  --global-api-key <key>    the global key (PCG_GLOBAL_API_KEY; default: generated
                            once into <data-dir>/global-api-key, mode 0600)
  --log-level <level>       fatal|error|warn|info|debug|trace|silent (PCG_LOG_LEVEL, default info)
  --demo                    create (once) a demo tenant, user and project fed by the
                            simulator's live feed; print its tenant key (made once,
                            kept in <data-dir>/demo-api-key, mode 0600)
  -h, --help                this text

One pcg serve per data directory: it holds <data-dir>/serve.lock while it runs
(pcg worker processes may run beside it). SIGTERM or SIGINT stops it gracefully
(requests in flight get PCG_SHUTDOWN_GRACE_MS, default 10000 ms; sources finish
their batch); a second signal exits at once with code 130. Probes: GET
/health/live, /health/ready; metrics: GET /metrics with PCG_METRICS_TOKEN.
Retention: a pass at start and every PCG_RETENTION_INTERVAL_S (3600) prunes raw
events older than each project's window (its retentionDays, else
PCG_RETENTION_DAYS; unset keeps everything) and dead letters by
PCG_DEAD_LETTER_DAYS (30) and PCG_DEAD_LETTER_MAX (100000 per project).
Kafka: sources read only the clusters PCG_KAFKA_CLUSTERS declares (a JSON list;
default local = 127.0.0.1:9092, granted to nobody but --demo's tenant) or the
global key declares at /admin/kafka-clusters, each granted to its tenants.
Limits (PCG_LIMIT_ID_BYTES, _ACTIVITY_BYTES, _ATTRIBUTE_VALUE_BYTES,
_ATTRIBUTES_PER_EVENT, _OBJECTS_PER_EVENT, _OBJECT_TYPES_PER_PROJECT,
_EVENTS_PER_REQUEST, _PROJECTS_PER_TENANT, _SOURCES_PER_PROJECT,
_GRAPH_VERSIONS, _GRAPH_VERSIONS_BYTES, _OCEL_RELATIONS, _BLOCKS_PER_NOTEBOOK),
the bounds on reading an upload (PCG_LINE_LIMIT_BYTES,
PCG_DECOMPRESSED_LIMIT_BYTES, PCG_DECOMPRESSED_RATIO_LIMIT, PCG_CHECK_BUDGET_MS,
PCG_READ_HEAP_MIB), quotas per tenant (PCG_QUOTA_EVENTS_PER_TENANT,
_DEAD_LETTERS_PER_TENANT, _DEAD_LETTER_BYTES_PER_TENANT, _RECORDS_PER_TENANT),
connections (PCG_HEADERS_TIMEOUT_MS, PCG_BODY_TIMEOUT_MS, PCG_REQUEST_TIMEOUT_MS,
PCG_IDLE_TIMEOUT_MS, PCG_CONNECTIONS_PER_ADDRESS, PCG_MAX_CONNECTIONS), pages
(PCG_PAGE_SIZE, PCG_PAGE_SIZE_MAX), PCG_MCP_MAX_BATCH and the readiness disk
floor (PCG_MIN_FREE_DISK_BYTES): see docs/configuration.md. At start the cap on open
stores is checked against the limit on open files: lowered to fit, with a
warning, or refused when not even 8 fit.
`,
  options: {
    'data-dir': { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    'global-api-key': { type: 'string' },
    'log-level': { type: 'string' },
    demo: { type: 'boolean' },
  },
  async run(values, _positionals, io) {
    let config;
    try {
      config = readConfig(process.env, {
        dataDir: values['data-dir'],
        host: values.host,
        port: values.port,
        globalApiKey: values['global-api-key'],
        logLevel: values['log-level'],
      });
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(error.message);
      throw error;
    }
    const { checkCatalog, checkDataDir, lockDataDir, StartupError, tightenDataDir } = await import('../data-dir.js');
    const { CatalogTooNewError } = await import('../catalog/index.js');
    // Start-up checks, before anything is opened: a clear line and exit 1, never a half-started service.
    let lock: import('../data-dir.js').DataDirLock | undefined;
    try {
      checkDataDir(config.dataDir);
      lock = lockDataDir(config.dataDir);
      checkCatalog(join(config.dataDir, 'catalog.sqlite'));
      // A directory an older pcg (or another umask) left readable by others is made its owner's alone.
      const tightened = tightenDataDir(config.dataDir);
      if (tightened > 0) io.err(`pcg serve: made ${tightened} file(s) and folder(s) of ${config.dataDir} readable by their owner only (0600/0700)\n`);
    } catch (error) {
      lock?.release();
      if (error instanceof StartupError) {
        io.err(`pcg serve: ${error.message}\n`);
        return error.exit;
      }
      throw error;
    }
    const held = lock;

    // SIGTERM/SIGINT: the first stops gracefully; a second one forces the exit (code 130).
    let signalled: (signal: string) => void = () => {};
    const stopSignal = new Promise<string>((resolve) => (signalled = resolve));
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      if (signals === 1) return signalled(signal);
      io.err(`pcg serve: ${signal} again: exiting now, without waiting for the shutdown\n`);
      held.release();
      process.exit(FORCED_EXIT);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const unhook = () => {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    };
    const fail = (message: string, error?: unknown) => {
      io.err(`pcg serve: ${message}\n`);
      if (error && (config.logLevel === 'debug' || config.logLevel === 'trace')) io.err(`${(error as Error).stack ?? String(error)}\n`);
      unhook();
      held.release();
      return 1;
    };

    const { createApp } = await import('../app.js');
    const { ensureDemo, runLiveFeed } = await import('../demo.js');
    const { trackRequests } = await import('../shutdown.js');
    let made: ReturnType<typeof createApp>;
    try {
      made = createApp({ config, runSources: config.sources, runRetention: true, eagerThreads: true });
    } catch (error) {
      if (error instanceof CatalogTooNewError) return fail(`the catalog in ${config.dataDir}: ${error.message}; run a newer pcg`);
      return fail(`cannot start: ${(error as Error).message ?? String(error)}`, error);
    }
    const { app, context, globalKey } = made;
    let shuttingDown = false;
    made.health.add('shutdown', () => (shuttingDown ? 'the server is shutting down' : true));
    const requests = trackRequests(app.server);
    const stop = new AbortController();
    let address: string;
    try {
      address = await app.listen({ host: config.host, port: config.port });
    } catch (error) {
      await app.close().catch(() => {});
      // A busy or forbidden port is the user's to fix: say so plainly, no stack.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
        return fail(`cannot listen on ${config.host}:${config.port} (${code}); choose another --port or PCG_PORT`);
      }
      return fail(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message ?? String(error)}`, error);
    }
    const url = address.replace('://[::1]', '://localhost');
    const lines = [`pcg listening on ${url}  (docs: ${url}/docs, OpenAPI: ${url}/openapi.json)`, `web page: ${url}/`, `data directory: ${config.dataDir}`];
    if (globalKey.source === 'config') lines.push('global API key: from PCG_GLOBAL_API_KEY / --global-api-key');
    else if (globalKey.file) lines.push(`global API key file: ${globalKey.file}${globalKey.source === 'generated' ? ' (generated now)' : ''}`);
    // A key that answers 401 must not look like the key to use.
    const given = globalKey.source === 'config' ? 'the configured global API key (PCG_GLOBAL_API_KEY / --global-api-key)' : `the global API key in ${globalKey.file}`;
    if (globalKey.revoked) io.err(`pcg serve: warning: ${given} was revoked at /admin/global-api-keys and answers 401; configure a new one, or use another global key\n`);
    if (globalKey.replaced) {
      io.err(
        `pcg serve: the previous configured global API key was revoked (PCG_GLOBAL_API_KEY changed); the ${globalKey.keptIssued ?? 0} key(s) it issued stay valid` +
          ' and name it as their issuer (issuedByKeyId in GET /admin/global-api-keys and /api/tenant/{tenantId}/apikey): revoke them there if the old key was exposed\n',
      );
    }
    let feed: Promise<void> = Promise.resolve();
    if (values.demo) {
      const demo = ensureDemo(context);
      lines.push(
        `demo tenant:  ${demo.tenantId}`,
        `demo project: ${demo.projectId}`,
        `demo tenant key: ${demo.key}  (${demo.created ? 'made now, ' : ''}kept in ${demo.keyFile})`,
        `try: curl -H 'Authorization: Bearer ${demo.key}' ${url}/api/${demo.tenantId}/project/${demo.projectId}/graph`,
      );
      feed = runLiveFeed(context, demo, stop.signal);
    }
    // The data directory and key file are paths the user gave: each line shown on one line, controls escaped.
    io.out(`${lines.map(oneLine).join('\n')}\n`);

    const signal = await stopSignal;
    const started = Date.now();
    io.out(`pcg serve: ${signal}: shutting down (${signal} again forces the exit)\n`);
    // 1. Not ready any more; dataset checks and imports stop at once (their uploads are answered 503: a check is
    //    repeated by uploading again, an import resumes at the next start; waiting the grace for a long one would
    //    only delay the stop); no new connections; the other requests in flight are answered (within the grace).
    shuttingDown = true;
    made.stopImports();
    const drained = await requests.drain(config.shutdownGraceMs);
    if (drained.left > 0) io.err(`pcg serve: ${drained.left} request(s) still running after ${config.shutdownGraceMs} ms (PCG_SHUTDOWN_GRACE_MS); closing them\n`);
    // 2. The demo feed stops; the app closes graph streams, the source thread (its batch in flight
    //    is applied and its offsets stored), the build threads, the project stores and the catalog.
    stop.abort();
    try {
      await feed;
      await app.close();
    } catch (error) {
      return fail(`shutdown failed: ${(error as Error).message ?? String(error)}`, error);
    }
    // 3. The data directory is free for the next serve.
    unhook();
    held.release();
    io.out(`pcg serve: stopped (${Date.now() - started} ms)\n`);
    return 0;
  },
};
