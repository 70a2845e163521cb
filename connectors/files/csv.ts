import type { AttributeValue, Batch } from '../../engine/index.js';
// Not through engine/index.js: reading a CSV for inspection must not load the engine and its store.
import { NO_CLOCK_TIME } from '../../engine/time.js';
import { Batcher, ordinalId } from './batcher.js';
import { findColumns, refuseUnnamedClock } from './csv-columns.js';
import { CsvSplitter, RecordTooLong, sniffDelimiter } from './csv-splitter.js';
import { FileImportError } from './errors.js';
import { textChunks, type Input } from './input.js';
import { INPUT_LIMIT_NAMES } from './limits.js';
import { parseTimestamp, type ZoneReader } from './timestamp.js';
import type { FileDamage, ImportOptions } from './types.js';
import { chooseLifecycle, type LifecycleChoice, type TransitionSample } from './lifecycle-choice.js';
import { normalizeHeader } from './csv-columns.js';

/**
 * CSV event logs: one row, one event. Columns are found by the usual names
 * (pm4py exports, Disco/Celonis/Simod and process-monitoring benchmark
 * headers: csv-columns.ts) unless given. With a start time column the row is
 * still one event, at its end time; the start is kept as the
 * `start_timestamp` attribute (ISO text), so counts equal pm4py's.
 * A first column without a name (a pandas index) is ignored; other columns
 * become attributes, numbers when they read as numbers.
 */
/** The CSV mapping options as the user gives them, plus what the reader is handed. */
export interface CsvOptions
  extends Pick<ImportOptions, 'caseColumn' | 'activityColumn' | 'timestampColumn' | 'resourceColumn' | 'startTimestampColumn' | 'delimiter'> {
  batchSize: number;
  idPrefix: string;
  zone: ZoneReader;
  /** Leave out ids and attributes, which only the store needs (for inspect). */
  lean?: boolean;
  /** Told where the file is damaged: a cut-off .gz, an unterminated quote at the end, a last line cut off. */
  damaged?: (damage: FileDamage) => void;
  /** UTF-8 bytes of one record (PCG_LINE_LIMIT_BYTES): a longer one fails the file. */
  maxRecordBytes?: number;
}

export interface CsvMapping {
  delimiter: string;
  header: string[];
  case: number;
  activity: number;
  timestamp: number;
  resource: number;
  start: number;
  /** Columns kept as attributes. */
  attributes: number[];
  /** The lifecycle column (lifecycle:transition, lifecycle, transition; -1 none): kept as an attribute too. */
  lifecycle: number;
  /** Whether its value is appended to the activity (`name+value`): given `--lifecycle label`, or chosen from its values (lifecycle-choice.ts). */
  labelled: boolean;
  /** The mode and why, when the log has a lifecycle column. */
  lifecycleChoice?: LifecycleChoice;
}

/** The first record after the header in the head of the file (a record the head cuts short comes partial: only looked at). */
function firstDataRow(head: string, delimiter: string): string[] | undefined {
  const rows: string[][] = [];
  const splitter = new CsvSplitter(delimiter, (fields) => {
    if (!(fields.length === 1 && fields[0]!.trim() === '')) rows.push(fields);
  });
  splitter.write(head.slice(0, 1 << 16));
  splitter.end();
  return rows[1];
}

/** Header names (normalized) of a lifecycle column, best first. */
const LIFECYCLE_NAMES = ['lifecycle:transition', 'lifecycletransition', 'lifecycle', 'transition'];

/** A date-time written the way the timestamp column may be ("29/2/2016 11:29") as ISO text, as XES dates are read; other text as it is. */
const dateLike = /^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}[T ]+\d{1,2}:\d{2}/;
function dateOrText(text: string, zone: ZoneReader): string {
  if (text.length > 40 || !dateLike.test(text)) return text;
  const t = parseTimestamp(text, zone);
  return Number.isNaN(t) ? text : new Date(t).toISOString();
}

