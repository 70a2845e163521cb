import type { Batch, EventCheck } from '../../engine/index.js';
import { NO_CLOCK_TIME } from '../../engine/time.js';
import { inputFormats } from './formats.js';
import type { LogSource } from './types.js';

/** What `pcg inspect` prints. OCEL sources add their own keys (object_types, object_relations…). */
export interface InspectSummary {
  format: string;
  case_notion: string;
  cases: number;
  events: number;
  activities: number;
  variants: number;
  period_start: string | null;
  period_end: string | null;
  rejected: number;
  rejections: { location: string; reason: string }[];
  [extra: string]: unknown;
}

const REJECTIONS_SHOWN = 20;
const MIN_TIME = Date.UTC(1, 0, 1);
const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** A case's events as parallel arrays: times, tie-break keys (only when not file order), interned activities. */
interface CaseEvents {
  times: number[];
  acts: number[];
  keys: string[] | undefined;
}

/**
 * Counts a log without a store: memory is the case table (interned variant per
 * case) plus, for formats where a case's events may be spread over the file
 * (CSV, NDJSON), compact per-case arrays. XES traces are whole when they close,
 * so their variants are counted right away; a case id that comes back in a
 * later trace (the store merges such traces) is recounted in a second pass
 * over just those cases.
 *
 * Records are counted the way the store would: readers of XES and CSV build
 * well-typed records, so a light check suffices; NDJSON records get the full
 * engine check and are de-duplicated by event key.
 */
