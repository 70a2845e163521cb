import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { recheckTenant, type TenantPrincipal } from '../auth.js';
import type { AppContext } from '../context.js';
import { documentText, type ServedGraph } from '../../engine/projects/index.js';
import { route } from '../route.js';
import { pageOf, pageOfList, pageQuery } from '../paging.js';
import { guid, projectParams } from '../schemas.js';
import { lowerGuid, type PcgService } from '../service/index.js';

export const graphDocumentSchema = z
  .object({ schema: z.string(), schema_version: z.string() })
  .loose()
  .describe('the process context graph document (schema service.process-context-graph 1.0)')
  .meta({ id: 'GraphDocument' });

const graphQuery = z
  .object({
    investigation: guid.optional().describe('apply this investigation\'s scope'),
    version: z.coerce.number().int().min(0).optional().describe('a data_version served before'),
  })
  .strict();
const streamQuery = z
  .object({
    investigation: guid.optional(),
    include: z.enum(['document']).optional().describe('also send the document with each version'),
  })
  .strict();

/** An investigation named in the query, in any letter case, as path GUIDs are. */
const investigationOf = (id: string | undefined): string | undefined => (id === undefined ? undefined : lowerGuid(id));

const HEARTBEAT_MS = 15_000;
const POLL_MS = 1_000;

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '');
    return v === '*' || v === etag;
  });
}

/** Whether Accept-Encoding takes gzip: named (or `*`) with a weight above 0. */
export function takesGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star = false;
  for (const part of header.toLowerCase().split(',')) {
    const [coding, ...params] = part.split(';').map((p) => p.trim());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (coding === 'gzip' || coding === 'x-gzip') return weight > 0;
    if (coding === '*') star = weight > 0;
  }
  return star;
}

/**
 * The document, its version as ETag. Kept compressed, it goes out as stored to a client that takes gzip (nearly
 * all do: browsers, curl --compressed, fetch, requests); to any other it is decompressed off the loop first.
 */
async function answer(request: FastifyRequest, reply: FastifyReply, served: ServedGraph) {
  reply.header('etag', served.etag).header('cache-control', 'no-cache').header('vary', 'accept-encoding');
  // An older document while the current one builds (Graphs.current): the ETag and the document's source.data_version
  // are the version it is, these headers say it is not the current one, and which is. The document itself is unchanged.
  if (served.stale !== undefined) reply.header('x-pcg-stale', 'true').header('x-pcg-current-version', String(served.stale));
  if (matches(request.headers['if-none-match'], served.etag)) return reply.code(304).send();
  reply.code(200).header('content-type', 'application/json; charset=utf-8');
  if (served.gzip && takesGzip(request.headers['accept-encoding'])) {
    return reply.header('content-encoding', 'gzip').send(Buffer.from(served.gzip.buffer, served.gzip.byteOffset, served.gzip.byteLength));
  }
  return reply.send(await documentText(served));
}

