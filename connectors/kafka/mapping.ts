import { isUtf8 } from 'node:buffer';
import type { Remapped } from '../../engine/index.js';
import type { Mapping, SourceInput } from './definition.js';

/** Turns one message's value into a wire event, or says why it cannot: the reason becomes a dead letter. Never throws. */
export type MessageMapper = (value: Buffer | null) => Remapped;

type Getter = (message: unknown) => unknown;

const WIRE_FIELDS = ['caseId', 'activity', 'timestamp', 'eventId', 'resource', 'attributes', 'objects'] as const;
type WireField = (typeof WIRE_FIELDS)[number];

/** Where each wire field is read in a preset, before the source's own mapping overrides it. */
const PRESETS: Record<SourceInput['format'], Partial<Record<WireField, string | string[]>>> = {
  // The message is the wire event itself (mapped only where the source says so).
  pcg: {},
  // A structured-mode CloudEvent: `data` holds the wire event's fields; its `id` and `time` stand in for a missing event id and timestamp.
  cloudevents: {
    caseId: '/data/caseId',
    activity: '/data/activity',
    timestamp: ['/data/timestamp', '/time'],
    eventId: ['/data/eventId', '/id'],
    resource: '/data/resource',
    attributes: '/data/attributes',
    objects: '/data/objects',
  },
  json: {},
};

/** RFC 6901: `/a/b~1c` reads a["b/c"]; array indexes are decimal. */
function pointer(path: string): Getter {
  const parts = path
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return (message) => {
    let at: unknown = message;
    for (const p of parts) {
      if (at === null || typeof at !== 'object') return undefined;
      at = (at as Record<string, unknown>)[p];
    }
    return at;
  };
}

function getter(spec: string, base: string): Getter {
  if (spec.startsWith('/')) return pointer(spec);
  const name = spec;
  if (base === '') return (m) => (m !== null && typeof m === 'object' ? (m as Record<string, unknown>)[name] : undefined);
  return pointer(`${base}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`);
}

/** The last segment of a field: what an attribute listed by field is called. */
const lastSegment = (spec: string): string => (spec.startsWith('/') ? spec.slice(spec.lastIndexOf('/') + 1).replace(/~1/g, '/').replace(/~0/g, '~') : spec);

/** Ids and names may arrive as numbers (an order number): they become text, as in CSV imports. */
const asText = (v: unknown): unknown => (typeof v === 'number' && Number.isFinite(v) ? String(v) : v);

/**
 * The mapper of a source. The pcg preset without a mapping takes the parsed
 * message as it is (the store validates it); otherwise each wire field is read
 * where the mapping (or the preset) says, plain names being read from the
 * preset's base (`data` for CloudEvents).
 */
export function compileMapping(format: SourceInput['format'], mapping: Mapping = {}): MessageMapper {
  const base = format === 'cloudevents' ? '/data' : '';
  const identity = format === 'pcg' && Object.keys(mapping).length === 0;
  const fields: [WireField, Getter[]][] = [];
  let attributeList: [string, Getter][] | undefined;
  if (!identity) {
    for (const f of WIRE_FIELDS) {
      const own = mapping[f];
      if (f === 'attributes' && Array.isArray(own)) {
        attributeList = own.map((spec) => [lastSegment(spec), getter(spec, base)]);
        continue;
      }
      const specs = own !== undefined ? [own as string] : [PRESETS[format][f] ?? (format === 'json' ? [] : f)].flat();
      if (specs.length) fields.push([f, specs.map((s) => getter(s, base))]);
    }
  }
  return (value) => {
    if (value === null) return { reason: 'tombstone: the message has no value' };
    if (!isUtf8(value)) return { reason: 'not UTF-8 text' };
    let message: unknown;
    try {
      message = JSON.parse(value.toString());
    } catch (error) {
      return { reason: `not JSON: ${(error as Error).message}` };
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) return { reason: 'not a JSON object' };
    if (identity) return { record: message };
    const record: Record<string, unknown> = {};
    for (const [f, getters] of fields) {
      let v: unknown;
      for (const g of getters) if ((v = g(message)) !== undefined && v !== null) break;
      if (v === undefined || v === null) continue;
      record[f] = f === 'caseId' || f === 'activity' || f === 'eventId' || f === 'resource' ? asText(v) : v;
    }
    if (attributeList) {
      const attributes: Record<string, unknown> = {};
      for (const [name, g] of attributeList) {
        const v = g(message);
        if (v !== undefined && v !== null) attributes[name] = v;
      }
      if (Object.keys(attributes).length) record.attributes = attributes;
    }
    for (const f of ['caseId', 'activity', 'timestamp'] as const) {
      if (record[f] === undefined) return { reason: `${f}: not found in the message (${describe(format, mapping[f], f)})` };
    }
    return { record };
  };
}

function describe(format: SourceInput['format'], spec: string | undefined, f: WireField): string {
  if (spec) return `mapped from ${spec}`;
  const preset = PRESETS[format][f];
  return `preset ${format}: ${[preset ?? f].flat().join(' or ')}`;
}
