/**
 * The file readers' error registry: stable codes callers (CLI, API) map,
 * never messages. Problems with single records are not errors: they become
 * rejections (dead letters) with their line or element.
 */
export const fileErrorCodes = {
  file_not_found: 'the file does not exist or cannot be read',
  empty_file: 'the file holds no data',
  binary_file: 'the file is binary and not a log format pcg reads',
  unknown_format: 'the content is not a log format pcg reads',
  missing_column: 'a CSV column needed for case, activity or timestamp is absent',
  unknown_classifier: 'the XES classifier asked for is not declared in the log',
  invalid_option: 'an import option has a value that cannot be used',
  format_unavailable: 'the reader for this format is not installed',
  ocel_malformed: 'the file is not well-formed JSON, XML or SQLite',
  ocel_not_ocel: 'the file is well-formed but not an OCEL log',
  ocel_missing_table: 'the SQLite file lacks a table OCEL 2.0 requires',
  ocel_unknown_case_notion: 'the case notion is not an object type of the log',
  ocel_no_objects: 'the log has no object types to take cases from',
  ocel_bad_option: 'an import option does not fit (time zone, say)',
  ocel_unsafe_sqlite: 'an OCEL table of the SQLite file is not a plain table (a view, a virtual table, a computed column) or the file has triggers',
  content_too_large: 'the content is larger than a limit allows: decompressed, or one line or token (the message names the setting)',
  limit_exceeded: 'reading the file would pass a limit: relations or object types of an OCEL log, a reading thread\'s time or memory (the message names the setting)',
} as const;

export type FileErrorCode = keyof typeof fileErrorCodes;

export class FileImportError extends Error {
  readonly code: FileErrorCode;
  constructor(code: FileErrorCode, message: string) {
    super(message);
    this.name = 'FileImportError';
    this.code = code;
  }
}
