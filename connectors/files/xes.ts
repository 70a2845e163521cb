import type { AttributeValue, Batch } from '../../engine/index.js';
import { Batcher, ordinalId } from './batcher.js';
import { FileImportError } from './errors.js';
import type { Input } from './input.js';
import { parseTimestamp, type ZoneReader } from './timestamp.js';
import { XmlError, XmlTokenizer, type XmlHandler } from './xml-tokenizer.js';

/**
 * XES (IEEE 1849) as a stream of engine batches. A trace's events are held
 * until `</trace>` (its name may follow its events), so memory is one trace.
 *
 * Mapping, as pm4py reads XES: case id = the trace's concept:name (`trace N`
 * when absent), activity = the event's concept:name, time = time:timestamp,
 * resource = org:resource. Other event attributes are kept as they are, trace
 * attributes with a `case:` prefix. Dates become ISO text; lists, containers
 * and nested meta-attributes are skipped (they have no scalar value).
 * Global defaults are not filled into events (pm4py does not either; a default
 * `time:timestamp` of 1970 would invent data), except for classifier keys.
 */
export interface XesOptions {
  lifecycle: 'all' | 'complete' | 'label';
  classifier: string | undefined;
  batchSize: number;
  idPrefix: string;
  zone: ZoneReader;
  /** Leave out attributes nothing but the store needs (for inspect). */
  lean?: boolean;
}

export interface XesFacts {
  classifiers: Record<string, string[]>;
  /** Events left out by `lifecycle: complete`. */
  filtered: number;
  /** Where the XML broke or stopped early (a cut-off .gz, a file that ends inside an element). */
  damage?: { location: string; reason: string };
}

const ATTRIBUTE_TAGS = new Set(['string', 'date', 'int', 'float', 'boolean', 'id', 'list', 'container']);

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

