import type { AttributeValue, Batch } from '../../engine/index.js';
import { Batcher, batchSizeOf, ordinalId } from './batcher.js';
import { FileImportError } from './errors.js';
import type { Input } from './input.js';
import { DEFAULT_INPUT_LIMITS, INPUT_LIMIT_NAMES } from './limits.js';
import { parseTimestamp, zoneReader, type ZoneReader } from './timestamp.js';
import { NO_CLOCK_TIME } from '../../engine/time.js';
import type { ImportOptions } from './types.js';
import { attrOf, isAttributeTag, splitKeys, typedValue } from './xes-values.js';
import { pairTrace, transitionOf, type PairingCounts } from './lifecycle.js';
import type { LifecycleMode } from './types.js';
import { XmlError, XmlTokenizer, type XmlHandler } from './xml-tokenizer.js';

/**
 * XES (IEEE 1849) as a stream of engine batches. A trace's events are held
 * until `</trace>` (its name may follow its events), so memory is one trace.
 *
 * Mapping, as pm4py reads XES: case id = the trace's concept:name (`trace N`
 * when absent), activity = the event's concept:name, time = time:timestamp,
 * resource = org:resource (or, without one, a plain `resource` attribute). Other event attributes are kept as they are, trace
 * attributes with a `case:` prefix. Dates become ISO text; lists, containers
 * and nested meta-attributes are skipped (they have no scalar value).
 * Global defaults are not filled into events (pm4py does not either; a default
 * `time:timestamp` of 1970 would invent data), except for classifier keys.
 */
export interface XesOptions {
  lifecycle: LifecycleMode;
  classifier: string | undefined;
  batchSize: number;
  idPrefix: string;
  zone: ZoneReader;
  /** Leave out attributes nothing but the store needs (for inspect). */
  lean?: boolean;
  /** Bytes of an unfinished XML token (a tag, a run of text) the reader may hold (PCG_LINE_LIMIT_BYTES). */
  maxTokenBytes?: number;
  /** The log records order only (its first events carry no time:timestamp): events are read at NO_CLOCK_TIME. */
  untimed?: boolean;
}

/** The XES reading of checked import options; the same on every thread that reads the file (xes-part.ts). */
export function xesOptionsOf(o: ImportOptions, idPrefix: string, lean = false, maxTokenBytes = DEFAULT_INPUT_LIMITS.lineBytes): XesOptions {
  return { lifecycle: o.lifecycle ?? 'pair', classifier: o.classifier, batchSize: batchSizeOf(o.batchSize), idPrefix, zone: zoneReader(o.timezone), lean, maxTokenBytes, untimed: o.untimed === true };
}

export interface XesFacts {
  classifiers: Record<string, string[]>;
  /** Events left out by `lifecycle: complete`. */
  filtered: number;
  /** What `lifecycle: pair` made of the transitions (lifecycle.ts). */
  pairing: PairingCounts;
  /** Where the XML broke or stopped early (a cut-off .gz, a file that ends inside an element). */
  damage?: { location: string; reason: string };
  /**
   * A child of <log> other than a trace met after the first trace (a late <global> or <classifier>):
   * it changes how the traces after it read, so a log with one cannot be read in parts (xes-parts.ts).
   */
  lateHeader?: boolean;
}

export async function* xesBatches(input: Input, options: XesOptions, facts: XesFacts): AsyncGenerator<Batch> {
  const reader = new XesReader(input.path, input.head, options, facts);
  try {
    for await (const chunk of input.chunks()) {
      reader.write(chunk);
      // The tokenizer holds an unfinished token and scans it again with the next chunk: bounded, that stays linear.
      if (reader.held() > (options.maxTokenBytes ?? Infinity)) {
        throw new FileImportError(
          'content_too_large',
          `limit ${INPUT_LIMIT_NAMES.lineBytes}: an XML tag or run of text may have at most ${options.maxTokenBytes} bytes (the one at line ${reader.line()} has more)`,
        );
      }
      yield* reader.take();
    }
    if (input.truncated) throw new XmlError('the compressed file ends early (truncated .gz)', reader.line());
    reader.end();
  } catch (error) {
    if (!(error instanceof XmlError)) throw error;
    const message = error.message.replace(/^line \d+: /, '');
    reader.fail(/ends inside|truncated/.test(message) ? `truncated XML: ${message}` : `malformed XML: ${message}`);
  }
  yield* reader.flush();
}

