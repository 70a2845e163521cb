import { setImmediate as turn } from 'node:timers/promises';
import { isPrepared, type Batch, type PreparedBatch } from '../../engine/index.js';
import type { IngestTarget } from '../../engine/projects/index.js';
import { openLogOnThread, worthAThread } from './reader-thread.js';
import { detectFormat } from './detect.js';
import { READING_TRAIT_META, traitsMeta } from '../../engine/reading/traits.js';
import { inputFormats } from './formats.js';
import { openInput } from './input.js';
import { inspectSource, type InspectSummary } from './inspect.js';
import { DEFAULT_INPUT_LIMITS, DEFAULT_READ_LIMITS, type InputLimits, type ReadLimits } from './limits.js';
import { checkOptions } from './options.js';
import type { FileDamage, ImportOptions, LogSource } from './types.js';

export { FileImportError, fileErrorCodes, type FileErrorCode } from './errors.js';
export { lightCheck, type InspectSummary } from './inspect.js';
export { importOptionsSchema } from './options.js';
export { FORMAT_NAMES, inputFormats, type FormatName, type FormatTraits, type InputFormat } from './formats.js';
export { DEFAULT_INPUT_LIMITS, DEFAULT_READ_LIMITS, INPUT_LIMIT_NAMES, RATIO_FLOOR_BYTES, readLimits, type InputLimits, type ReadLimits } from './limits.js';
export { parseTimestamp, zoneReader } from './timestamp.js';
export { XmlError, XmlTokenizer, decodeEntities, type XmlHandler } from './xml-tokenizer.js';
export type { FileDamage, ImportOptions, LogSource } from './types.js';
export { LIFECYCLE_MODES, type LifecycleMode } from './types.js';

/**
 * Opens a log file as a stream of engine batches. The format comes from the
 * content; options map columns, pick lifecycle handling and a classifier.
 * Errors about the whole file (empty, binary, no case column…) throw a
 * FileImportError here or on the first batch; errors about single events
 * travel in the batches as rejections. `limits` bound what reading it may
 * cost (limits.ts; a file over one fails with a FileImportError naming it),
 * and `signal` stops a reading on this thread within a chunk.
 */
export async function openLog(path: string, options: ImportOptions = {}, limits: ReadLimits = DEFAULT_READ_LIMITS, signal?: AbortSignal): Promise<LogSource> {
  return openSource(path, options, false, limits, signal);
}

/** `lean` leaves out attributes, which only the store keeps: inspect reads faster without them. */
async function openSource(path: string, options: ImportOptions, lean: boolean, limits: ReadLimits = DEFAULT_READ_LIMITS, signal?: AbortSignal): Promise<LogSource> {
  const o = checkOptions(options);
  const input = await openInput(path, { digest: !lean, limits, ...(signal ? { signal } : {}) });
  const format = o.format ?? (await detectFormat(input));
  return inputFormats[format].open({ path, input, options: { ...o, format }, lean, limits });
}

/** Counts a log without loading it anywhere: the JSON `pcg inspect` prints. */
export async function inspectLog(path: string, options: ImportOptions = {}): Promise<InspectSummary> {
  const source = await openSource(path, options, true);
  return inspectSource(source, () => openSource(path, options, true));
}

/** What reading a whole log once, storing nothing, finds: an upload's check before any of it is applied. */
export interface LogCheck {
  format: string;
  /** Records read (valid or not: the store validates them). */
  records: number;
  /** Records that could not be read (the damage, if any, among them). */
  rejected: number;
  /** Where the file stops early or breaks, if it does. */
  damage: FileDamage | undefined;
  /** Bytes of content read (decompressed). */
  contentBytes: number;
}

/**
 * Reads a whole log once without storing anything. Whole-file problems (empty, binary, a
 * corrupt .gz, no case column…) throw as they would on import, so a caller that checks first
 * applies nothing of a file that would fail half-way; damage that import would survive (a
 * cut-off .gz, XML ending inside an element, a torn last line) is reported. A file over one of
 * `limits` throws as its import would. (`pcg serve` runs this on a thread under a time and memory
 * budget: api/upload-checks.ts.)
 */
export async function checkLog(path: string, options: ImportOptions = {}, limits: ReadLimits = DEFAULT_READ_LIMITS, signal?: AbortSignal): Promise<LogCheck> {
  const source = await openSource(path, options, true, limits, signal);
  let records = 0;
  let rejected = 0;
  for await (const batch of source.batches()) {
    signal?.throwIfAborted();
    records += batch.records.length;
    rejected += batch.rejected?.length ?? 0;
  }
  return { format: source.format, records, rejected, damage: source.damage?.(), contentBytes: source.contentBytes?.() ?? 0 };
}

/** How an import is run: under which source its batches are positioned, and a signal that stops it between batches. */
export interface ImportRun {
  /** The position source (default: the file's content digest and reading options, `source` of the summary). */
  source?: string;
  signal?: AbortSignal;
  /**
   * Read and prepare the batches on a thread of their own while this one writes (default: for files of
   * THREAD_MIN_BYTES or more). The result is the same either way.
   */
  thread?: boolean;
  /** Told after each batch how many items (records and rejections) of the file are applied or were already. */
  onProgress?: (items: number) => void;
  /** Bounds on reading the file (default DEFAULT_INPUT_LIMITS); its events meet the store's own limits. */
  limits?: InputLimits;
}

