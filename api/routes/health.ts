import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { healthSchema, type Health } from '../health.js';
import type { Metrics } from '../metrics.js';
import { route } from '../route.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Probes and metrics for operators: outside tenant keys and rate limits
 * (access 'public'); `/metrics` checks its own token.
 */
export function healthRoutes(config: Config, health: Health, metrics: Metrics | undefined) {
  const token = config.metricsToken ? digest(config.metricsToken) : undefined;
  return [
    route({
      method: 'GET',
      url: '/health/live',
      summary: 'Liveness: the process is up and its event loop answers',
      tag: 'operations',
      access: 'public',
      response: healthSchema,
      handler: ({ reply }) => {
        reply.header('cache-control', 'no-store');
        return health.live();
      },
    }),
    route({
      method: 'GET',
      url: '/health/ready',
      summary: 'Readiness: the catalog answers a query, the stream sources run (when on), the server is not shutting down; 503 otherwise',
      tag: 'operations',
      access: 'public',
      response: healthSchema,
      handler: ({ reply }) => {
        const report = health.ready();
        reply.header('cache-control', 'no-store');
        if (report.status !== 'ok') return reply.code(503).send(report);
        return report;
      },
    }),
    route({
      method: 'GET',
      url: '/metrics',
      summary: 'Prometheus metrics (text format), with `Authorization: Bearer <PCG_METRICS_TOKEN>`; 404 when no metrics token is configured',
      tag: 'operations',
      access: 'public',
      produces: 'text/plain; version=0.0.4; charset=utf-8',
      handler: async ({ request, reply }) => {
        if (!token || !metrics) throw new ApiError('not_found', 'metrics are off: configure PCG_METRICS_TOKEN to turn them on');
        const header = request.headers.authorization;
        const given = typeof header === 'string' && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '').trim() : '';
        if (!given || !timingSafeEqual(digest(given), token)) throw new ApiError('invalid_token', 'a valid metrics token is required (Authorization: Bearer <PCG_METRICS_TOKEN>)', { 'www-authenticate': 'Bearer' });
        const text = await metrics.scrape();
        return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
      },
    }),
  ];
}
