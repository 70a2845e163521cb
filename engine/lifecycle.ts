/**
 * XES's standard lifecycle model (IEEE 1849): the transitions an activity's execution goes through. The file
 * readers pair a start with the transition that closes it (connectors/files/lifecycle.ts); the reading tells a
 * column of these from one holding something else (engine/reading/profile.ts).
 */

/** Transitions that begin an execution. */
export const OPENING_TRANSITIONS: ReadonlySet<string> = new Set(['start']);
/** Transitions that mark an execution without beginning or ending it. */
export const MARKING_TRANSITIONS: ReadonlySet<string> = new Set(['schedule', 'assign', 'reassign', 'suspend', 'resume']);
/** Transitions that end one (complete, or aborted, withdrawn, skipped). */
export const CLOSING_TRANSITIONS: ReadonlySet<string> = new Set(['complete', 'ate_abort', 'pi_abort', 'withdraw', 'autoskip', 'manualskip', 'unknown']);

export const STANDARD_TRANSITIONS: ReadonlySet<string> = new Set([...OPENING_TRANSITIONS, ...MARKING_TRANSITIONS, ...CLOSING_TRANSITIONS]);
