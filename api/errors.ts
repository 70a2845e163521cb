import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { EngineError } from '../engine/index.js';

/**
 * The HTTP error registry: one stable machine code per condition, with its
 * status. Clients branch on `error`; `message` is for people and never carries
 * internal detail (stack traces, SQL, file paths).
 */
export const apiErrorCodes = {
  missing_headers: 400,
  validation_failed: 400,
  invalid_token: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
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

/** Fastify's own errors (body parsing, limits) mapped onto the registry. */
const fastifyCodes: Record<string, [ApiErrorCode, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'the request body is larger than allowed'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'this content type is not accepted here'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['validation_failed', 'the content length does not match the body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['validation_failed', 'the JSON body is empty'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['validation_failed', 'the body is not valid JSON'],
  FST_ERR_BAD_URL: ['validation_failed', 'the URL is malformed'],
  FST_ERR_ASYNC_CONSTRAINT: ['validation_failed', 'the request could not be routed'],
};

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof EngineError) {
    if (error.code === 'invalid_argument' || error.code === 'invalid_event') return new ApiError('validation_failed', error.message);
    return new ApiError('internal_error', 'the project state could not be read');
  }
  const e = error as Partial<FastifyError> & { type?: string };
  // Another writer holds the database (SQLite's busy timeout ran out): the client may retry, nothing failed.
  if (typeof e.code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(e.code)) return new ApiError('unavailable', 'the project is busy; retry shortly', { 'retry-after': '1' });
  const mapped = e.code ? fastifyCodes[e.code] : undefined;
  if (mapped) return new ApiError(mapped[0], mapped[1]);
  if (e instanceof SyntaxError || e.type === 'entity.parse.failed') return new ApiError('validation_failed', 'the body is not valid JSON');
  if (typeof e.statusCode === 'number' && e.statusCode === 413) return new ApiError('payload_too_large', 'the request body is larger than allowed');
  if (typeof e.statusCode === 'number' && e.statusCode === 415) return new ApiError('unsupported_media_type', 'this content type is not accepted here');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new ApiError('validation_failed', 'the request is malformed');
  return new ApiError('internal_error', 'an internal error occurred');
}

export function sendError(reply: FastifyReply, request: FastifyRequest, error: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
  return reply
    .code(error.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(errorBody(error.code, error.message, request.id));
}

/** The one error boundary: every failure, thrown or unrouted, leaves through here. */
export function installErrorBoundary(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const api = toApiError(error);
    if (api.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: api.code }, api.message);
    return sendError(reply, request, api);
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, request, new ApiError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`)));
}