export interface ImportSummary {
  format: string;
  case_notion: string;
  source: string;
  /** Records the store took as new events. */
  accepted: number;
  /** Records whose event the project already had. */
  duplicates: number;
  /** Records that could not be read or failed validation (now dead letters). */
  rejected: number;
  /** Records in batches an earlier run had already applied (a re-import or a resumed one). */
  already_imported: number;
  rejections: { location: string; reason: string }[];
  /** The project's totals after the import. */
  cases: number;
  events: number;
}

/**
 * The meta keys describeSource writes: a dataset's deletion gives them back as they were before it
 * (api/datasets.ts). The reader's traits are among them, so the reading needs no format names.
 */
export const SOURCE_META_KEYS = ['case_notion', 'case_notion_reason', 'lifecycle', 'lifecycle_reason', 'events_without_case_object', 'object_type_activities', 'format', 'timezone', ...Object.values(READING_TRAIT_META)] as const;

/** What the project's meta says of the log it was read from. */
export function describeSource(target: Pick<IngestTarget, 'setMeta'>, source: Pick<LogSource, 'format' | 'caseNotion' | 'caseNotionReason' | 'eventsWithoutCase' | 'objectTypeActivities' | 'lifecycle'>, options: ImportOptions): void {
  target.setMeta('case_notion', source.caseNotion);
  // What an activity is made of (XES: the name, or the name and its sub-status); empty for other formats.
  target.setMeta('lifecycle', source.lifecycle?.mode ?? '');
  target.setMeta('lifecycle_reason', source.lifecycle?.reason ?? '');
  // Written for every format, so a CSV imported after an OCEL log leaves no stale reason behind.
  target.setMeta('case_notion_reason', source.caseNotionReason ?? '');
  target.setMeta('events_without_case_object', String(source.eventsWithoutCase ?? 0));
  // The whole log's event-to-object relation: the stored events are only those the case notion kept.
  target.setMeta('object_type_activities', source.objectTypeActivities ? JSON.stringify(source.objectTypeActivities) : '');
  target.setMeta('format', source.format);
  for (const [key, value] of traitsMeta(inputFormats[source.format].traits)) target.setMeta(key, value);
  // The document says which zone zone-less times were read in.
  target.setMeta('timezone', options.timezone ?? 'UTC');
}

/**
 * Loads a log into a project through the store's one write path. Every batch
 * is positioned at the cumulative count of items (records and rejections) at
 * its end under the file's source id, so a second run, or a run after one
 * killed mid-way, skips what was applied and counts every event once.
 */
export async function importLog(store: IngestTarget, path: string, options: ImportOptions = {}, run: ImportRun = {}): Promise<ImportSummary> {
  run.signal?.throwIfAborted();
  const thread = run.thread ?? worthAThread(path);
  const limits: ReadLimits = { ...DEFAULT_INPUT_LIMITS, ...run.limits, ...store.limits };
  const source = thread ? await openLogOnThread(path, options, limits, run.signal) : await openLog(path, options, limits, run.signal);
  return importSource(store, source, options, run);
}

/** A log's batches as a source reader gives them (opened on this thread or on a reader thread). */
export type OpenedLog = Pick<LogSource, 'format' | 'caseNotion' | 'caseNotionReason' | 'eventsWithoutCase' | 'objectTypeActivities' | 'lifecycle' | 'sourceId'> & { batches(): AsyncGenerator<Batch | PreparedBatch> };

/** importLog for a log already opened (`options` as it was opened with); its batches are read from the start. */
export async function importSource(store: IngestTarget, source: OpenedLog, options: ImportOptions = {}, run: ImportRun = {}): Promise<ImportSummary> {
  const positionSource = run.source ?? source.sourceId;
  describeSource(store, source, options);
  const summary: ImportSummary = {
    format: source.format,
    case_notion: source.caseNotion,
    source: positionSource,
    accepted: 0,
    duplicates: 0,
    rejected: 0,
    already_imported: 0,
    rejections: [],
    cases: 0,
    events: 0,
  };
  let offset = 0;
  for await (const batch of source.batches()) {
    // A batch carrying only objects still moves the position, so it is applied once too.
    const items = Math.max(1, isPrepared(batch) ? batch.items : batch.records.length + (batch.rejected?.length ?? 0));
    offset += items;
    run.signal?.throwIfAborted();
    const result = await store.apply(batch, { source: positionSource, partition: 0, offset });
    run.onProgress?.(offset);
    // A turn of the event loop between batches: batches a reader thread has ready come back through promises
    // already resolved, and without it a whole import ran in one turn, every other request (and a SIGTERM) waiting.
    await turn();
    if (!result.applied) {
      summary.already_imported += items;
      continue;
    }
    summary.accepted += result.accepted;
    summary.duplicates += result.duplicates;
    summary.rejected += result.rejected;
    for (const r of result.rejections) if (summary.rejections.length < 20) summary.rejections.push(r);
  }
  const totals = store.totals();
  summary.cases = totals.cases;
  summary.events = totals.events;
  return summary;
}
