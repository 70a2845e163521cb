import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError, type Command } from './command.js';

export const command: Command = {
  keepsData: true,
  summary: 'Run an MCP server on stdio for agents (over a data directory, or a running service)',
  usage: `Usage: pcg mcp --data-dir <dir> [--key <key>]
       pcg mcp --url <url> [--key <key>]

Runs a Model Context Protocol server on stdin/stdout: tools to list projects,
read process context graphs (a summary, one section, or whole; by version),
compare versions, list the cases of a variant or outcome, explain a decision
point, run an analysis block and ingest events; and each project's newest
document as a resource (pcg://<tenant>/<project>/graph). Every call is checked
against a tenant API key, with the HTTP API's permissions. \`pcg serve\` offers
the same server over streamable HTTP at /mcp.

Options:
  --data-dir <dir>     read the data directory directly (PCG_DATA_DIR); a
                       running \`pcg serve\` on it is fine
  --url <url>          proxy a running service (e.g. http://127.0.0.1:8080)
  --key <key>          the tenant API key (PCG_MCP_KEY)
  --max-chars <n>      cap on one answer's JSON text (default 40000)
  -h, --help           this text
`,
  options: {
    'data-dir': { type: 'string' },
    url: { type: 'string' },
    key: { type: 'string' },
    'max-chars': { type: 'string' },
  },
  async run(values, _positionals, io) {
    const key = (values.key as string | undefined) || process.env.PCG_MCP_KEY;
    const url = values.url as string | undefined;
    const dataDirFlag = values['data-dir'] as string | undefined;
    if (!key) throw new UsageError('a tenant API key is required: --key or PCG_MCP_KEY');
    if (url && dataDirFlag) throw new UsageError('give --data-dir or --url, not both');
    const dataDir = url ? undefined : dataDirFlag || process.env.PCG_DATA_DIR;
    if (!url && !dataDir) throw new UsageError('give --data-dir (or PCG_DATA_DIR) or --url');
    let maxChars: number | undefined;
    if (values['max-chars'] !== undefined) {
      maxChars = Number(values['max-chars']);
      if (!Number.isInteger(maxChars) || maxChars < 1000 || maxChars > 10_000_000) throw new UsageError('--max-chars: an integer from 1000 to 10000000');
    }
    if (url) {
      try {
        new URL(url);
      } catch {
        throw new UsageError(`--url: not a URL: ${url}`);
      }
    }

    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const { buildMcpServer } = await import('../mcp/tools.js');
    const { toApiError } = await import('../errors.js');
    const onError = (error: unknown) => io.err(`pcg mcp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    const closers: (() => unknown)[] = [];
    let backend;
    // The local server's own cap on a batch; a remote one holds its own (and answers 413 past it).
    let maxEvents: number | undefined;
    if (url) {
      const { RemoteBackend } = await import('../mcp/remote.js');
      const remote = new RemoteBackend(url, key);
      closers.push(() => remote.close());
      backend = remote;
    } else {
      const { resolve } = await import('node:path');
      const dir = resolve(dataDir!);
      const file = join(dir, 'catalog.sqlite');
      if (!existsSync(file)) throw new UsageError(`no catalog in ${dir} (${file} is missing): is this a data directory of pcg serve?`);
      const { readConfig, ConfigError, eventLimitsOf } = await import('../config.js');
      let config;
      try {
        config = readConfig(process.env, { dataDir: dir });
      } catch (error) {
        if (error instanceof ConfigError) throw new UsageError(error.message);
        throw error;
      }
      const { Catalog } = await import('../catalog/index.js');
      const { Auth } = await import('../auth.js');
      const { RateLimiter } = await import('../rate-limit.js');
      const { buildInProcess, CaseReads, Graphs, ProjectRegistry } = await import('../../engine/projects/index.js');
      const { LocalBackend } = await import('../mcp/local.js');
      const catalog = Catalog.open(file, { graphVersions: { keep: config.limitGraphVersions, maxBytes: config.limitGraphVersionsBytes } });
      const states = new ProjectRegistry(dir, { maxOpen: config.maxOpenStores, cachedCases: config.cachedCases, cachedCaseTextBytes: config.cachedCaseTextMiB * 2 ** 20, limits: eventLimitsOf(config) });
      closers.push(() => states.close(), () => catalog.close());
      const auth = new Auth(catalog, new RateLimiter(0, 0));
      // Auth reads the Bearer header of a request: the key is checked again on every call, so a revoked key stops at once.
      const request = { headers: { authorization: `Bearer ${key}` } } as unknown as import('fastify').FastifyRequest;
      backend = new LocalBackend({ catalog, states, graphs: new Graphs(states, catalog.graphVersions, buildInProcess), cases: new CaseReads(states), config }, () => auth.authenticate(request, { tenant: 'read' }), maxChars);
      maxEvents = config.limitEventsPerRequest;
    }
    const close = async () => {
      for (const c of closers.splice(0)) {
        try {
          await c();
        } catch {
          // closing is best effort
        }
      }
    };
    // A key that cannot be used fails now, with a line on stderr, rather than on the first call.
    try {
      await backend.whoami();
    } catch (error) {
      const api = toApiError(error);
      if (api.status >= 500 && api.code !== 'unavailable') onError(error);
      io.err(`pcg mcp: ${api.code}: ${api.message}\n`);
      await close();
      return 1;
    }

    const server = buildMcpServer(backend, { ...(maxChars ? { maxChars } : {}), ...(maxEvents ? { maxEvents } : {}), onError });
    const transport = new StdioServerTransport();
    const done = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
      process.stdin.once('close', () => resolve());
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await server.connect(transport);
    await done;
    await server.close().catch(() => undefined);
    await close();
    return 0;
  },
};
