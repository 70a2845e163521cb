import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { PcgError, registerWireError, type ErrorEntry } from '../engine/error-base.js';
import { EngineError } from '../engine/index.js';
import { bodyTooLarge, foreignEntry, fromEngine, fromForeign } from './error-tables.js';

/**
 * The HTTP error registry: one stable machine code per condition, with its
 * status, whether a client may simply try again, and what it means. Clients
 * branch on `error`; `message` is for people and never carries internal detail
 * (stack traces, SQL, file paths). Other layers' codes and foreign errors reach
 * these through api/error-tables.ts.
 */
export const apiErrorTable = {
  missing_headers: { status: 400, retriable: false, message: 'a required header is missing' },
  validation_failed: { status: 400, retriable: false, message: 'the request or its body is not valid' },
  invalid_token: { status: 401, retriable: false, message: 'the key is unknown or malformed' },
  token_expired: { status: 401, retriable: false, message: 'the key has expired' },
  forbidden: { status: 403, retriable: false, message: 'the key may not do this' },
  not_found: { status: 404, retriable: false, message: 'no such resource' },
  method_not_allowed: { status: 405, retriable: false, message: 'the path is served under other methods' },
  request_timeout: { status: 408, retriable: true, message: 'the request did not arrive in time' },
  conflict: { status: 409, retriable: false, message: 'the resource exists or is in another state' },
  payload_too_large: { status: 413, retriable: false, message: 'the body or a part of it is larger than a limit' },
  limit_exceeded: { status: 422, retriable: false, message: 'a limit or quota would be passed' },
  unsupported_media_type: { status: 415, retriable: false, message: 'this content type is not accepted here' },
  rate_limited: { status: 429, retriable: true, message: 'too many requests: wait as Retry-After says' },
  internal_error: { status: 500, retriable: false, message: 'an internal error occurred' },
  unavailable: { status: 503, retriable: true, message: 'busy or closing: retry shortly' },
} as const satisfies Record<string, ErrorEntry & { status: number }>;

export type ApiErrorCode = keyof typeof apiErrorTable;

/** Each code's status (the OpenAPI document and clients that check a code read this). */
export const apiErrorCodes = Object.fromEntries(Object.entries(apiErrorTable).map(([code, e]) => [code, e.status])) as { readonly [C in ApiErrorCode]: (typeof apiErrorTable)[C]['status'] };

export class ApiError extends PcgError<ApiErrorCode> {
  override name = 'ApiError';
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(code: ApiErrorCode, message: string, headers: Record<string, string> = {}) {
    super(code, message, { retriable: apiErrorTable[code].retriable });
    this.status = apiErrorTable[code].status;
    this.headers = headers;
  }
  override wireFields() {
    return { headers: this.headers };
  }
}
registerWireError('ApiError', ApiError, (w) => new ApiError(w.code as ApiErrorCode, w.message, (w.fields?.headers ?? {}) as Record<string, string>));

export const errorBodySchema = z
  .object({
    error: z.string().describe('machine code, e.g. invalid_token'),
    message: z.string(),
    timestamp: z.string().describe('ISO 8601 UTC'),
    requestId: z.string(),
  })
  .meta({ id: 'Error' });

export type ErrorBody = z.infer<typeof errorBodySchema>;

export function errorBody(code: string, message: string, requestId: string): ErrorBody {
  return { error: code, message, timestamp: new Date().toISOString(), requestId };
}

/** What the boundary knows of the configuration, for refusals that name their limit. */
export interface BoundaryLimits {
  /** PCG_BODY_LIMIT_BYTES: a body over it is 413 naming the setting. */
  bodyLimitBytes?: number;
}

/**
 * Any error as the registry's: an ApiError as it is, an engine error by its code, a foreign one (SQLite, fastify,
 * Node's file codes, zod) by the foreign table (api/error-tables.ts); anything else is a fault of the server. A file
 * reader's refusal is answered through fileError (api/datasets.ts), which hides the server's paths in its message;
 * one thrown past it is a fault here too.
 */
