import { readNdjson, type Batch, type Rejection } from '../engine/index.js';
import { limitName } from './config.js';
import { ApiError } from './errors.js';

/**
 * The body of `POST …/events` read into a batch: on a work thread in `pcg serve` (api/work-thread.ts), so that
 * parsing ten megabytes of JSON never holds the request loop. The same refusals as the route made when Fastify
 * parsed the body: not JSON (400), a `__proto__` key or a `constructor.prototype` (400, as Fastify's
 * secure-json-parse refused them), not events (400), more events than PCG_LIMIT_EVENTS_PER_REQUEST (413).
 */
export function readIngestBody(raw: Uint8Array | string, ndjson: boolean, maxEvents: number): Batch {
  const text = typeof raw === 'string' ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
  const batch = eventsOf(ndjson ? text : parseJson(text), ndjson);
  const n = batch.records.length + batch.rejected.length;
  if (n > maxEvents) throw tooManyEvents(n, maxEvents);
  return batch;
}

/** The refusal of a batch past PCG_LIMIT_EVENTS_PER_REQUEST, over HTTP and MCP alike. */
export const tooManyEvents = (n: number, maxEvents: number) =>
  new ApiError('payload_too_large', `limit ${limitName('limitEventsPerRequest')}: a request may carry at most ${maxEvents} events (this one has ${n})`);

/** A JSON array (or one object) or NDJSON text, as records plus the lines that were not JSON. */
export function eventsOf(body: unknown, ndjson: boolean): { records: unknown[]; locations?: string[]; rejected: Rejection[] } {
  if (ndjson && typeof body === 'string') return readNdjson(body);
  if (Array.isArray(body)) return { records: body, rejected: [] };
  if (body !== null && typeof body === 'object') return { records: [body], rejected: [] };
  throw new ApiError('validation_failed', 'body: expected a JSON array of events, one event object, or NDJSON');
}

// Fastify's JSON parser (secure-json-parse) refused these keys, which pollute prototypes if a body is ever merged
// into an object; their escaped spellings count too. The text is only walked when one of them appears in it.
const PROTO = /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const CONSTRUCTOR = /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

function parseJson(text: string): unknown {
  // A byte order mark is not JSON, but clients send one and Fastify's parser took it.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new ApiError('validation_failed', 'the body is not valid JSON');
  }
  const proto = PROTO.test(json);
  const ctor = CONSTRUCTOR.test(json);
  if ((proto || ctor) && poisoned(value, proto, ctor)) throw new ApiError('validation_failed', 'the body is not valid JSON');
  return value;
}

/** Whether a parsed value holds a `__proto__` key or a `constructor` object with a `prototype` key, at any depth. */
function poisoned(root: unknown, proto: boolean, ctor: boolean): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (proto && Object.prototype.hasOwnProperty.call(v, '__proto__')) return true;
    if (ctor && Object.prototype.hasOwnProperty.call(v, 'constructor')) {
      const c = (v as Record<string, unknown>).constructor;
      if (c !== null && typeof c === 'object' && Object.prototype.hasOwnProperty.call(c, 'prototype')) return true;
    }
    for (const child of Object.values(v)) if (child !== null && typeof child === 'object') stack.push(child);
  }
  return false;
}