/** Reads the header from the head of the file and decides what each column is. */
export function csvMapping(head: string, options: Pick<CsvOptions, 'caseColumn' | 'activityColumn' | 'timestampColumn' | 'resourceColumn' | 'startTimestampColumn' | 'delimiter'> & Pick<ImportOptions, 'lifecycle'>): CsvMapping {
  const delimiter = options.delimiter ?? sniffDelimiter(head);
  if (!delimiter) throw new FileImportError('invalid_option', 'the delimiter must not be empty');
  let header: string[] | undefined;
  const splitter = new CsvSplitter(delimiter, (fields) => {
    if (!header && !(fields.length === 1 && fields[0]!.trim() === '')) header = fields.map((f) => f.trim());
  });
  const firstLines = head.slice(0, Math.max(head.indexOf('\n', head.search(/\S/)) + 1, 0)) || head;
  splitter.write(firstLines);
  splitter.end();
  if (!header) throw new FileImportError('empty_file', 'the CSV has no header line');
  const h = header;
  const given = { case: options.caseColumn, activity: options.activityColumn, timestamp: options.timestampColumn, resource: options.resourceColumn, start: options.startTimestampColumn };
  const { case: caseCol, activity, timestamp, resource, start: found } = findColumns(h, given, delimiter);
  // Only both flags can name one column as end and start: then it is the end time alone.
  // A start column without an end column is the log's clock still: the events are at their starts.
  const [time, start] = timestamp < 0 && found >= 0 ? [found, -1] : [timestamp, found === timestamp ? -1 : found];
  const used = new Set([caseCol, activity, time, resource, start]);
  if (time < 0) {
    // The first data row, to see that no column the names missed holds dates (csv-columns.ts).
    refuseUnnamedClock(h, firstDataRow(head, delimiter), used, delimiter);
  }
  const attributes = h.map((_, i) => i).filter((i) => !used.has(i) && h[i] !== '' && !/^Unnamed: \d+$/.test(h[i]!));
  const names = h.map(normalizeHeader);
  const lifecycle = LIFECYCLE_NAMES.map((n) => names.findIndex((x, i) => x === n && attributes.includes(i))).find((i) => i >= 0) ?? -1;
  const mapping: CsvMapping = { delimiter, header: h, case: caseCol, activity, timestamp: time, resource, start, attributes, lifecycle, labelled: false };
  if (lifecycle < 0) return mapping;
  // As for XES (lifecycle-choice.ts): a column of sub-statuses is part of the activity unless --lifecycle says otherwise.
  const sample = options.lifecycle === undefined ? headValues(head, delimiter, lifecycle) : { values: new Map(), spelled: new Map() };
  const choice = chooseLifecycle(options.lifecycle, undefined, sample, { activity: h[activity]!, lifecycle: h[lifecycle]! });
  mapping.labelled = choice.mode === 'label';
  // A CSV row is one event: there is no pairing of rows, so any mode but label reads every row as a step.
  mapping.lifecycleChoice = choice.mode === 'label' ? choice : { mode: 'all', reason: `${choice.reason}; a CSV row is one event (rows are not paired)` };
  return mapping;
}

/** The values of one column in the rows of the head (the last, maybe cut, row left out). */
function headValues(head: string, delimiter: string, column: number): TransitionSample {
  const sample: TransitionSample = { values: new Map(), spelled: new Map() };
  const rows: string[][] = [];
  const splitter = new CsvSplitter(delimiter, (fields) => rows.push(fields));
  splitter.write(head.slice(0, head.lastIndexOf('\n') + 1));
  splitter.end();
  for (const fields of rows.slice(1)) {
    const value = (fields[column] ?? '').trim();
    const key = value.toLowerCase();
    if (!key) continue;
    sample.values.set(key, (sample.values.get(key) ?? 0) + 1);
    if (!sample.spelled.has(key)) sample.spelled.set(key, value);
  }
  return sample;
}