export async function inspectSource(source: LogSource, reopen: () => Promise<LogSource>): Promise<InspectSummary> {
  const { casesTogether, rawRecords } = inputFormats[source.format].traits;
  let streaming = casesTogether;
  const full = rawRecords;
  // The engine (and its store) is loaded only for records that need its full check.
  const checkEvent: ((input: unknown) => EventCheck) | undefined = full ? (await import('../../engine/index.js')).checkEvent : undefined;
  const activities = new Map<string, number>();
  const variantIds = new Map<string, number>();
  const variantCounts: number[] = [];
  const caseVariant = new Map<string, number>();
  const open = new Map<string, CaseEvents>();
  const seenKeys = full ? new Set<string>() : undefined;
  const rejections: { location: string; reason: string }[] = [];
  let rejected = 0;
  let events = 0;
  let start = Infinity;
  let end = -Infinity;
  let run: string | undefined;
  const reopened = new Set<string>();

  const reject = (location: string, reason: string) => {
    rejected += 1;
    if (rejections.length < REJECTIONS_SHOWN) rejections.push({ location, reason });
  };
  const actId = (name: string) => {
    let id = activities.get(name);
    if (id === undefined) activities.set(name, (id = activities.size));
    return id;
  };
  const variantOf = (c: CaseEvents): number => {
    const n = c.times.length;
    const order = Array.from({ length: n }, (_, i) => i);
    const { times, keys } = c;
    order.sort((a, b) => times[a]! - times[b]! || (keys ? (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0) : a - b));
    const key = order.map((i) => c.acts[i]).join(',');
    let id = variantIds.get(key);
    if (id === undefined) {
      variantIds.set(key, (id = variantCounts.length));
      variantCounts.push(0);
    }
    return id;
  };
  // Consecutive events mostly share their case: skip the map lookup then.
  let lastCase: string | undefined;
  let lastEvents: CaseEvents | undefined;
  const close = (caseId: string) => {
    const c = open.get(caseId)!;
    lastCase = undefined;
    open.delete(caseId);
    if (caseVariant.has(caseId)) {
      reopened.add(caseId);
      return;
    }
    const v = variantOf(c);
    variantCounts[v]! += 1;
    caseVariant.set(caseId, v);
  };
  const add = (caseId: string, time: number, activity: string, key: string | undefined) => {
    if (streaming && run !== caseId) {
      if (run !== undefined) close(run);
      run = caseId;
    }
    let c = caseId === lastCase ? lastEvents : open.get(caseId);
    if (!c) open.set(caseId, (c = { times: [], acts: [], keys: full ? [] : undefined }));
    lastCase = caseId;
    lastEvents = c;
    c.times.push(time);
    c.acts.push(actId(activity));
    if (key !== undefined) c.keys!.push(key);
    events += 1;
    if (time < start) start = time;
    if (time > end) end = time;
  };

  const consume = (batch: Batch, only?: Set<string>) => {
    if (!only) for (const r of batch.rejected ?? []) reject(r.location, r.reason);
    const { records, locations } = batch;
    for (let i = 0; i < records.length; i++) {
      const record = records[i] as Record<string, unknown>;
      if (only) {
        if (only.has(record.caseId as string)) add(record.caseId as string, record.timestamp as number, record.activity as string, undefined);
        continue;
      }
      if (full) {
        const checked = checkEvent!(record);
        if (!checked.ok) {
          reject(locations?.[i] ?? `record ${i + 1}`, checked.reason);
          continue;
        }
        const e = checked.event;
        if (seenKeys!.has(e.key)) continue;
        seenKeys!.add(e.key);
        add(e.caseId, e.time, e.activity, e.key);
        continue;
      }
      const reason = lightCheck(record);
      if (reason) {
        reject(locations?.[i] ?? `record ${i + 1}`, reason);
        continue;
      }
      add(record.caseId as string, Math.floor(record.timestamp as number), record.activity as string, undefined);
    }
  };

  for await (const batch of source.batches()) consume(batch);
  if (run !== undefined) close(run);
  run = undefined;
  for (const caseId of [...open.keys()]) close(caseId);

  if (reopened.size) {
    // Traces sharing a case id: count those cases again from all their events.
    const again = await reopen();
    streaming = false;
    const saved = events;
    const [s, e] = [start, end];
    for await (const batch of again.batches()) consume(batch, reopened);
    events = saved;
    [start, end] = [s, e];
    for (const caseId of reopened) {
      variantCounts[caseVariant.get(caseId)!]! -= 1;
      const v = variantOf(open.get(caseId)!);
      variantCounts[v]! += 1;
      open.delete(caseId);
    }
  }

  const extra = source.extra();
  // Every event at NO_CLOCK_TIME: the reader found no time in the log (a CSV without a timestamp column), only order.
  const noClock = events > 0 && start === NO_CLOCK_TIME && end === NO_CLOCK_TIME;
  const summary: InspectSummary = {
    format: source.format,
    case_notion: source.caseNotion,
    cases: caseVariant.size,
    events,
    activities: activities.size,
    variants: variantCounts.filter((n) => n > 0).length,
    period_start: events && !noClock ? new Date(start).toISOString() : null,
    period_end: events && !noClock ? new Date(end).toISOString() : null,
    rejected,
    rejections,
    ...(noClock ? { times: 'none: the log records no time, only the order of the events of a case (file order); no waits or durations can be read' } : {}),
  };
  for (const [k, v] of Object.entries(extra)) if (!(k in summary)) summary[k] = v;
  if (typeof extra.ocel_events === 'number') {
    // For OCEL, `events` counts the log's distinct events; the flattened count is kept beside it.
    summary.flattened_events = events;
    summary.events = extra.ocel_events;
  }
  return summary;
}

/**
 * What the engine's check would say of a record built by the XES or CSV reader
 * (string ids and names, epoch-millisecond times, finite numbers): the same
 * verdict at a fraction of the cost. Tests hold it to checkEvent.
 */
export function lightCheck(record: Record<string, unknown>): string | undefined {
  const { caseId, activity, timestamp } = record;
  if (typeof caseId !== 'string' || !caseId.trim()) return 'caseId: must not be empty';
  if (typeof activity !== 'string' || !activity.trim()) return 'activity: must not be empty';
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || Math.floor(timestamp) < MIN_TIME || Math.floor(timestamp) > MAX_TIME) {
    return 'timestamp: expected an ISO 8601 time or epoch milliseconds';
  }
  return undefined;
}
