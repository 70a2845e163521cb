import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CaseReads, Graphs } from '../../engine/projects/index.js';
import type { DocumentViewer } from './viewer.js';
import { Auth, type Principal } from '../auth.js';
import type { AppContext } from '../context.js';
import { limitName } from '../config.js';
import { ApiError } from '../errors.js';
import { RateLimiter } from '../rate-limit.js';
import { LocalBackend } from './local.js';
import { buildMcpServer } from './tools.js';
import type { PcgService } from '../service/index.js';

export const MCP_PATH = '/mcp';

/**
 * The MCP server over streamable HTTP at `/mcp` in `pcg serve`: stateless
 * (each POST is one JSON-RPC exchange, answered as JSON), every request
 * authenticated with the same Bearer keys as the HTTP API (Auth.authenticate:
 * 401 in the API's error format without a valid key, 403 for the global key)
 * and each tool authorized like the routes it mirrors (api/service/access.ts). GET and
 * DELETE (server-sent streams, sessions) are not offered: 405.
 */
export function mountMcp(app: FastifyInstance, context: AppContext, service: PcgService, graphs: Graphs, cases: CaseReads, views?: DocumentViewer): void {
  const { config, catalog, states, logger } = context;
  // The same key checks as the routes; a bucket of its own per key for MCP requests.
  const limiter = new RateLimiter(config.rateLimitBurst, config.rateLimitPerSecond);
  const auth = new Auth(catalog, limiter);
  // The service the HTTP routes call (api/service/), and the loop share they take turns in: a tool call is a use case
  // run as a route's handler runs it.
  const parts = { catalog, states, graphs, cases, service, ingest: context.ingest, ...(views ? { views } : {}), config, usage: context.usage, share: context.loopShare };

  app.route({
    method: 'POST',
    url: MCP_PATH,
    onRequest: async (request) => {
      const principal = auth.authenticate(request, { tenant: 'read' });
      if (principal.kind !== 'tenant') throw new ApiError('forbidden', 'the MCP endpoint takes a tenant API key, not the global key');
      (request as FastifyRequest & { mcpPrincipal?: Principal }).mcpPrincipal = principal;
    },
    // A JSON-RPC batch is as many calls as it has messages: each costs a token (the request's first one was
    // taken above), all at once or none, and a batch is at most PCG_MCP_MAX_BATCH messages (a batch of 100
    // tool calls once cost one token and answered 6.1 MB).
    preHandler: async (request) => {
      if (!Array.isArray(request.body)) return;
      const n = request.body.length;
      const most = config.rateLimitBurst > 0 ? Math.min(config.mcpMaxBatch, config.rateLimitBurst) : config.mcpMaxBatch;
      if (n > most) {
        const which = most === config.mcpMaxBatch ? limitName('mcpMaxBatch') : limitName('rateLimitBurst');
        throw new ApiError('payload_too_large', `limit ${which}: a JSON-RPC batch may carry at most ${most} messages (this one has ${n})`);
      }
      const principal = (request as FastifyRequest & { mcpPrincipal?: Principal }).mcpPrincipal!;
      const wait = n > 1 ? limiter.take(principal.keyId, n - 1) : undefined;
      if (wait !== undefined) throw new ApiError('rate_limited', `a batch of ${n} calls costs ${n} requests of this key's rate limit; retry later`, { 'retry-after': String(wait) });
    },
    handler: async (request, reply) => {
      const principal = (request as FastifyRequest & { mcpPrincipal?: Principal }).mcpPrincipal!;
      const server = buildMcpServer(new LocalBackend(parts, () => principal), {
        maxEvents: config.limitEventsPerRequest,
        onError: (error) => request.log.error({ err: error }, 'mcp tool failed'),
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.setHeader('x-request-id', request.id);
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        logger.error({ err: error, reqId: request.id }, 'mcp request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json' });
          reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
        }
      }
    },
  });
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: MCP_PATH,
      handler: async () => {
        throw new ApiError('method_not_allowed', `${method} is not served at ${MCP_PATH}: this MCP endpoint is stateless (POST only, no sessions or server streams)`, { allow: 'POST' });
      },
    });
  }
}
