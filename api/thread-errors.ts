import { EngineError } from '../engine/index.js';
import { ApiError, type ApiErrorCode } from './errors.js';

/**
 * The one wire form of an error crossing a thread boundary (work threads, the retraction thread): errors lose
 * their class on the way, and the error boundary maps by class (api/errors.ts, toApiError), so each side
 * translates here: `toWire` on the thread, `fromWire` back on the request loop.
 */
export type ThreadFailure =
  | { kind: 'api'; code: ApiErrorCode; message: string; headers: Record<string, string> }
  | { kind: 'engine'; code: EngineError['code']; message: string }
  | { kind: 'sqlite'; code: string; message: string }
  | { kind: 'gone'; message: string }
  /** A body with more events than its tenant's quota left room for: nothing applied; the loop asks the quota again. */
  | { kind: 'quota'; events: number; message: string }
  /** Anything else: a fault of the server, answered 500 without its message. */
  | { kind: 'other'; message: string };

export type ThreadOutcome<T> = { ok: T } | { error: ThreadFailure };

/** A batch past the room its tenant's quota leaves (api/ingestion.ts asks the quota again with its count). */
export class OverQuota extends Error {
  constructor(readonly events: number) {
    super(`${events} events pass the tenant's quota`);
  }
}

/** An error in the wire form; `undefined` for one that is none of the known kinds, when the caller keeps it as it is. */
export function toWire(error: unknown): ThreadFailure | undefined {
  if (error instanceof OverQuota) return { kind: 'quota', events: error.events, message: error.message };
  if (error instanceof ApiError) return { kind: 'api', code: error.code, message: error.message, headers: error.headers };
  if (error instanceof EngineError) return { kind: 'engine', code: error.code, message: error.message };
  const e = error as Error & { code?: unknown; gone?: boolean };
  if (e.gone) return { kind: 'gone', message: e.message };
  if (typeof e.code === 'string' && e.code.startsWith('SQLITE_')) return { kind: 'sqlite', code: e.code, message: e.message };
  return undefined;
}

/** Back on the request loop: the error a failure stood for, in the class the error boundary maps. */
export function fromWire(f: ThreadFailure): Error {
  if (f.kind === 'api') return new ApiError(f.code, f.message, f.headers);
  if (f.kind === 'engine') return new EngineError(f.code, f.message);
  if (f.kind === 'gone') return new ApiError('not_found', 'project not found');
  if (f.kind === 'quota') return Object.assign(new Error(f.message), { overQuota: f.events });
  if (f.kind === 'sqlite') return Object.assign(new Error(f.message), { code: f.code });
  return new Error(f.message);
}

/** The value of an outcome, or the error it stood for. */
export function unwrap<T>(outcome: ThreadOutcome<T>): T {
  if ('ok' in outcome) return outcome.ok;
  throw fromWire(outcome.error);
}