export function toApiError(error: unknown, limits: BoundaryLimits = {}): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof EngineError) return fromEngine(error);
  // Foreign errors that are the client's (a busy project, fastify's refusals of a request) by the foreign table.
  const foreign = foreignEntry(error);
  if (foreign && foreign.api !== 'internal_error') return fromForeign(error, limits)!;
  const e = error as { statusCode?: unknown; type?: string };
  // Errors of fastify's plugins without a code of their own: by the status they carry.
  if (error instanceof SyntaxError || e.type === 'entity.parse.failed') return new ApiError('validation_failed', 'the body is not valid JSON');
  if (typeof e.statusCode === 'number' && e.statusCode === 413) return bodyTooLarge(limits);
  if (typeof e.statusCode === 'number' && e.statusCode === 415) return new ApiError('unsupported_media_type', 'this content type is not accepted here');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new ApiError('validation_failed', 'the request is malformed');
  // The server's faults, the foreign ones (a full disk, a missing file) included: 500, the detail in the log only.
  return new ApiError('internal_error', foreign?.message ?? 'an internal error occurred');
}

/** Fastify's `frameworkErrors`: router failures answered in the error format, with the request id. */
export function frameworkError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('x-request-id', request.id);
  return sendError(reply, request, toApiError(error));
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large' };

/**
 * An answer in the error format written straight to a socket no request owns (Node refused the request
 * before routing, or it took too long to arrive), then the socket is closed: a client that stopped
 * sending must not keep its descriptor. Nothing is written when a response already began on it.
 */
export function answerSocket(socket: import('node:net').Socket, status: number, code: ApiErrorCode, message: string): void {
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const id = randomUUID();
  const body = JSON.stringify(errorBody(code, message, id));
  socket.end(`HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${id}\r\nconnection: close\r\n\r\n${body}`);
  // Ended, not destroyed at once: bytes the client sent that were not read would make the close a reset, which
  // can take the answer with it. But a client that never closes its half does not keep the descriptor either.
  const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once('close', () => clearTimeout(linger));
}

/** How long a socket answered and ended here waits for its client to close before it is destroyed. */
export const LINGER_MS = 2000;

/**
 * Fastify's `clientErrorHandler`: requests Node rejects before any route (headers over the limit,
 * a malformed request line, headers or a whole request slower than its timeout) still get the error
 * format, with a fresh request id.
 */
export function clientError(error: Error & { code?: string }, socket: import('node:net').Socket): void {
  if (socket.destroyed) return;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return answerSocket(socket, 408, 'request_timeout', 'the request did not arrive in time');
  if (error.code === 'HPE_HEADER_OVERFLOW') return answerSocket(socket, 431, 'payload_too_large', 'the request headers are larger than allowed');
  if (error.code === 'ECONNRESET') return void socket.destroy();
  answerSocket(socket, 400, 'validation_failed', 'the request is malformed');
}

export function sendError(reply: FastifyReply, request: FastifyRequest, error: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
  return reply
    .code(error.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(errorBody(error.code, error.message, request.id));
}

/** Routes by their path pattern, for a 405 naming the methods a path does have. */
export interface RouteShape {
  method: string;
  url: string;
}

/**
 * The one error boundary: every failure, thrown or unrouted, leaves through
 * here. Router errors (a bad URL encoding, an overlong path segment) come
 * through Fastify's `frameworkErrors` (see app.ts); a path served under
 * other methods is 405 with `Allow`.
 */
export function installErrorBoundary(app: FastifyInstance, routes: () => readonly RouteShape[] = () => [], limits: BoundaryLimits = {}): void {
  // Built at the first unrouted request: the boundary is installed before the routes are.
  let patterns: { method: string; re: RegExp }[] | undefined;
  const shapes = () =>
    (patterns ??= routes().map((r) => ({ method: r.method, re: new RegExp(`^${r.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')}/?$`) })));
  app.setErrorHandler((error, request, reply) => {
    const api = toApiError(error, limits);
    if (api.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: api.code }, api.message);
    return sendError(reply, request, api);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = [...new Set(shapes().filter((p) => p.re.test(path)).map((p) => p.method))];
    if (allowed.length) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      return sendError(reply, request, new ApiError('method_not_allowed', `${request.method} is not served at ${path}; allowed: ${allowed.join(', ')}`, { allow: allowed.join(', ') }));
    }
    return sendError(reply, request, new ApiError('not_found', `no route for ${request.method} ${path}`));
  });
}
