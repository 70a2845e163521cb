import type { LogProfile } from './profile.js';

/**
 * What an activity is made of in a log of record states (issue 31). A ticketing system logs a record's status and
 * its sub-status ('Accepted' / 'In Progress', 'Wait', 'Assigned'); the sub-status is where the record waits, so the
 * file reader makes it part of the activity when a log's lifecycle:transition column holds it (meta `lifecycle` =
 * `label`, chosen from the values: connectors/files/lifecycle-choice.ts). The document says which was done, so an
 * agent knows what 'Accepted+Wait' is, or that a repeat of 'Accepted' may hide a change of sub-status.
 */
export function stateAssumptions(meta: Readonly<Record<string, string>>, profile: Pick<LogProfile, 'lifecycle'>): string[] {
  const mode = meta.lifecycle ?? '';
  const reason = meta.lifecycle_reason ?? '';
  if (mode === 'label') {
    return [
      `Activities: each activity is an event's name and its lifecycle value joined by '+' (${reason}). A step is a change of status or of sub-status; the waits are the times a record spent in each pair.`,
    ];
  }
  if (profile.lifecycle.nonStandard && mode !== '') {
    return [
      `Activities: each activity is an event's name alone, read with --lifecycle ${mode}; its lifecycle:transition holds values outside the lifecycle model (a sub-status), which the activities leave out: a repeat of one activity may be a change of sub-status, and its waits mix the sub-states (read with --lifecycle label to see them).`,
    ];
  }
  return [];
}
