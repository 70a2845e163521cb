import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Access, Auth, Principal } from './auth.js';
import type { Permission } from './catalog/index.js';
import { ApiError } from './errors.js';
import type { LoopShare } from './loop-share.js';
import { authorize as authorizeCaller, lowerGuids } from './service/access.js';

/**
 * One route, declared once: its zod schemas validate the request at run time
 * and describe it in the OpenAPI document, so the two never drift apart.
 */
export interface RouteDef<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify form: `/api/:tenantId/project`. */
  url: string;
  summary: string;
  tag: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * Asked with the path's parameters before the body is read: throws to refuse the request without reading it
   * (the events route: a tenant whose work queue is full).
   */
  admit?(params: unknown): void;
  /** How the body arrives: JSON (default), a raw upload stream, or events (JSON array or NDJSON). */
  bodyKind?: 'json' | 'raw' | 'events';
  /** Success status (default 200); 204 answers no body. */
  status?: number;
  /** Success body schema (for OpenAPI and tests); undefined for 204 / non-JSON. */
  response?: z.ZodType;
  /** Non-JSON answers (SSE, HTML) described by media type. */
  produces?: string;
  handler(ctx: RouteContext<z.output<P>, z.output<Q>, z.output<B>>): unknown;
}

export interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  principal: Principal | undefined;
  request: FastifyRequest;
  reply: FastifyReply;
}

const noQuery = z.object({}).strict();

export const route = <P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(def: RouteDef<P, Q, B>): RouteDef => def as unknown as RouteDef;

function check<T extends z.ZodType>(schema: T | undefined, value: unknown, where: string): z.output<T> {
  if (!schema) return undefined as z.output<T>;
  const r = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (r.success) return r.data;
  const detail = r.error.issues
    .slice(0, 5)
    .map((i) => `${[where, ...i.path.map(String)].join('.')}: ${i.message}`)
    .join('; ');
  throw new ApiError('validation_failed', detail);
}

/** Tenant routes carry `tenantId` (and maybe `projectId`) in the path: access is checked against those (api/service/access.ts). */
function authorize(def: RouteDef, principal: Principal | undefined, params: unknown): void {
  if (typeof def.access !== 'object' || !principal) return;
  const p = params as { tenantId: string; projectId?: string };
  authorizeCaller(principal, p.tenantId, def.access.tenant as Permission, p.projectId);
}

const isStream = (b: unknown): boolean => b !== null && typeof b === 'object' && typeof (b as { pipe?: unknown }).pipe === 'function';

const NDJSON = /^\s*application\/(x-)?ndjson\s*(;|$)/i;
const JSON_TYPE = /^\s*application\/json\s*(;|$)/i;

/**
 * Uploads must arrive as a stream (application/octet-stream); JSON routes must not, nor as text:
 * a body read as text (text/plain, NDJSON) is taken only by the events route, and only as NDJSON.
 */
function rawBody(def: RouteDef, body: unknown, contentType: string): unknown {
  if (def.bodyKind === 'raw' && !isStream(body)) {
    if (body === undefined) throw new ApiError('validation_failed', 'body: the file is required, sent as application/octet-stream');
    throw new ApiError('unsupported_media_type', 'send the file as application/octet-stream');
  }
  if (def.bodyKind !== 'raw' && isStream(body)) throw new ApiError('unsupported_media_type', 'this endpoint takes application/json');
  // An events body arrives as bytes whatever its type; an empty JSON one is refused as Fastify's parser refused it.
  if (def.bodyKind === 'events' && body instanceof Uint8Array && body.byteLength === 0 && JSON_TYPE.test(contentType)) throw new ApiError('validation_failed', 'the JSON body is empty');
  if (def.bodyKind !== 'raw' && body !== undefined && !JSON_TYPE.test(contentType) && !(def.bodyKind === 'events' && NDJSON.test(contentType))) {
    throw new ApiError('unsupported_media_type', def.bodyKind === 'events' ? 'this endpoint takes application/json or application/x-ndjson' : 'this endpoint takes application/json');
  }
  return body;
}

const OCTET_STREAM = /^\s*application\/octet-stream\s*(;|$)/i;

/**
 * Before a body is parsed: an upload comes as application/octet-stream (not read as JSON first), and a
 * body with a content coding (gzip…) is not decoded, so it is refused rather than read as if it were
 * plain (uploads are kept as sent: a .gz file is read as one).
 */
function checkBodyType(def: RouteDef, request: FastifyRequest): void {
  const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
  if (!hasBody) return;
  if (def.bodyKind === 'raw') {
    if (!OCTET_STREAM.test(String(request.headers['content-type'] ?? ''))) throw new ApiError('unsupported_media_type', 'send the file as application/octet-stream');
    return;
  }
  const coding = request.headers['content-encoding'];
  if (coding !== undefined && !/^\s*identity\s*$/i.test(coding)) throw new ApiError('unsupported_media_type', 'a body with a Content-Encoding is not accepted here; send it uncompressed');
}

export function registerRoutes(app: FastifyInstance, auth: Auth, defs: readonly RouteDef[], share?: LoopShare): void {
  for (const def of defs) if (def.bodyKind !== 'events') addRoute(app, auth, def, share);
  const events = defs.filter((d) => d.bodyKind === 'events');
  if (events.length === 0) return;
  // Events routes take their body as the bytes that came, whatever its type (refused below unless JSON or NDJSON):
  // a 10 MB body parsed here held the request loop, so it is parsed on a work thread (api/ingestion.ts).
  app.register(async (child) => {
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    for (const def of events) addRoute(child, auth, def, share);
  });
}

function addRoute(app: FastifyInstance, auth: Auth, def: RouteDef, share?: LoopShare): void {
  app.route({
    method: def.method,
    url: def.url,
    ...(def.bodyKind === 'raw' ? { config: { raw: true } } : {}),
    onRequest: async (request) => {
      if (def.access !== 'public') (request as FastifyRequest & { principal?: Principal }).principal = auth.authenticate(request, def.access);
    },
    preParsing: async (request, _reply, payload) => {
      checkBodyType(def, request);
      if (def.admit) {
        // Only for a caller the path is open to: another tenant's key learns nothing of this tenant's queue.
        const params = check(def.params, lowerGuids(request.params), 'path');
        authorize(def, (request as FastifyRequest & { principal?: Principal }).principal, params);
        def.admit(params);
      }
      return payload;
    },
    handler: async (request, reply) => {
      const principal = (request as FastifyRequest & { principal?: Principal }).principal;
      const params = check(def.params, lowerGuids(request.params), 'path');
      authorize(def, principal, params);
      // A route without query parameters refuses any: a typo never passes silently.
      const query = check(def.query ?? noQuery, request.query, 'query');
      const contentType = String(request.headers['content-type'] ?? '');
      const body = def.bodyKind === 'raw' || def.bodyKind === 'events' ? rawBody(def, request.body, contentType) : check(def.body, rawBody(def, request.body, contentType), 'body');
      // A tenant's handler waits for its turn when the tenant took more than its share of the loop lately; the
      // synchronous part of the handler (up to its first await) is what it is charged.
      const run = () => def.handler({ params, query, body, principal, request, reply });
      const result = share && typeof def.access === 'object' ? await share.charged((params as { tenantId: string }).tenantId, run) : await run();
      if (reply.sent) return reply;
      if (def.status === 204) return reply.code(204).send();
      return reply.code(def.status ?? 200).send(result);
    },
  });
}
