import { createHash } from 'node:crypto';
import { batchSizeOf } from './batcher.js';
import { csvBatches, csvMapping } from './csv.js';
import type { Input } from './input.js';
import { noPairing } from './lifecycle.js';
import { chooseLifecycle, sampleTransitions } from './lifecycle-choice.js';
import type { ReadLimits } from './limits.js';
import { ndjsonBatches } from './ndjson.js';
import { zoneReader } from './timestamp.js';
import type { FileDamage, ImportOptions, LogSource } from './types.js';
import { xesBatches, xesOptionsOf, type XesFacts } from './xes.js';
import { readXesInParts } from './xes-parts.js';

/** What a format's reader is opened with (formats.ts): the file opened once, its options checked, the format known. */
export interface OpenContext {
  path: string;
  input: Input;
  /** Checked options, `format` set to the format detected or forced. */
  options: ImportOptions & { format: NonNullable<ImportOptions['format']> };
  /** Leave out attributes, which only the store keeps: inspect reads faster without them (and needs no digest). */
  lean: boolean;
  limits: ReadLimits;
}

/** What the readers that stream the opened input share: the batch size, the zone, and the source id. */
function streamed(ctx: OpenContext) {
  const o = ctx.options;
  const batchSize = batchSizeOf(o.batchSize);
  const zone = zoneReader(o.timezone);
  // The source id covers what changes the events read: the same file read the same way is the same source.
  // (A lean source is only counted, never stored: it has no file digest.)
  const mappingKey = JSON.stringify([o.format, o.lifecycle ?? 'pair', o.classifier ?? null, o.caseColumn ?? null, o.activityColumn ?? null, o.timestampColumn ?? null, o.resourceColumn ?? null, o.startTimestampColumn ?? null, o.delimiter ?? null, o.timezone ?? 'UTC']);
  const sourceId = createHash('sha256').update(ctx.input.digest).update(mappingKey).digest('hex').slice(0, 32);
  return { o, input: ctx.input, batchSize, zone, sourceId, idPrefix: sourceId.slice(0, 12) };
}

export async function openXes(opened: OpenContext): Promise<LogSource> {
  // Without --lifecycle, the log's own transition values say what the column is (lifecycle-choice.ts); the source id
  // covers the mode chosen, as it covers one given.
  const o0 = opened.options;
  // The same first events say whether the log has a clock at all: none of them carrying a time:timestamp, it records
  // order only (generated logs do), read at NO_CLOCK_TIME in file order rather than refused event by event.
  const sample = await sampleTransitions(opened.input);
  const lifecycle = chooseLifecycle(o0.lifecycle, o0.classifier, o0.lifecycle === undefined && o0.classifier === undefined ? sample : { values: new Map(), spelled: new Map() });
  const untimed = (sample.met ?? 0) > 0 && sample.timed === 0;
  const ctx: OpenContext = { ...opened, options: { ...o0, lifecycle: lifecycle.mode, ...(untimed ? { untimed } : {}) } };
  const { o, input, sourceId, idPrefix } = streamed(ctx);
  const { lean, limits } = ctx;
  let facts: XesFacts = { classifiers: {}, filtered: 0, pairing: noPairing() };
  return {
    format: o.format,
    caseNotion: 'trace',
    caseNotionReason: 'each trace is a case, named by its concept:name',
    lifecycle,
    sourceId,
    batches() {
      facts = { classifiers: {}, filtered: 0, pairing: noPairing() };
      return xesBatches(input, xesOptionsOf(o, idPrefix, lean, limits.lineBytes), facts);
    },
    damage: () => facts.damage,
    contentBytes: () => input.contentRead,
    readInParts: (limits, run) => readXesInParts(input, o, idPrefix, limits, run),
    extra: () => ({
      lifecycle: lifecycle.mode,
      lifecycle_reason: lifecycle.reason,
      ...(o.classifier ? { classifier: o.classifier } : {}),
      classifiers: facts.classifiers,
      ...(facts.filtered ? { filtered_by_lifecycle: facts.filtered } : {}),
      ...(facts.pairing.paired ? { lifecycle_paired: facts.pairing.paired } : {}),
      ...(facts.pairing.unpairedStarts ? { lifecycle_unpaired_starts: facts.pairing.unpairedStarts } : {}),
      ...(facts.pairing.dropped ? { lifecycle_dropped: facts.pairing.dropped } : {}),
      ...(facts.pairing.unpairedTraces ? { lifecycle_not_standard_traces: facts.pairing.unpairedTraces } : {}),
    }),
  };
}

export function openCsv(opened: OpenContext): LogSource {
  const mapping = csvMapping(opened.input.head.toString('utf8').replace(/^\uFEFF/, ''), opened.options);
  // The source id covers the lifecycle mode chosen (label or not), as for XES.
  const ctx: OpenContext = mapping.lifecycleChoice ? { ...opened, options: { ...opened.options, lifecycle: mapping.lifecycleChoice.mode } } : opened;
  const { o, input, batchSize, zone, sourceId, idPrefix } = streamed(ctx);
  const { lean, limits } = ctx;
  // Where the content broke, found while the batches are read (reset by each read).
  let damage: FileDamage | undefined;
  const damaged = (d: FileDamage) => (damage ??= d);
  const name = (i: number) => (i >= 0 ? mapping.header[i] : null);
  return {
    format: o.format,
    caseNotion: mapping.header[mapping.case]!,
    caseNotionReason: `column "${mapping.header[mapping.case]}" ${o.caseColumn === undefined ? 'found by its name' : 'as given'}`,
    ...(mapping.lifecycleChoice ? { lifecycle: mapping.lifecycleChoice } : {}),
    sourceId,
    batches: () => {
      damage = undefined;
      return csvBatches(input, mapping, { ...o, batchSize, idPrefix, zone, lean, damaged, maxRecordBytes: limits.lineBytes });
    },
    damage: () => damage,
    contentBytes: () => input.contentRead,
    extra: () => ({
      delimiter: mapping.delimiter,
      columns: {
        case: name(mapping.case),
        activity: name(mapping.activity),
        timestamp: name(mapping.timestamp),
        resource: name(mapping.resource),
        start_timestamp: name(mapping.start),
        attributes: mapping.attributes.map(name),
      },
      ...(mapping.lifecycleChoice ? { lifecycle: mapping.lifecycleChoice.mode, lifecycle_reason: mapping.lifecycleChoice.reason } : {}),
    }),
  };
}

export function openNdjson(ctx: OpenContext): LogSource {
  const { o, input, batchSize, sourceId, idPrefix } = streamed(ctx);
  let damage: FileDamage | undefined;
  const damaged = (d: FileDamage) => (damage ??= d);
  return {
    format: o.format,
    caseNotion: 'caseId',
    caseNotionReason: 'the caseId field of each event',
    sourceId,
    batches: () => {
      damage = undefined;
      return ndjsonBatches(input, batchSize, damaged, ctx.limits.lineBytes, idPrefix);
    },
    extra: () => ({}),
    damage: () => damage,
    contentBytes: () => input.contentRead,
  };
}
