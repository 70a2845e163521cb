import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { EngineError } from '../engine/index.js';
import { limitName } from './config.js';

/**
 * The HTTP error registry: one stable machine code per condition, with its
 * status. Clients branch on `error`; `message` is for people and never carries
 * internal detail (stack traces, SQL, file paths).
 */
export const apiErrorCodes = {
  missing_headers: 400,
  validation_failed: 400,
  invalid_token: 401,
  token_expired: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  limit_exceeded: 422,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof apiErrorCodes;

export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(code: ApiErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = apiErrorCodes[code];
    this.headers = headers;
  }
}

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

/** Fastify's own errors (body parsing, limits) mapped onto the registry (a body over the limit: bodyTooLarge). */
const fastifyCodes: Record<string, [ApiErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'this content type is not accepted here'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['validation_failed', 'the content length does not match the body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['validation_failed', 'the JSON body is empty'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['validation_failed', 'the body is not valid JSON'],
  FST_ERR_BAD_URL: ['validation_failed', 'the URL is malformed'],
  FST_ERR_ASYNC_CONSTRAINT: ['validation_failed', 'the request could not be routed'],
  FST_ERR_MAX_PARAM_LENGTH: ['validation_failed', 'a path segment is longer than allowed'],
};

/** What the boundary knows of the configuration, for refusals that name their limit. */
export interface BoundaryLimits {
  /** PCG_BODY_LIMIT_BYTES: a body over it is 413 naming the setting. */
  bodyLimitBytes?: number;
}

const bodyTooLarge = (limits: BoundaryLimits): ApiError =>
  new ApiError(
    'payload_too_large',
    limits.bodyLimitBytes === undefined ? 'the request body is larger than allowed' : `limit ${limitName('bodyLimitBytes')}: a request body may have at most ${limits.bodyLimitBytes} bytes`,
  );

export function toApiError(error: unknown, limits: BoundaryLimits = {}): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof EngineError) {
    if (error.code === 'invalid_argument' || error.code === 'invalid_event') return new ApiError('validation_failed', error.message);
    if (error.code === 'state_busy') return new ApiError('unavailable', error.message, { 'retry-after': '2' });
    return new ApiError('internal_error', 'the project state could not be read');
  }
  const e = error as Partial<FastifyError> & { type?: string };
  // Another writer holds the database (SQLite's busy timeout ran out): the client may retry, nothing failed.
  if (typeof e.code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(e.code)) return new ApiError('unavailable', 'the project is busy; retry shortly', { 'retry-after': '1' });
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return bodyTooLarge(limits);
  const mapped = e.code ? fastifyCodes[e.code] : undefined;
  if (mapped) return new ApiError(mapped[0], mapped[1]);
  if (e instanceof SyntaxError || e.type === 'entity.parse.failed') return new ApiError('validation_failed', 'the body is not valid JSON');
  if (typeof e.statusCode === 'number' && e.statusCode === 413) return bodyTooLarge(limits);
  if (typeof e.statusCode === 'number' && e.statusCode === 415) return new ApiError('unsupported_media_type', 'this content type is not accepted here');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new ApiError('validation_failed', 'the request is malformed');
  return new ApiError('internal_error', 'an internal error occurred');
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