/** The project's documents (api/service/graphs.ts), as HTTP answers them: ETag, 304, gzip, a stream of versions. */
export function graphRoutes(ctx: AppContext, service: PcgService) {
  return [
    route({
      method: 'GET',
      url: '/api/:tenantId/project/:projectId/graph',
      summary:
        'The current process context graph document (ETag = data_version; If-None-Match answers 304). While the project\'s document builds, the newest kept one is answered at once with `X-Pcg-Stale: true` and `X-Pcg-Current-Version`',
      tag: 'graph',
      access: { tenant: 'read' },
      params: projectParams,
      query: graphQuery,
      response: graphDocumentSchema,
      handler: async ({ params, query, request, reply, principal }) => {
        const grant = service.access.grant(principal!, params.tenantId, params.projectId, 'read');
        // A busy project answers its newest kept document at once, marked stale, while one new build runs.
        return answer(request, reply, await service.graphs.served(grant, { version: query.version, investigation: investigationOf(query.investigation), stale: true }));
      },
    }),
    route({
      method: 'GET',
      url: '/api/:tenantId/project/:projectId/graph/versions',
      summary: 'The data versions whose graph was served and is kept, oldest first, a page at a time',
      tag: 'graph',
      access: { tenant: 'read' },
      params: projectParams,
      query: pageQuery(ctx.config),
      response: pageOf(z.object({ dataVersion: z.number().int(), createdAt: z.string() })),
      handler: ({ params, query, principal }) => {
        const grant = service.access.grant(principal!, params.tenantId, params.projectId, 'read');
        return pageOfList(service.graphs.versions(grant), query, ['number'], (v) => [v.dataVersion]);
      },
    }),
    route({
      method: 'GET',
      url: '/api/:tenantId/project/:projectId/graph/stream',
      summary:
        'Server-Sent Events: a `version` event with the data_version (and the document with include=document) on every change; when the key is revoked or expires, or its user loses access, an `error` event and the stream ends',
      tag: 'graph',
      access: { tenant: 'read' },
      params: projectParams,
      query: streamQuery,
      produces: 'text/event-stream',
      handler: async ({ params, query: given, request, reply, principal }) => {
        const grant = service.access.grant(principal!, params.tenantId, params.projectId, 'read');
        const query = { ...given, investigation: investigationOf(given.investigation) };
        if (query.investigation !== undefined) service.graphs.scopeOf(grant, query.investigation);
        // HEAD (answered on every GET route) gets the stream's headers and its end: a stream that stayed open never answered it.
        if (request.method === 'HEAD') return reply.code(200).header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache').send();
        // The route's access rule made sure of a tenant key with read access here.
        const holder = principal as TenantPrincipal;
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-request-id': request.id });
        let sent = -1;
        let busy = false;
        let closed = false;
        const send = async () => {
          if (busy || closed) return;
          busy = true;
          try {
            const version = ctx.states.state(params.projectId).dataVersion;
            if (version === sent) return;
            sent = version;
            let data = JSON.stringify({ dataVersion: version });
            if (query.include === 'document') {
              const served = await service.graphs.served(grant, { investigation: query.investigation });
              // The document's text spliced in as it is (one line of JSON): parsing and writing it again cost ~40 ms for 4 MB on the loop.
              data = `${JSON.stringify({ dataVersion: served.dataVersion, etag: served.etag }).slice(0, -1)},"document":${await documentText(served)}}`;
            }
            if (!closed) raw.write(`id: ${version}\nevent: version\ndata: ${data}\n\n`);
          } catch (error) {
            // Ended meanwhile (the client left, the server is closing): nothing failed that anyone waits for.
            if (closed) return;
            request.log.error({ err: error }, 'graph stream failed');
            raw.write(`event: error\ndata: ${JSON.stringify({ error: 'internal_error', message: 'the graph could not be built' })}\n\n`);
          } finally {
            busy = false;
          }
        };
        // Deferred past the writer's own turn: a stream's snapshot and build never delay the ingestion that announced the change.
        const onChange = () => void setImmediate(() => void send());
        const onDeleted = () => raw.end();
        // The key is checked again whenever keys or memberships change (and on each poll, for
        // changes made by other processes, and when it expires): revoked, expired, removed or
        // downgraded below read ends the stream at once, after an `error` event saying why.
        const recheck = () => {
          if (closed) return;
          const denied = recheckTenant(ctx.catalog, holder, 'read', params.projectId);
          if (!denied) return;
          raw.write(`event: error\ndata: ${JSON.stringify({ error: denied.code, message: denied.message })}\n\n`);
          stop();
          raw.end();
        };
        let expiry: NodeJS.Timeout | undefined;
        const armExpiry = () => {
          if (holder.expiresAt === null || closed) return;
          const wait = Math.max(0, Date.parse(holder.expiresAt) - Date.now()) + 5;
          // setTimeout holds at most ~24.8 days: a later expiry re-arms on the way.
          expiry = setTimeout(() => {
            recheck();
            armExpiry();
          }, Math.min(wait, 2 ** 31 - 1));
        };
        const onClosing = () => {
          if (closed) return;
          raw.write(`event: error\ndata: ${JSON.stringify({ error: 'unavailable', message: 'the server is shutting down; reconnect later' })}\n\n`);
          stop();
          raw.end();
        };
        ctx.closing.addEventListener('abort', onClosing, { once: true });
        ctx.states.changes.on(params.projectId, onChange);
        ctx.states.changes.once(`${params.projectId}:deleted`, onDeleted);
        ctx.catalog.keys.changes.on('change', recheck);
        ctx.catalog.identity.changes.on('change', recheck);
        armExpiry();
        const poll = setInterval(() => {
          recheck();
          onChange();
        }, POLL_MS);
        const beat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
        const stop = () => {
          closed = true;
          clearInterval(poll);
          clearInterval(beat);
          clearTimeout(expiry);
          ctx.states.changes.off(params.projectId, onChange);
          ctx.states.changes.off(`${params.projectId}:deleted`, onDeleted);
          ctx.catalog.keys.changes.off('change', recheck);
          ctx.catalog.identity.changes.off('change', recheck);
          ctx.closing.removeEventListener('abort', onClosing);
        };
        raw.on('close', stop);
        request.raw.on('close', stop);
        if (ctx.closing.aborted) {
          onClosing();
          return reply;
        }
        await send();
        return reply;
      },
    }),
  ];
}
