/**
 * Stable codes for OCEL files that cannot be read. Callers map the code, never
 * the message; the message names the place (line, table, key) for people.
 */
export const ocelErrorCodes = {
  ocel_malformed: 'the file is not well-formed JSON, XML or SQLite',
  ocel_not_ocel: 'the file is well-formed but not an OCEL log',
  ocel_missing_table: 'the SQLite file lacks a table OCEL 2.0 requires',
  ocel_unknown_case_notion: 'the case notion is not an object type of the log',
  ocel_no_objects: 'the log has no object types to take cases from',
  ocel_bad_option: 'an import option does not fit (time zone, say)',
} as const;

export type OcelErrorCode = keyof typeof ocelErrorCodes;

export class OcelError extends Error {
  readonly code: OcelErrorCode;
  constructor(code: OcelErrorCode, message: string) {
    super(message);
    this.name = 'OcelError';
    this.code = code;
  }
}
