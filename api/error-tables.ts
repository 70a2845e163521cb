import type { FileErrorCode } from '../connectors/files/errors.js';
import type { EngineError, EngineErrorCode } from '../engine/index.js';
import { limitName } from './config.js';
import { ApiError, type ApiErrorCode, type BoundaryLimits } from './errors.js';

/**
 * How the other layers' codes and foreign errors become the API's: one table each, in one place. The tables are
 * total over their layer's registry (`Record<Code, …>`), so a code added to engine/errors.ts or
 * connectors/files/errors.ts without a row here is a compile error. test/api/error-tables.test.ts holds them.
 */

/** An engine code as the API answers it: `own` keeps the engine's message (it names no internal detail). */
export const engineToApi: Record<EngineErrorCode, { api: ApiErrorCode; own?: true; headers?: Record<string, string> }> = {
  invalid_event: { api: 'validation_failed', own: true },
  invalid_argument: { api: 'validation_failed', own: true },
  state_busy: { api: 'unavailable', own: true, headers: { 'retry-after': '2' } },
  // The rest are faults of the server or of a file on it: answered without their message.
  line_too_long: { api: 'internal_error' },
  schema_too_new: { api: 'internal_error' },
  state_corrupt: { api: 'internal_error' },
  state_pruned: { api: 'internal_error' },
  position_overlap: { api: 'internal_error' },
  position_gap: { api: 'internal_error' },
};

export function fromEngine(error: EngineError): ApiError {
  const row = engineToApi[error.code];
  return row.own ? new ApiError(row.api, error.message, { ...row.headers }) : new ApiError(row.api, 'the project state could not be read');
}

/**
 * A file reader's refusal as the API answers an upload (api/datasets.ts, fileError): over a size limit 413, over
 * another limit 422, any other refusal of the file 400; the reader missing from the install is the server's fault.
 */
export const fileToApi: Record<FileErrorCode, ApiErrorCode> = {
  file_not_found: 'validation_failed',
  empty_file: 'validation_failed',
  binary_file: 'validation_failed',
  unknown_format: 'validation_failed',
  missing_column: 'validation_failed',
  unknown_classifier: 'validation_failed',
  invalid_option: 'validation_failed',
  format_unavailable: 'validation_failed',
  xml_malformed: 'validation_failed',
  ocel_malformed: 'validation_failed',
  ocel_not_ocel: 'validation_failed',
  ocel_missing_table: 'validation_failed',
  ocel_unknown_case_notion: 'validation_failed',
  ocel_no_objects: 'validation_failed',
  ocel_bad_option: 'validation_failed',
  ocel_unsafe_sqlite: 'validation_failed',
  content_too_large: 'payload_too_large',
  limit_exceeded: 'limit_exceeded',
};

/** Where a foreign error comes from: the library or runtime that made it, known by its `code`, never its class name. */
export type ForeignSource = 'sqlite' | 'fastify' | 'node' | 'zod';

export interface ForeignEntry {
  from: ForeignSource;
  api: ApiErrorCode;
  /** What the client reads: never the foreign message (SQL, paths). */
  message: string;
  /** Whether the same request may succeed later (another writer let go, a descriptor freed). */
  retriable: boolean;
  headers?: Record<string, string>;
}

const busy: ForeignEntry = { from: 'sqlite', api: 'unavailable', message: 'the project is busy; retry shortly', retriable: true, headers: { 'retry-after': '1' } };
const fault = (from: ForeignSource, retriable = false): ForeignEntry => ({ from, api: 'internal_error', message: 'an internal error occurred', retriable });
const malformed = (message: string): ForeignEntry => ({ from: 'fastify', api: 'validation_failed', message, retriable: false });

/**
 * The foreign table, by code. SQLite's extended codes (SQLITE_BUSY_SNAPSHOT) fall back to their primary code
 * (SQLITE_BUSY). Another writer holding a database (its busy timeout ran out) is a 503 to retry: nothing failed. A
 * full disk, a corrupt file, a missing or unreadable file on the server and running out of descriptors are faults
 * of the server (500, details in the log only), as they were before this table; EMFILE and EAGAIN pass, so they
 * are retriable.
 */
