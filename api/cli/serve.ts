import { ConfigError, readConfig } from '../config.js';
import { UsageError, type Command } from './command.js';

export const command: Command = {
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
                            simulator's live feed; print a tenant key made for this start
  -h, --help                this text
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
    const { createApp } = await import('../app.js');
    const { ensureDemo, runLiveFeed } = await import('../demo.js');
    const { app, context, globalKey } = createApp({ config, runSources: config.sources });
    const stop = new AbortController();
    let address: string;
    try {
      address = await app.listen({ host: config.host, port: config.port });
    } catch (error) {
      // A busy or forbidden port is the user's to fix: say so plainly, no stack.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
        await app.close();
        io.err(`pcg serve: cannot listen on ${config.host}:${config.port} (${code}); choose another --port or PCG_PORT\n`);
        return 1;
      }
      throw error;
    }
    const url = address.replace('://[::1]', '://localhost');
    const lines = [`pcg listening on ${url}  (docs: ${url}/docs, OpenAPI: ${url}/openapi.json)`, `data directory: ${config.dataDir}`];
    if (globalKey.source === 'config') lines.push('global API key: from PCG_GLOBAL_API_KEY / --global-api-key');
    else if (globalKey.file) lines.push(`global API key file: ${globalKey.file}${globalKey.source === 'generated' ? ' (generated now)' : ''}`);
    let feed: Promise<void> = Promise.resolve();
    if (values.demo) {
      const demo = ensureDemo(context);
      lines.push(
        `demo tenant:  ${demo.tenantId}`,
        `demo project: ${demo.projectId}`,
        `demo tenant key (shown once): ${demo.key}`,
        `try: curl -H 'Authorization: Bearer ${demo.key}' ${url}/api/${demo.tenantId}/project/${demo.projectId}/graph`,
      );
      feed = runLiveFeed(context, demo.projectId, stop.signal);
    }
    io.out(`${lines.join('\n')}\n`);
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    stop.abort();
    await feed;
    await app.close();
    return 0;
  },
};
