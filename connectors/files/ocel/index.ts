import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Batch } from '../../../engine/index.js';
import type { ImportOptions, LogSource } from '../types.js';
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
 * here, so a broken file fails at open with an OcelError code.
 */
export async function openOcel(path: string, options: ImportOptions = {}): Promise<LogSource> {
  let bytes = readFileSync(path);
  const gz = bytes[0] === 0x1f && bytes[1] === 0x8b;
  if (gz) {
    try {
      bytes = gunzipSync(bytes);
    } catch (error) {
      throw new OcelError('ocel_malformed', `gzip: ${(error as Error).message}`);
    }
  }
  const format = options.format ?? detectOcel(bytes.subarray(0, 65536), path);
  if (!format || !OCEL_FORMATS.has(format)) throw new OcelError('ocel_not_ocel', `${path} is not an OCEL 1.0 or 2.0 log${format ? ` (format ${format})` : ''}`);
  const ocelFormat = format as OcelFormat;
  if (ocelFormat === 'ocel2-sqlite' && gz) throw new OcelError('ocel_not_ocel', 'a gzipped SQLite file: unpack it first');

  if (options.batchSize !== undefined && (!Number.isInteger(options.batchSize) || options.batchSize < 1)) {
    throw new OcelError('ocel_bad_option', `batch size must be a positive integer, not ${options.batchSize}`);
  }
  const log = readLog(ocelFormat, path, bytes);
  const zone = options.timezone ?? 'UTC';
  const facts = logFacts(log);
  const readTime = timeReader(zone);
  const notion = chooseCaseNotion(facts, options.caseNotion, readTime);
  const flat = flatten(log, facts, notion, readTime);
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
      for (let i = 0; i === 0 || i < flat.records.length; i += size) {
        const batch: Batch = {
          records: flat.records.slice(i, i + size),
          locations: flat.locations.slice(i, i + size),
          // Objects, their relations and what could not be read travel once, with the first batch.
          ...(i === 0 ? { objects: flat.objects, objectRelations: flat.objectRelations, rejected: flat.rejected } : {}),
        };
        yield batch;
      }
    },
    extra: () => ({ ...flat.extra, format: ocelFormat }),
    damage: () => log.fault,
  };
}

function readLog(format: OcelFormat, path: string, bytes: Buffer): OcelLog {
  switch (format) {
    case 'ocel2-sqlite':
      return readOcel2Sqlite(path);
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
