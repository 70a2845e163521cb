import { createHash } from 'node:crypto';
import buffer from 'node:buffer';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Batch } from '../../../engine/index.js';
import { DEFAULT_READ_LIMITS, INPUT_LIMIT_NAMES, RATIO_FLOOR_BYTES, type ReadLimits } from '../limits.js';
import type { ImportOptions, LogSource } from '../types.js';
import { assertFlattenable, assertObjectTypes, relationBudget, type RelationBudget } from './budget.js';
import { detectOcel, type OcelFormat } from './detect.js';
import { OcelError } from './errors.js';
import { chooseCaseNotion } from './case-notion.js';
import { flatten, logFacts } from './flatten.js';
import { readOcel1Json, readOcel2Json } from './json-reader.js';
import type { OcelLog } from './model.js';
import { readOcel2Sqlite } from './sqlite-reader.js';
import { timeReader } from './time.js';
import { readOcel1Xml, readOcel2Xml } from './xml-reader.js';

export { detectOcel, type OcelFormat } from './detect.js';
export { OcelError, ocelErrorCodes, type OcelErrorCode } from './errors.js';
export type { ObjectTypeFacts, RelationFacts } from './flatten.js';
export type { TypeShape } from './case-notion.js';

const OCEL_FORMATS = new Set<string>(['ocel2-json', 'ocel2-xml', 'ocel2-sqlite', 'ocel1-json', 'ocel1-xml']);

/**
 * Reads an OCEL log (1.0 JSON/XML, 2.0 JSON/XML/SQLite) and flattens it on a
 * case notion: each event becomes one wire event per related object of that
 * type. OCEL files are read whole (they are small to medium); the work is done
 * here, so a broken file fails at open with an OcelError code, and so does a
 * file over `limits` (budget.ts): before anything is flattened.
 */
export async function openOcel(path: string, options: ImportOptions = {}, limits: ReadLimits = DEFAULT_READ_LIMITS): Promise<LogSource> {
  let bytes: Buffer = readFileSync(path);
  const gz = bytes[0] === 0x1f && bytes[1] === 0x8b;
  if (gz) bytes = gunzipBounded(bytes, limits);
  else if (bytes.length > limits.decompressedBytes) throw tooLarge('decompressedBytes', `a file may hold at most ${limits.decompressedBytes} bytes of content (this one has ${bytes.length})`);
  const format = options.format ?? detectOcel(bytes.subarray(0, 65536), path);
  if (!format || !OCEL_FORMATS.has(format)) throw new OcelError('ocel_not_ocel', `${path} is not an OCEL 1.0 or 2.0 log${format ? ` (format ${format})` : ''}`);
  const ocelFormat = format as OcelFormat;
  if (ocelFormat === 'ocel2-sqlite' && gz) throw new OcelError('ocel_not_ocel', 'a gzipped SQLite file: unpack it first');

  if (options.batchSize !== undefined && (!Number.isInteger(options.batchSize) || options.batchSize < 1)) {
    throw new OcelError('ocel_bad_option', `batch size must be a positive integer, not ${options.batchSize}`);
  }
  const budget = relationBudget(limits.ocelRelations);
  const log = readLog(ocelFormat, path, bytes, budget);
  // SQLite counts its rows as it reads them; the text forms are parsed whole first, and counted here.
  if (ocelFormat !== 'ocel2-sqlite') budget.read(log.eventObjects.length + log.objectObjects.length);
  const zone = options.timezone ?? 'UTC';
  const facts = logFacts(log);
  assertObjectTypes(facts, limits.objectTypesPerProject);
  const readTime = timeReader(zone);
  const notion = chooseCaseNotion(facts, options.caseNotion, readTime);
  assertFlattenable(facts, notion.type, relationBudget(limits.ocelRelations), limits.objectsPerEvent);
  const flat = flatten(log, facts, notion, readTime, limits.objectsPerEvent);
  const sourceId = createHash('sha256').update(bytes).update(`\u0000${notion.type}\u0000${zone}`).digest('hex').slice(0, 32);
  const size = options.batchSize ?? 5000;

  return {
    format: ocelFormat,
    caseNotion: notion.type,
    caseNotionReason: notion.reason,
    eventsWithoutCase: flat.withoutCase,
    objectTypeActivities: Object.fromEntries(facts.objectTypes.map((t) => [t.type, t.activities])),
    sourceId,
    async *batches(): AsyncGenerator<Batch> {
      // A batch ends at `size` events or REFS_PER_BATCH object references, whichever comes first: what applying it
      // costs grows with its references (an event of 1,000 objects costs as much as hundreds of plain ones).
      let i = 0;
      do {
        let end = i;
        let refs = 0;
        while (end < flat.records.length && end - i < size && (end === i || refs < REFS_PER_BATCH)) refs += flat.records[end++]!.objects?.length ?? 0;
        const batch: Batch = {
          records: flat.records.slice(i, end),
          locations: flat.locations.slice(i, end),
          // Objects, their relations and what could not be read travel once, with the first batch.
          ...(i === 0 ? { objects: flat.objects, objectRelations: flat.objectRelations, rejected: flat.rejected } : {}),
        };
        i = end;
        yield batch;
      } while (i < flat.records.length);
    },
    extra: () => ({ ...flat.extra, format: ocelFormat }),
    contentBytes: () => bytes.length,
    damage: () => log.fault,
  };
}

/** Object references per batch (besides the batch size): a batch of wide events stays a batch of bounded cost. */
const REFS_PER_BATCH = 50_000;

/**
 * A gzipped OCEL file, decompressed whole but never past the limits: the size (PCG_DECOMPRESSED_LIMIT_BYTES) and,
 * past RATIO_FLOOR_BYTES, the ratio (PCG_DECOMPRESSED_RATIO_LIMIT), as a streamed file is held to them (input.ts).
 */
function gunzipBounded(bytes: Buffer, limits: ReadLimits): Buffer {
  const byRatio = limits.decompressedRatio > 0 ? Math.max(RATIO_FLOOR_BYTES, limits.decompressedRatio * bytes.length) : Infinity;
  const max = Math.min(limits.decompressedBytes, byRatio, buffer.constants.MAX_LENGTH);
  try {
    return gunzipSync(bytes, { maxOutputLength: max });
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') throw new OcelError('ocel_malformed', `gzip: ${(error as Error).message}`);
    if (max === limits.decompressedBytes) throw tooLarge('decompressedBytes', `a file may hold at most ${limits.decompressedBytes} bytes of content, decompressed (this one has more)`);
    throw tooLarge('decompressedRatio', `past ${RATIO_FLOOR_BYTES} bytes of content a gzip file may hold at most ${limits.decompressedRatio} bytes per compressed byte (this one has more than ${max} bytes in ${bytes.length})`);
  }
}

const tooLarge = (limit: 'decompressedBytes' | 'decompressedRatio', text: string) => new OcelError('content_too_large', `limit ${INPUT_LIMIT_NAMES[limit]}: ${text}`);

function readLog(format: OcelFormat, path: string, bytes: Buffer, budget: RelationBudget): OcelLog {
  switch (format) {
    case 'ocel2-sqlite':
      return readOcel2Sqlite(path, budget);
    case 'ocel2-json':
      return readOcel2Json(text(bytes));
    case 'ocel1-json':
      return readOcel1Json(text(bytes));
    case 'ocel2-xml':
      return readOcel2Xml(text(bytes));
    case 'ocel1-xml':
      return readOcel1Xml(text(bytes));
  }
}

const text = (bytes: Buffer): string => bytes.toString('utf8').replace(/^\uFEFF/, '');