const numberPattern = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export async function* csvBatches(input: Input, mapping: CsvMapping, options: CsvOptions): AsyncGenerator<Batch> {
  const rows = new Batcher(options.batchSize);
  const { header } = mapping;
  let headerSeen = false;
  let row = 0;
  // The last row's rejection, if it was rejected: with no line end after it, the file was cut inside it.
  let lastRejected: FileDamage | undefined;
  let lastChar = '';
  const batcher = {
    reject(location: string, reason: string, payload: string) {
      lastRejected = { location, reason };
      rows.reject(location, reason, payload);
    },
    record: (record: unknown, location?: string) => rows.record(record, location),
  };
  const onRow = (fields: string[], line: number) => {
    if (fields.length === 1 && fields[0]!.trim() === '') return; // blank line
    if (!headerSeen) {
      headerSeen = true;
      return;
    }
    row += 1;
    lastRejected = undefined;
    const location = `line ${line}`;
    const payload = () => fields.join(mapping.delimiter);
    if (fields.length !== header.length) {
      batcher.reject(location, `row has ${fields.length} fields, the header has ${header.length}`, payload());
      return;
    }
    const caseId = fields[mapping.case]!;
    const named = fields[mapping.activity]!;
    const sub = mapping.labelled ? fields[mapping.lifecycle]! : '';
    const activity = named.trim() && sub.trim() ? `${named}+${sub}` : named;
    // No timestamp column: the log records order only; every event at NO_CLOCK_TIME keeps file order by its ordinal id.
    const timeText = mapping.timestamp < 0 ? undefined : fields[mapping.timestamp]!;
    if (!caseId.trim()) return batcher.reject(location, `empty case id in column '${header[mapping.case]}'`, payload());
    if (!activity.trim()) return batcher.reject(location, `empty activity in column '${header[mapping.activity]}'`, payload());
    const time = timeText === undefined ? NO_CLOCK_TIME : parseTimestamp(timeText, options.zone);
    if (timeText !== undefined && Number.isNaN(time)) {
      return batcher.reject(location, timeText.trim() ? `cannot read timestamp '${timeText}' in column '${header[mapping.timestamp]}'` : `empty timestamp in column '${header[mapping.timestamp]}'`, payload());
    }
    if (options.lean) {
      batcher.record({ caseId, activity, timestamp: time });
      return;
    }
    const record: Record<string, unknown> = { caseId, activity, timestamp: time, eventId: ordinalId(options.idPrefix, row) };
    if (mapping.resource >= 0 && fields[mapping.resource]!.trim()) record.resource = fields[mapping.resource];
    let attributes: Record<string, AttributeValue> | undefined;
    if (mapping.start >= 0) {
      const text = fields[mapping.start]!;
      if (text.trim()) {
        const start = parseTimestamp(text, options.zone);
        (attributes ??= {}).start_timestamp = Number.isNaN(start) ? text : new Date(start).toISOString();
      }
    }
    for (const i of mapping.attributes) {
      const text = fields[i]!;
      if (text === '') continue;
      (attributes ??= {})[header[i]!] = numberPattern.test(text) && Number.isFinite(Number(text)) ? Number(text) : dateOrText(text, options.zone);
    }
    if (attributes) record.attributes = attributes;
    batcher.record(record, location);
  };
  const splitter = new CsvSplitter(mapping.delimiter, onRow, options.maxRecordBytes);
  try {
    for await (const text of textChunks(input)) {
      splitter.write(text);
      lastChar = text[text.length - 1]!;
      yield* rows.take();
    }
  } catch (error) {
    if (!(error instanceof RecordTooLong)) throw error;
    throw new FileImportError(
      'content_too_large',
      `limit ${INPUT_LIMIT_NAMES.lineBytes}: a CSV record may have at most ${error.maxBytes} bytes (the one at line ${error.line} has more; an unclosed quote makes the rest of the file one record)`,
    );
  }
  if (input.truncated) {
    // The content stops where the .gz was cut: a last line without its end is not an event, whatever it reads as.
    const cut = splitter.drop();
    if (cut) batcher.reject(`line ${cut.line}`, 'cut off where the compressed file ends', cut.rest.slice(0, 1000));
    const damage = { location: 'end of file', reason: 'the compressed file ends early (truncated .gz)' };
    batcher.reject(damage.location, damage.reason, '');
    options.damaged?.(damage);
  } else {
    const rest = splitter.end();
    if (rest) {
      const damage = { location: `line ${rest.line}`, reason: 'unterminated quoted field at the end of the file' };
      batcher.reject(damage.location, damage.reason, rest.rest.slice(0, 1000));
      options.damaged?.(damage);
    } else if (lastRejected && lastChar !== '\n') {
      options.damaged?.({ location: lastRejected.location, reason: `the last line is cut off (no line end): ${lastRejected.reason}` });
    }
  }
  yield* rows.flush();
}