export async function* xesBatches(input: Input, options: XesOptions, facts: XesFacts): AsyncGenerator<Batch> {
  const batcher = new Batcher(options.batchSize);
  const stack: Ctx[] = ['root'];
  const globals: Record<'trace' | 'event', Record<string, AttributeValue>> = { trace: {}, event: {} };
  let globalScope: 'trace' | 'event' | undefined;
  let classifierKeys: string[] | undefined;
  let headerDone = false;
  let traceNo = 0;
  let eventOrdinal = 0;
  let traceAttrs: Record<string, AttributeValue> = {};
  let events: EventDraft[] = [];
  let event: EventDraft | undefined;
  let inTrace = false;

  const finishHeader = () => {
    if (headerDone) return;
    headerDone = true;
    if (options.classifier !== undefined) {
      classifierKeys = facts.classifiers[options.classifier];
      if (!classifierKeys) {
        const declared = Object.keys(facts.classifiers);
        throw new FileImportError(
          'unknown_classifier',
          `classifier '${options.classifier}' is not declared in ${input.path}; declared: ${declared.length ? declared.map((n) => `'${n}'`).join(', ') : 'none'}`,
        );
      }
    }
  };

  const activityOf = (e: EventDraft): string | undefined => {
    if (classifierKeys) {
      const parts: string[] = [];
      for (const key of classifierKeys) {
        const v = key === 'concept:name' ? e.name : key === 'org:resource' ? e.resource : e.attrs[key];
        const value = v ?? globals.event[key];
        if (value !== undefined) parts.push(String(value));
      }
      return parts.length ? parts.join('+') : undefined;
    }
    const name = e.name;
    if (name === undefined) return undefined;
    const transition = e.attrs['lifecycle:transition'];
    return options.lifecycle === 'label' && transition !== undefined ? `${name}+${transition}` : name;
  };

  const finishTrace = () => {
    traceNo += 1;
    const name = traceAttrs['concept:name'];
    const caseId = name !== undefined && String(name).trim() ? String(name) : `trace ${traceNo}`;
    let caseAttributes: Record<string, AttributeValue> | undefined;
    for (const key in traceAttrs) {
      if (key === 'concept:name') continue;
      (caseAttributes ??= {})[`case:${key}`] = traceAttrs[key]!;
    }
    for (let k = 0; k < events.length; k++) {
      const e = events[k]!;
      const attrs = e.attrs;
      const transition = attrs['lifecycle:transition'];
      if (options.lifecycle === 'complete' && transition !== undefined && String(transition).toLowerCase() !== 'complete') {
        facts.filtered += 1;
        continue;
      }
      const activity = activityOf(e);
      if (activity === undefined || !activity.trim()) {
        const reason = classifierKeys ? `event has none of the classifier keys ${classifierKeys.join(', ')}` : e.name === undefined ? 'event has no concept:name' : 'event has an empty concept:name';
        batcher.reject(eventLocation(traceNo, k), reason, draftJson(caseId, e));
        continue;
      }
      if (Number.isNaN(e.time)) {
        const reason = e.timeText === undefined ? 'event has no time:timestamp' : `cannot read time:timestamp '${e.timeText}'`;
        batcher.reject(eventLocation(traceNo, k), reason, draftJson(caseId, e));
        continue;
      }
      // Lean (inspect) records keep file order by arrival and need no id.
      const record: Record<string, unknown> = options.lean ? { caseId, activity, timestamp: e.time } : { caseId, activity, timestamp: e.time, eventId: ordinalId(options.idPrefix, e.ordinal) };
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
    traceAttrs = {};
    events = [];
  };

  const handler: XmlHandler = {
    open(name, attrs) {
      const ctx = stack[stack.length - 1]!;
      let next: Ctx = 'skip';
      if (ctx === 'root') {
        if (name !== 'log' && !name.endsWith(':log')) throw new FileImportError('unknown_format', `${input.path} is XML but not XES: the root element is <${name}>, not <log>`);
        next = 'log';
      } else if (ctx === 'log') {
        if (name === 'trace') {
          finishHeader();
          inTrace = true;
          next = 'trace';
        } else if (name === 'global') {
          const scope = attrOf(attrs, 'scope');
          globalScope = scope === 'trace' ? 'trace' : 'event';
          next = 'global';
        } else if (name === 'classifier') {
          const cname = attrOf(attrs, 'name');
          const keys = attrOf(attrs, 'keys');
          if (cname !== undefined && keys !== undefined) facts.classifiers[cname] = splitKeys(keys);
        }
      } else if (ctx === 'trace') {
        if (name === 'event') {
          eventOrdinal += 1;
          event = { ordinal: eventOrdinal, attrs: {}, name: undefined, resource: undefined, timeText: undefined, time: Number.NaN };
          next = 'event';
        } else setAttribute(traceAttrs, name, attrs, undefined);
      } else if (ctx === 'event') {
        setAttribute(event!.attrs, name, attrs, event);
      } else if (ctx === 'global') {
        setAttribute(globals[globalScope ?? 'event'], name, attrs, undefined);
      }
      // The tokenizer calls close() for self-closing tags too, so every open pushes.
      stack.push(next);
    },
    close() {
      const ctx = stack.pop();
      if (ctx === 'event' && event) {
        events.push(event);
        event = undefined;
      } else if (ctx === 'trace') {
        inTrace = false;
        finishTrace();
      } else if (ctx === 'log') finishHeader();
    },
  };

  const setAttribute = (into: Record<string, AttributeValue>, tag: string, attrs: string[], draft: EventDraft | undefined) => {
    if (!ATTRIBUTE_TAGS.has(tag)) return;
    let key: string | undefined;
    let raw: string | undefined;
    for (let i = 0; i < attrs.length; i += 2) {
      const name = attrs[i];
      if (name === 'key') key = attrs[i + 1];
      else if (name === 'value') raw = attrs[i + 1];
    }
    if (key === undefined || raw === undefined) return;
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
    if (options.lean && (draft || into === traceAttrs) && key !== 'concept:name' && key !== 'lifecycle:transition' && !classifierKeys?.includes(key)) return;
    const value = typedValue(tag, raw, options.zone);
    if (value !== undefined) into[key] = value;
  };

  const tokenizer = new XmlTokenizer(handler);
  const encoding = /encoding\s*=\s*["']\s*(iso-8859-1|latin-?1)/i.test(input.head.subarray(0, 200).toString('latin1')) ? 'latin1' : 'utf8';
  const failAt = (reason: string) => {
    // Keep every complete event before the failure (the unfinished one is the payload), then say where reading stopped.
    const where = inTrace ? ` (trace ${traceNo + 1}${event ? ` event ${events.length + 1}` : ''})` : '';
    event = undefined;
    const payload = tokenizer.pending();
    if (inTrace) finishTrace();
    facts.damage = { location: `line ${tokenizer.line()}${where}`, reason };
    batcher.reject(facts.damage.location, reason, payload);
  };
  try {
    for await (const chunk of input.chunks()) {
      tokenizer.writeBytes(chunk, encoding);
      yield* batcher.take();
    }
    if (input.truncated) throw new XmlError('the compressed file ends early (truncated .gz)', tokenizer.line());
    tokenizer.endBytes(encoding);
  } catch (error) {
    if (!(error instanceof XmlError)) throw error;
    const message = error.message.replace(/^line \d+: /, '');
    failAt(/ends inside|truncated/.test(message) ? `truncated XML: ${message}` : `malformed XML: ${message}`);
  }
  yield* batcher.flush();
}

function eventLocation(traceNo: number, k: number): string {
  return `trace ${traceNo} event ${k + 1}`;
}

function draftJson(caseId: string, e: EventDraft): string {
  return JSON.stringify({ caseId, 'concept:name': e.name, 'org:resource': e.resource, 'time:timestamp': e.timeText, ...e.attrs });
}

function attrOf(attrs: string[], name: string): string | undefined {
  for (let i = 0; i < attrs.length; i += 2) if (attrs[i] === name) return attrs[i + 1];
  return undefined;
}

/** Classifier keys are space-separated; a key with spaces is quoted with single quotes. */
function splitKeys(keys: string): string[] {
  return [...keys.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

const intPattern = /^[+-]?\d+$/;

function typedValue(tag: string, raw: string, zone: ZoneReader): AttributeValue | undefined {
  switch (tag) {
    case 'string':
    case 'id':
      return raw;
    case 'date': {
      const t = parseTimestamp(raw, zone);
      return Number.isNaN(t) ? raw : new Date(t).toISOString();
    }
    case 'int': {
      const n = Number(raw);
      return intPattern.test(raw.trim()) && Number.isSafeInteger(n) ? n : raw;
    }
    case 'float': {
      const n = Number(raw);
      return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
    }
    case 'boolean': {
      const b = raw.trim().toLowerCase();
      return b === 'true' ? true : b === 'false' ? false : raw;
    }
    default:
      return undefined; // list, container: no scalar value
  }
}