export const foreignErrors = {
  SQLITE_BUSY: busy,
  SQLITE_LOCKED: busy,
  SQLITE_FULL: fault('sqlite'),
  SQLITE_CORRUPT: fault('sqlite'),
  SQLITE_NOTADB: fault('sqlite'),
  SQLITE_IOERR: fault('sqlite'),
  SQLITE_CANTOPEN: fault('sqlite'),
  SQLITE_READONLY: fault('sqlite'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { from: 'fastify', api: 'unsupported_media_type', message: 'this content type is not accepted here', retriable: false },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: malformed('the content length does not match the body'),
  FST_ERR_CTP_EMPTY_JSON_BODY: malformed('the JSON body is empty'),
  FST_ERR_CTP_INVALID_JSON_BODY: malformed('the body is not valid JSON'),
  FST_ERR_BAD_URL: malformed('the URL is malformed'),
  FST_ERR_ASYNC_CONSTRAINT: malformed('the request could not be routed'),
  FST_ERR_MAX_PARAM_LENGTH: malformed('a path segment is longer than allowed'),
  // The message names the body limit when the boundary knows it (bodyTooLarge).
  FST_ERR_CTP_BODY_TOO_LARGE: { from: 'fastify', api: 'payload_too_large', message: 'the request body is larger than allowed', retriable: false },
  ENOENT: fault('node'),
  EACCES: fault('node'),
  EPERM: fault('node'),
  ENOSPC: fault('node'),
  EDQUOT: fault('node'),
  EMFILE: fault('node', true),
  ENFILE: fault('node', true),
  EAGAIN: fault('node', true),
  // A zod error thrown (not a request's: api/route.ts checks those with safeParse and answers validation_failed) is
  // a check of pcg's own data failing.
  ZOD_INVALID: fault('zod'),
} as const satisfies Record<string, ForeignEntry>;

export type ForeignCode = keyof typeof foreignErrors;

/** The row of the foreign table for any thrown value, or undefined when it is none of the foreign errors known. */
export function foreignEntry(error: unknown): (ForeignEntry & { code: ForeignCode }) | undefined {
  const code = foreignCode(error);
  return code ? { ...foreignErrors[code], code } : undefined;
}

function foreignCode(error: unknown): ForeignCode | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  // zod v4's errors carry no code of their own; their issues list is what marks them (a class check would miss a
  // ZodError made by another copy of zod, or one rebuilt from the wire).
  if (Array.isArray((error as { issues?: unknown }).issues) && error instanceof Error) return 'ZOD_INVALID';
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return undefined;
  if (code in foreignErrors) return code as ForeignCode;
  const primary = /^SQLITE_[A-Z]+/.exec(code)?.[0];
  return primary && primary in foreignErrors ? (primary as ForeignCode) : undefined;
}

/** Whether a thrown value is one of SQLite's (better-sqlite3's SqliteError, here or rebuilt from a thread's wire form). */
export const isSqliteError = (error: unknown): boolean => /^SQLITE_/.test(String((error as { code?: unknown } | null)?.code));

/** A foreign error as the API's, or undefined when the table has no row for it. */
export function fromForeign(error: unknown, limits: BoundaryLimits = {}): ApiError | undefined {
  const row = foreignEntry(error);
  if (!row) return undefined;
  if (row.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return bodyTooLarge(limits);
  return new ApiError(row.api, row.message, { ...row.headers });
}

/** A body over the limit, naming the setting when the boundary knows it. */
export const bodyTooLarge = (limits: BoundaryLimits): ApiError =>
  new ApiError(
    'payload_too_large',
    limits.bodyLimitBytes === undefined ? 'the request body is larger than allowed' : `limit ${limitName('bodyLimitBytes')}: a request body may have at most ${limits.bodyLimitBytes} bytes`,
  );
