import { PcgError, registerWireError, type ErrorRegistry } from './error-base.js';

/**
 * The engine's error registry. Every error the engine throws on purpose carries
 * one of these stable codes; callers (CLI, API) map codes, never messages
 * (the API's table: api/error-tables.ts, which a new code here must join).
 */
export const engineErrorCodes = {
  invalid_event: { message: 'an event failed validation', retriable: false },
  schema_too_new: { message: 'the state file was written by a newer version of pcg', retriable: false },
  state_corrupt: { message: 'the state file is not a pcg project state', retriable: false },
  line_too_long: { message: 'a line of NDJSON is longer than its bound (a reader catches it and names the setting)', retriable: false },
  invalid_argument: { message: 'an argument is out of its allowed range', retriable: false },
  state_pruned: { message: 'the state holds pruned events (retention): their counts cannot be recomputed from the kept events', retriable: false },
  state_busy: { message: "the project's state is being rewritten elsewhere (a source's events taken back on another thread): retry shortly", retriable: true },
  position_overlap: { message: 'part of the batch was already applied from this source position (another writer): re-read the position and send the rest', retriable: false },
  position_gap: { message: 'the batch follows a position that is not applied (a batch sent before it failed): send again from the stored position', retriable: false },
} as const satisfies ErrorRegistry;

export type EngineErrorCode = keyof typeof engineErrorCodes;

export class EngineError extends PcgError<EngineErrorCode> {
  override name = 'EngineError';
  constructor(code: EngineErrorCode, message: string) {
    super(code, message, { retriable: engineErrorCodes[code].retriable });
  }
}
registerWireError('EngineError', EngineError, (w) => new EngineError(w.code as EngineErrorCode, w.message));