type Ctx = 'root' | 'log' | 'global' | 'trace' | 'event' | 'skip';

interface EventDraft {
  ordinal: number;
  /** Attributes other than concept:name, org:resource and time:timestamp, which have their own fields. */
  attrs: Record<string, AttributeValue>;
  name: string | undefined;
  resource: string | undefined;
  /** The raw time:timestamp text, for the rejection when it does not parse. */
  timeText: string | undefined;
  time: number;
}

/**
 * The XES mapping as a push parser: bytes in (write), batches out (take,
 * flush). xesBatches feeds it a whole file; a log read in parts
 * (xes-parts.ts) feeds one reader the header and then only some of the
 * traces, each run of them numbered from where it stands in the file.
 */
export class XesReader {
  private readonly batcher: Batcher;
  private readonly tokenizer: XmlTokenizer;
  private readonly encoding: 'utf8' | 'latin1';
  private readonly stack: Ctx[] = ['root'];
  private readonly globals: Record<'trace' | 'event', Record<string, AttributeValue>> = { trace: {}, event: {} };
  private globalScope: 'trace' | 'event' | undefined;
  private classifierKeys: string[] | undefined;
  private headerDone = false;
  private traceNo = 0;
  private eventOrdinal = 0;
  private traceAttrs: Record<string, AttributeValue> = {};
  private events: EventDraft[] = [];
  private event: EventDraft | undefined;
  private inTrace = false;

