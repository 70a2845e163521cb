import { FileImportError } from './errors.js';
import type { Input } from './input.js';
import type { ImportOptions } from './types.js';

export type Format = NonNullable<ImportOptions['format']>;

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** The OCEL readers' detector, when they are installed (they live in ./ocel/, built separately). */
export type OcelDetector = (head: Buffer, path: string) => Format | undefined;

/**
 * The format of a log from its content (magic bytes, first characters), never
 * its name: a `.csv` that holds XES is read as XES. OCEL forms are asked of
 * the OCEL detector first, since OCEL XML shares XES's `<log>` root and OCEL
 * JSON starts like NDJSON.
 */
export function detectFormat(input: Input, detectOcel: OcelDetector | undefined): Format {
  const head = input.head;
  if (head.length === 0 || isBlank(head)) throw new FileImportError('empty_file', `${input.path} is empty${input.gzip ? ' (after decompression)' : ''}`);
  if (head.subarray(0, SQLITE_MAGIC.length).toString('latin1') === SQLITE_MAGIC) {
    const ocel = detectOcel?.(head, input.path);
    if (ocel) return ocel;
    throw new FileImportError('unknown_format', `${input.path} is a SQLite database but not an OCEL 2.0 log`);
  }
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) {
    throw new FileImportError('unknown_format', `${input.path} is UTF-16 text; save it as UTF-8`);
  }
  if (looksBinary(head)) throw new FileImportError('binary_file', `${input.path} is a binary file, not XES, CSV, NDJSON or OCEL`);
  const text = head.toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('<')) {
    const ocel = detectOcel?.(head, input.path);
    if (ocel) return ocel;
    return 'xes';
  }
  if (text.startsWith('{')) {
    const ocel = detectOcel?.(head, input.path);
    if (ocel) return ocel;
    return 'ndjson';
  }
  if (text.startsWith('[')) throw new FileImportError('unknown_format', `${input.path} is a JSON array; pcg reads NDJSON (one event object per line) or OCEL JSON`);
  return 'csv';
}

/**
 * Whether the OCEL detector has to be asked at all: only SQLite, JSON and XML
 * that is not plainly XES can be OCEL. Sparing its import keeps `pcg inspect`
 * of a CSV or XES file quick to start.
 */
export function mayBeOcel(head: Buffer): boolean {
  if (head.subarray(0, SQLITE_MAGIC.length).toString('latin1') === SQLITE_MAGIC) return true;
  const text = head.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('{')) return true;
  return text.startsWith('<') && !/xes\.version|<trace[\s>]/.test(head.toString('utf8'));
}

function isBlank(head: Buffer): boolean {
  for (const b of head) if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf) return false;
  return true;
}

/** NUL bytes or many control characters in the first kilobytes: not text. */
function looksBinary(head: Buffer): boolean {
  const sample = head.subarray(0, 8192);
  let control = 0;
  for (const b of sample) {
    if (b === 0) return true;
    if (b < 0x09 || (b > 0x0d && b < 0x20) || b === 0x7f) control++;
  }
  return control > sample.length * 0.01;
}
