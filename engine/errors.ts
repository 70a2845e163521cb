/**
 * The engine's error registry. Every error the engine throws on purpose carries
 * one of these stable codes; callers (CLI, API) map codes, never messages.
 */
export const engineErrorCodes = {
  invalid_event: 'an event failed validation',
  schema_too_new: 'the state file was written by a newer version of pcg',
  state_corrupt: 'the state file is not a pcg project state',
  invalid_argument: 'an argument is out of its allowed range',
  state_pruned: 'the state holds pruned events (retention): their counts cannot be recomputed from the kept events',
  state_busy: "the project's state is being rewritten elsewhere (a source's events taken back on another thread): retry shortly",
  position_overlap: 'part of the batch was already applied from this source position (another writer): re-read the position and send the rest',
  position_gap: 'the batch follows a position that is not applied (a batch sent before it failed): send again from the stored position',
} as const;

export type EngineErrorCode = keyof typeof engineErrorCodes;

export class EngineError extends Error {
  readonly code: EngineErrorCode;
  constructor(code: EngineErrorCode, message: string) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
  }
}
