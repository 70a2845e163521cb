import { jsonText } from '../../engine/render/safe-text.js';
import { FORMAT_NAMES } from '../../connectors/files/formats.js';
import { UsageError, type Command, type Io } from './command.js';
import { FileImportError } from '../../connectors/files/errors.js';
import { exitCode } from '../exit-codes.js';

/** The options `pcg inspect` and `pcg import` share: how to read the file. */
export const readOptions: Command['options'] = {
  'input-format': { type: 'string' },
  format: { type: 'string' },
  lifecycle: { type: 'string' },
  classifier: { type: 'string' },
  case: { type: 'string' },
  activity: { type: 'string' },
  timestamp: { type: 'string' },
  resource: { type: 'string' },
  'start-timestamp': { type: 'string' },
  delimiter: { type: 'string' },
  timezone: { type: 'string' },
  'case-notion': { type: 'string' },
  'batch-size': { type: 'string' },
};

export const readOptionsUsage = `Reading options (all optional; the format is detected from the content):
  --input-format F       ${FORMAT_NAMES.join(' | ')}
                         (pcg inspect and pcg import also take it as --format F)
  --lifecycle L          XES (default: label when most lifecycle:transition values are outside the
                         lifecycle model, a sub-status; else pair): pair (a start and the transition closing it are one execution,
                         the start its start_timestamp; schedule/assign/suspend/resume left out) |
                         all (every event is a step) | complete (only lifecycle:transition complete,
                         events without one kept) | label (activity becomes name+transition)
  --classifier NAME      XES: a classifier declared in the log; activity = its keys' values joined by '+'
  --case COL             CSV column of the case id       (default: case:concept:name, Case ID, CaseID, case_id, case …)
  --activity COL         CSV column of the activity      (default: concept:name, Activity …)
  --timestamp COL        CSV column of the (end) time    (default: time:timestamp, Complete Timestamp, end_time, timestamp …)
  --resource COL         CSV column of the resource      (default: org:resource, Resource)
  --start-timestamp COL  CSV column of the start time    (default: start_timestamp, start_time, Start Timestamp);
                         kept as attribute start_timestamp, the event is at the end time
  --delimiter D          CSV delimiter (default: sniffed among , ; \\t |)
  --timezone Z           zone of times written without one: UTC (default) or an IANA name (Europe/Amsterdam)
  --case-notion TYPE     OCEL: the object type whose objects are the cases (default: the type with one object per process execution touching the most activities)
  --batch-size N         events per batch (default 5000)`;

type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

/** Command-line values to the library's import options (checked again, with zod, by the library). */
export function importOptionsFrom(values: Values): Record<string, unknown> {
  const s = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  if (s('input-format') !== undefined && s('format') !== undefined && s('input-format') !== s('format')) {
    throw new UsageError(`--input-format '${s('input-format')}' and --format '${s('format')}' disagree; give one`);
  }
  const o: Record<string, unknown> = {
    format: s('input-format') ?? s('format'),
    lifecycle: s('lifecycle'),
    classifier: s('classifier'),
    caseColumn: s('case'),
    activityColumn: s('activity'),
    timestampColumn: s('timestamp'),
    resourceColumn: s('resource'),
    startTimestampColumn: s('start-timestamp'),
    delimiter: s('delimiter'),
    timezone: s('timezone'),
    caseNotion: s('case-notion'),
  };
  const size = s('batch-size');
  if (size !== undefined) {
    if (!/^\d+$/.test(size)) throw new UsageError(`--batch-size must be a positive integer, not '${size}'`);
    o.batchSize = Number(size);
  }
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/** File readers' errors carry a stable code: print it with the message, exit 1. */
export function reportFileError(name: string, error: unknown, io: Io): number {
  if (error instanceof FileImportError) {
    io.err(`pcg ${name}: ${error.code}: ${error.message}\n`);
    return exitCode('file_refused');
  }
  throw error;
}

export function onePath(positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError(positionals.length ? 'give exactly one FILE' : 'FILE is required');
  return positionals[0]!;
}

export const command: Command = {
  summary: 'Summarise a log file (XES, CSV, NDJSON, OCEL) without importing it',
  usage: `Usage: pcg inspect FILE [options]

Reads FILE as a stream and prints a JSON summary: format, case_notion, cases,
events, activities, variants, period_start, period_end, rejected and the first
rejections (with line or element), plus format facts (CSV columns, XES
classifiers, OCEL object types and relations). Nothing is written.

${readOptionsUsage}`,
  options: readOptions,
  async run(values, positionals, io) {
    const path = onePath(positionals);
    const options = importOptionsFrom(values);
    const { inspectLog } = await import('../../connectors/files/index.js');
    try {
      const summary = await inspectLog(path, options);
      io.out(`${jsonText(summary, 2)}\n`);
      return 0;
    } catch (error) {
      return reportFileError('inspect', error, io);
    }
  },
};