  constructor(
    private readonly path: string,
    head: Buffer,
    private readonly options: XesOptions,
    private readonly facts: XesFacts,
  ) {
    this.batcher = new Batcher(options.batchSize);
    this.encoding = /encoding\s*=\s*["']\s*(iso-8859-1|latin-?1)/i.test(head.subarray(0, 200).toString('latin1')) ? 'latin1' : 'utf8';
    const handler: XmlHandler = { open: (name, attrs) => this.open(name, attrs), close: () => this.close() };
    this.tokenizer = new XmlTokenizer(handler);
  }

  /** The next bytes of the content. Throws an XmlError where the XML breaks (then call fail). */
  write(chunk: Buffer): void {
    this.tokenizer.writeBytes(chunk, this.encoding);
  }

  /** After the last bytes: throws an XmlError when the content is incomplete (then call fail). */
  end(): void {
    this.tokenizer.endBytes(this.encoding);
  }

  /** Where the content broke: every complete event before it is kept, the rest becomes one rejection saying where. */
  fail(reason: string): void {
    const where = this.inTrace ? ` (trace ${this.traceNo + 1}${this.event ? ` event ${this.events.length + 1}` : ''})` : '';
    this.event = undefined;
    const payload = this.tokenizer.pending();
    if (this.inTrace) this.finishTrace();
    this.facts.damage = { location: `line ${this.tokenizer.line()}${where}`, reason };
    this.batcher.reject(this.facts.damage.location, reason, payload);
  }

  line(): number {
    return this.tokenizer.line();
  }

  /** Bytes held back for the next chunk: the unfinished token. */
  held(): number {
    return this.tokenizer.held();
  }

  /** Batches completed so far. */
  take(): Batch[] {
    return this.batcher.take();
  }

  /** Everything read, the last batch possibly short. */
  flush(): Batch[] {
    return this.batcher.flush();
  }

  /** Traces and events met so far (with the numbering given to numberFrom). */
  get traces(): number {
    return this.traceNo;
  }

  get eventsMet(): number {
    return this.eventOrdinal;
  }

  /** The traces and events that come next follow these many before them in the file (a part read apart). */
  numberFrom(traces: number, events: number): void {
    this.traceNo = traces;
    this.eventOrdinal = events;
  }

  /** Inside <log>, outside any trace, with no byte held back: where the next trace may begin. */
  betweenTraces(): boolean {
    return this.stack.length === 2 && this.stack[1] === 'log' && !this.inTrace && this.tokenizer.idle();
  }

  private finishHeader(): void {
    if (this.headerDone) return;
    this.headerDone = true;
    if (this.options.classifier !== undefined) {
      this.classifierKeys = this.facts.classifiers[this.options.classifier];
      if (!this.classifierKeys) {
        const declared = Object.keys(this.facts.classifiers);
        throw new FileImportError(
          'unknown_classifier',
          `classifier '${this.options.classifier}' is not declared in ${this.path}; declared: ${declared.length ? declared.map((n) => `'${n}'`).join(', ') : 'none'}`,
        );
      }
    }
  }

  private activityOf(e: EventDraft): string | undefined {
    if (this.classifierKeys) {
      const parts: string[] = [];
      for (const key of this.classifierKeys) {
        const v = key === 'concept:name' ? e.name : key === 'org:resource' ? e.resource : e.attrs[key];
        const value = v ?? this.globals.event[key];
        if (value !== undefined) parts.push(String(value));
      }
      return parts.length ? parts.join('+') : undefined;
    }
    const name = e.name;
    if (name === undefined) return undefined;
    const transition = e.attrs['lifecycle:transition'];
    return this.options.lifecycle === 'label' && transition !== undefined ? `${name}+${transition}` : name;
  }

  private finishTrace(): void {
    const { options, batcher } = this;
    const traceNo = (this.traceNo += 1);
    const name = this.traceAttrs['concept:name'];
    const caseId = name !== undefined && String(name).trim() ? String(name) : `trace ${traceNo}`;
    let caseAttributes: Record<string, AttributeValue> | undefined;
    for (const key in this.traceAttrs) {
      if (key === 'concept:name') continue;
      (caseAttributes ??= {})[`case:${key}`] = this.traceAttrs[key]!;
    }
    const events = this.events;
    // A classifier naming the transition makes each transition an activity of its own: nothing to pair.
    const executions = options.lifecycle === 'pair' && !this.classifierKeys?.includes('lifecycle:transition') ? this.executions(events) : undefined;
    for (let k = 0; k < events.length; k++) {
      const e = events[k]!;
      const attrs = e.attrs;
      if (executions) {
        if (!executions.keep[k]) continue;
        const start = executions.startOf[k];
        if (start !== undefined && !Number.isNaN(start)) attrs.start_timestamp = new Date(start).toISOString();
      }
      const transition = attrs['lifecycle:transition'];
      if (options.lifecycle === 'complete' && transition !== undefined && String(transition).toLowerCase() !== 'complete') {
        this.facts.filtered += 1;
        continue;
      }
      const activity = this.activityOf(e);
      if (activity === undefined || !activity.trim()) {
        const reason = this.classifierKeys ? `event has none of the classifier keys ${this.classifierKeys.join(', ')}` : e.name === undefined ? 'event has no concept:name' : 'event has an empty concept:name';
        batcher.reject(eventLocation(traceNo, k), reason, draftJson(caseId, e));
        continue;
      }
      // A log of order only (its first events carry no time, as in generated logs): every event at NO_CLOCK_TIME, in
      // file order by its ordinal id; an event that does carry a time has no place in that order and is refused.
      if (options.untimed) {
        if (e.timeText !== undefined) {
          batcher.reject(eventLocation(traceNo, k), 'event has a time:timestamp in a log whose first events have none (read as order only)', draftJson(caseId, e));
          continue;
        }
        e.time = NO_CLOCK_TIME;
      }
      if (Number.isNaN(e.time)) {
        const reason = e.timeText === undefined ? 'event has no time:timestamp' : `cannot read time:timestamp '${e.timeText}'`;
        batcher.reject(eventLocation(traceNo, k), reason, draftJson(caseId, e));
        continue;
      }
      // Lean (inspect) records keep file order by arrival and need no id.
      const record: Record<string, unknown> = options.lean ? { caseId, activity, timestamp: e.time } : { caseId, activity, timestamp: e.time, eventId: ordinalId(options.idPrefix, e.ordinal) };
      // Logs written from tables often name the resource plainly ('resource'): it is the resource all the same.
      if (e.resource === undefined) {
        const plain = Object.keys(attrs).find((k) => k.toLowerCase() === 'resource' && typeof attrs[k] === 'string');
        if (plain !== undefined) {
          e.resource = attrs[plain] as string;
          delete attrs[plain];
        }
      }
      if (e.resource !== undefined) record.resource = e.resource;
      if (!options.lean) {
        const attributes = attrs;
        if (e.name !== undefined && e.name !== activity) attributes['concept:name'] = e.name;
        if (caseAttributes) for (const key in caseAttributes) attributes[key] = caseAttributes[key]!;
        for (const _ in attributes) {
          record.attributes = attributes;
          break;
        }
      }
      batcher.record(record, options.lean ? undefined : eventLocation(traceNo, k));
    }
    this.traceAttrs = {};
    this.events = [];
  }

  /** Which of a trace's events stay, and the start each kept one closes (lifecycle.ts), paired in case order. */
  private executions(events: readonly EventDraft[]): { keep: boolean[]; startOf: (number | undefined)[] } | undefined {
    if (!events.some((e) => e.attrs['lifecycle:transition'] !== undefined)) return undefined;
    const at = (e: EventDraft) => (Number.isNaN(e.time) ? Infinity : e.time);
    const order = events.map((_, i) => i).sort((a, b) => at(events[a]!) - at(events[b]!) || a - b);
    const paired = pairTrace(
      order.map((i) => ({ activity: events[i]!.name ?? '', time: events[i]!.time, transition: transitionOf(events[i]!.attrs['lifecycle:transition']) })),
      this.facts.pairing,
    );
    const keep: boolean[] = [];
    const startOf: (number | undefined)[] = [];
    order.forEach((i, j) => {
      keep[i] = paired.keep[j]!;
      startOf[i] = paired.startOf[j];
    });
    return { keep, startOf };
  }

  private open(name: string, attrs: string[]): void {
    const ctx = this.stack[this.stack.length - 1]!;
    let next: Ctx = 'skip';
    if (ctx === 'root') {
      if (name !== 'log' && !name.endsWith(':log')) throw new FileImportError('unknown_format', `${this.path} is XML but not XES: the root element is <${name}>, not <log>`);
      next = 'log';
    } else if (ctx === 'log') {
      if (name === 'trace') {
        this.finishHeader();
        this.inTrace = true;
        next = 'trace';
      } else {
        if (this.headerDone) this.facts.lateHeader = true;
        if (name === 'global') {
          const scope = attrOf(attrs, 'scope');
          this.globalScope = scope === 'trace' ? 'trace' : 'event';
          next = 'global';
        } else if (name === 'classifier') {
          const cname = attrOf(attrs, 'name');
          const keys = attrOf(attrs, 'keys');
          if (cname !== undefined && keys !== undefined) this.facts.classifiers[cname] = splitKeys(keys);
        }
      }
    } else if (ctx === 'trace') {
      if (name === 'event') {
        this.eventOrdinal += 1;
        this.event = { ordinal: this.eventOrdinal, attrs: {}, name: undefined, resource: undefined, timeText: undefined, time: Number.NaN };
        next = 'event';
      } else this.setAttribute(this.traceAttrs, name, attrs, undefined);
    } else if (ctx === 'event') {
      this.setAttribute(this.event!.attrs, name, attrs, this.event);
    } else if (ctx === 'global') {
      this.setAttribute(this.globals[this.globalScope ?? 'event'], name, attrs, undefined);
    }
    // The tokenizer calls close() for self-closing tags too, so every open pushes.
    this.stack.push(next);
  }

  private close(): void {
    const ctx = this.stack.pop();
    if (ctx === 'event' && this.event) {
      this.events.push(this.event);
      this.event = undefined;
    } else if (ctx === 'trace') {
      this.inTrace = false;
      this.finishTrace();
    } else if (ctx === 'log') this.finishHeader();
  }

  private setAttribute(into: Record<string, AttributeValue>, tag: string, attrs: string[], draft: EventDraft | undefined): void {
    if (!isAttributeTag(tag)) return;
    let key: string | undefined;
    let raw: string | undefined;
    for (let i = 0; i < attrs.length; i += 2) {
      const name = attrs[i];
      if (name === 'key') key = attrs[i + 1];
      else if (name === 'value') raw = attrs[i + 1];
    }
    if (key === undefined || raw === undefined) return;
    const { options } = this;
    if (draft) {
      if (key === 'time:timestamp') {
        draft.timeText = raw;
        draft.time = parseTimestamp(raw, options.zone);
        return;
      }
      if (key === 'concept:name') {
        draft.name = raw;
        return;
      }
      if (key === 'org:resource') {
        draft.resource = raw;
        return;
      }
    }
    if (options.lean && (draft || into === this.traceAttrs) && key !== 'concept:name' && key !== 'lifecycle:transition' && !this.classifierKeys?.includes(key)) return;
    const value = typedValue(tag, raw, options.zone);
    if (value !== undefined) into[key] = value;
  }
}

function eventLocation(traceNo: number, k: number): string {
  return `trace ${traceNo} event ${k + 1}`;
}

function draftJson(caseId: string, e: EventDraft): string {
  return JSON.stringify({ caseId, 'concept:name': e.name, 'org:resource': e.resource, 'time:timestamp': e.timeText, ...e.attrs });
}
