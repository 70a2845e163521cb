import { PcgError, registerWireError, type ErrorRegistry } from '../../engine/error-base.js';

/**
 * The file readers' error registry: stable codes callers (CLI, API) map,
 * never messages (the API's table: api/error-tables.ts). Problems with single records are not errors: they become
 * rejections (dead letters) with their line or element.
 */
export const fileErrorCodes = {
  file_not_found: { message: 'the file does not exist or cannot be read', retriable: false },
  empty_file: { message: 'the file holds no data', retriable: false },
  binary_file: { message: 'the file is binary and not a log format pcg reads', retriable: false },
  unknown_format: { message: 'the content is not a log format pcg reads', retriable: false },
  missing_column: { message: 'a CSV column needed for case, activity or timestamp is absent', retriable: false },
  unknown_classifier: { message: 'the XES classifier asked for is not declared in the log', retriable: false },
  invalid_option: { message: 'an import option has a value that cannot be used', retriable: false },
  format_unavailable: { message: 'the reader for this format is not installed', retriable: false },
  xml_malformed: { message: 'the XML breaks off or is not well-formed (a reader catches it and marks the damage)', retriable: false },
  ocel_malformed: { message: 'the file is not well-formed JSON, XML or SQLite', retriable: false },
  ocel_not_ocel: { message: 'the file is well-formed but not an OCEL log', retriable: false },
  ocel_missing_table: { message: 'the SQLite file lacks a table OCEL 2.0 requires', retriable: false },
  ocel_unknown_case_notion: { message: 'the case notion is not an object type of the log', retriable: false },
  ocel_no_objects: { message: 'the log has no object types to take cases from', retriable: false },
  ocel_bad_option: { message: 'an import option does not fit (time zone, say)', retriable: false },
  ocel_unsafe_sqlite: { message: 'an OCEL table of the SQLite file is not a plain table (a view, a virtual table, a computed column) or the file has triggers', retriable: false },
  content_too_large: { message: 'the content is larger than a limit allows: decompressed, or one line or token (the message names the setting)', retriable: false },
  limit_exceeded: { message: 'reading the file would pass a limit: relations or object types of an OCEL log, a reading thread\'s time or memory (the message names the setting)', retriable: false },
} as const satisfies ErrorRegistry;

export type FileErrorCode = keyof typeof fileErrorCodes;

export class FileImportError extends PcgError<FileErrorCode> {
  override name = 'FileImportError';
  constructor(code: FileErrorCode, message: string) {
    super(code, message, { retriable: fileErrorCodes[code].retriable });
  }
}
registerWireError('FileImportError', FileImportError, (w) => new FileImportError(w.code as FileErrorCode, w.message));
