import { FileImportError } from './errors.js';
import { FORMAT_NAMES, formatRow, type Detection, type FormatName } from './formats.js';
import type { Input } from './input.js';

export type Format = FormatName;

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/**
 * The format of a log from its content (magic bytes, first characters), never
 * its name: a `.csv` that holds XES is read as XES. The first bytes give the
 * family; within it, the formats that test the head are asked first (OCEL XML
 * shares XES's `<log>` root, OCEL JSON starts like NDJSON), and the family's
 * plain format takes the rest (formats.ts).
 */
export async function detectFormat(input: Input): Promise<Format> {
  const head = input.head;
  if (head.length === 0 || isBlank(head)) throw new FileImportError('empty_file', `${input.path} is empty${input.gzip ? ' (after decompression)' : ''}`);
  const sqlite = head.subarray(0, SQLITE_MAGIC.length).toString('latin1') === SQLITE_MAGIC;
  if (!sqlite && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))) {
    throw new FileImportError('unknown_format', `${input.path} is UTF-16 text; save it as UTF-8`);
  }
  if (!sqlite && looksBinary(head)) throw new FileImportError('binary_file', `${input.path} is a binary file, not ${orList(kinds(FORMAT_NAMES))}`);
  const text = sqlite ? '' : head.toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('[')) throw new FileImportError('unknown_format', `${input.path} is a JSON array; pcg reads ${orList(kinds(inFamily('json')))} JSON, which begins with an object`);
  const family: Detection['family'] = sqlite ? 'sqlite' : text.startsWith('<') ? 'markup' : text.startsWith('{') ? 'json' : 'text';
  const names = inFamily(family);
  for (const name of names) {
    const test = formatRow(name).detect.test;
    if (test && (await test(head, input.path))) return name;
  }
  const plain = names.find((name) => !formatRow(name).detect.test);
  if (plain) return plain;
  throw new FileImportError('unknown_format', `${input.path} is a ${sqlite ? 'SQLite database' : 'file'} but no ${orList(kinds(names))} log`);
}

const inFamily = (family: Detection['family']): FormatName[] => FORMAT_NAMES.filter((name) => formatRow(name).detect.family === family);
const kinds = (names: readonly FormatName[]): string[] => [...new Set(names.map((name) => formatRow(name).kind))];
const orList = (items: string[]): string => (items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : (items[0] ?? ''));

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
