import { EngineError, isoUtc, parseIsoMillis, type AttributeValue, type WireEvent } from '../../engine/index.js';
import type { Writable } from 'node:stream';
import type { AttributeType } from './model.js';
import { Sink } from './sink.js';

export type LogFormat = 'csv' | 'ndjson' | 'xes';
export const logFormats: readonly LogFormat[] = ['csv', 'ndjson', 'xes'];

export interface WriteOptions {
  /** CSV attribute columns, in order (default: those seen in the first 10 000 events). */
  attributes?: string[];
  /** XES element per attribute (default: int for whole numbers, float for others, by the value). */
  attributeTypes?: Record<string, AttributeType>;
  /**
   * XES: true when the event is the last its case will emit, so the trace is
   * written and forgotten (Simulation#isLastOfCase). Without it every trace is
   * held until the input ends.
   */
  isLastOfCase?: (event: WireEvent) => boolean;
}

export interface WriteResult {
  events: number;
}

const CSV_HEAD = ['case:concept:name', 'concept:name', 'time:timestamp', 'org:resource', 'event_id'];
const DISCOVER = 10_000;

/** Streams events to a file path or a stream as CSV, NDJSON (one wire event per line) or IEEE XES. */
export async function writeLog(events: Iterable<WireEvent>, format: LogFormat, out: Writable | string, options: WriteOptions = {}): Promise<WriteResult> {
  if (!logFormats.includes(format)) throw new EngineError('invalid_argument', `unknown log format '${String(format)}' (csv, ndjson or xes)`);
  const sink = new Sink(out);
  let count = 0;
  if (format === 'ndjson') {
    for (const e of events) {
      count++;
      await sink.write(`${JSON.stringify(e)}\n`);
    }
  } else if (format === 'csv') {
    count = await writeCsv(events, sink, options.attributes);
  } else {
    count = await writeXes(events, sink, options);
  }
  await sink.close();
  return { events: count };
}

/** ISO UTC text of a wire timestamp (already ISO UTC text passes untouched). */
function isoOf(timestamp: string | number): string {
  if (typeof timestamp === 'number') return isoUtc(timestamp);
  if (timestamp.length === 24 && timestamp.endsWith('Z')) return timestamp;
  const ms = parseIsoMillis(timestamp);
  return Number.isFinite(ms) ? isoUtc(ms) : timestamp;
}

function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

async function writeCsv(events: Iterable<WireEvent>, sink: Sink, given: string[] | undefined): Promise<number> {
  const iterator = events[Symbol.iterator]();
  const head: WireEvent[] = [];
  let columns = given;
  if (!columns) {
    const seen = new Set<string>();
    while (head.length < DISCOVER) {
      const r = iterator.next();
      if (r.done) break;
      head.push(r.value);
      for (const k of Object.keys(r.value.attributes ?? {})) seen.add(k);
    }
    columns = [...seen];
  }
  const known = new Set(columns);
  await sink.write(`${[...CSV_HEAD, ...columns].map(csvField).join(',')}\n`);
  let count = 0;
  const row = async (e: WireEvent): Promise<void> => {
    count++;
    const attributes = e.attributes ?? {};
    for (const k of Object.keys(attributes)) {
      if (!known.has(k)) throw new EngineError('invalid_argument', `event ${e.eventId ?? count} has attribute '${k}' that is not a CSV column`);
    }
    const cells = [e.caseId, e.activity, isoOf(e.timestamp), e.resource ?? '', e.eventId ?? ''];
    for (const c of columns) {
      const v = attributes[c];
      cells.push(v === undefined ? '' : String(v));
    }
    await sink.write(`${cells.map(csvField).join(',')}\n`);
  };
  for (const e of head) await row(e);
  for (let r = iterator.next(); !r.done; r = iterator.next()) await row(r.value);
  return count;
}

/** XML 1.0 forbids most control characters even escaped; they are dropped. */
const needsXmlEscape = /[\u0000-\u001f&<>"'\ufffe\uffff]/;
function xml(text: string): string {
  if (!needsXmlEscape.test(text)) return text;
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/[&<>"'\t\n\r]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function xesAttribute(key: string, value: AttributeValue, type: AttributeType | undefined): string {
  if (typeof value === 'boolean') return `<boolean key="${xml(key)}" value="${value}"/>`;
  if (typeof value === 'number') {
    const tag = type === 'float' || (type === undefined && !Number.isInteger(value)) ? 'float' : type === 'string' ? 'string' : 'int';
    return `<${tag} key="${xml(key)}" value="${tag === 'int' ? Math.round(value) : value}"/>`;
  }
  return `<string key="${xml(key)}" value="${xml(value)}"/>`;
}

const XES_HEAD = `<?xml version="1.0" encoding="UTF-8"?>
<log xes.version="1849-2016" xes.features="" xmlns="http://www.xes-standard.org/">
  <extension name="Concept" prefix="concept" uri="http://www.xes-standard.org/concept.xesext"/>
  <extension name="Time" prefix="time" uri="http://www.xes-standard.org/time.xesext"/>
  <extension name="Organizational" prefix="org" uri="http://www.xes-standard.org/org.xesext"/>
  <global scope="trace">
    <string key="concept:name" value="__INVALID__"/>
  </global>
  <global scope="event">
    <string key="concept:name" value="__INVALID__"/>
    <date key="time:timestamp" value="1970-01-01T00:00:00.000Z"/>
  </global>
  <classifier name="Activity" keys="concept:name"/>
`;

function xesTrace(caseId: string, events: WireEvent[], types: Record<string, AttributeType>): string {
  const timed = events.map((e, i) => ({ e, iso: isoOf(e.timestamp), i }));
  // XES lists a trace's events in time order; a late arrival takes its place.
  timed.sort((a, b) => (a.iso < b.iso ? -1 : a.iso > b.iso ? 1 : a.i - b.i));
  const lines = [`  <trace>\n    <string key="concept:name" value="${xml(caseId)}"/>\n`];
  for (const { e, iso } of timed) {
    let s = `    <event>\n      <string key="concept:name" value="${xml(e.activity)}"/>\n      <date key="time:timestamp" value="${iso}"/>\n`;
    if (e.resource !== undefined) s += `      <string key="org:resource" value="${xml(e.resource)}"/>\n`;
    if (e.eventId !== undefined) s += `      <string key="event_id" value="${xml(e.eventId)}"/>\n`;
    for (const [k, v] of Object.entries(e.attributes ?? {})) s += `      ${xesAttribute(k, v, types[k])}\n`;
    lines.push(`${s}    </event>\n`);
  }
  lines.push('  </trace>\n');
  return lines.join('');
}

async function writeXes(events: Iterable<WireEvent>, sink: Sink, options: WriteOptions): Promise<number> {
  const types = options.attributeTypes ?? {};
  const open = new Map<string, WireEvent[]>();
  let count = 0;
  await sink.write(XES_HEAD);
  for (const e of events) {
    count++;
    let trace = open.get(e.caseId);
    if (!trace) open.set(e.caseId, (trace = []));
    trace.push(e);
    if (options.isLastOfCase?.(e)) {
      open.delete(e.caseId);
      await sink.write(xesTrace(e.caseId, trace, types));
    }
  }
  for (const [caseId, trace] of open) await sink.write(xesTrace(caseId, trace, types));
  await sink.write('</log>\n');
  return count;
}
