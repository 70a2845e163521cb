import { z } from 'zod';
import { OcelError } from './errors.js';
import { parseLooseJson, type LooseJson } from './json.js';
import { assertSurvivable, attributeValue, emptyLog, type OcelLog } from './model.js';

const relationship = z.object({ objectId: z.union([z.string(), z.number()]).transform(String), qualifier: z.string().nullish() });
const typeDecl = z.object({ name: z.string(), attributes: z.array(z.object({ name: z.string(), type: z.string().optional() })).nullish() });
const ocel2Event = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  type: z.string().min(1),
  time: z.union([z.string(), z.number()]),
  attributes: z.array(z.object({ name: z.string(), value: z.unknown() })).nullish(),
  relationships: z.array(relationship).nullish(),
});
const ocel2Object = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  type: z.string().min(1),
  relationships: z.array(relationship).nullish(),
});
const ocel2 = z.object({
  objectTypes: z.array(typeDecl).nullish(),
  eventTypes: z.array(typeDecl).nullish(),
  objects: z.array(z.unknown()).nullish(),
  events: z.array(z.unknown()).nullish(),
});

const ocel1Event = z.object({
  'ocel:activity': z.string().min(1),
  'ocel:timestamp': z.union([z.string(), z.number()]),
  'ocel:omap': z.array(z.union([z.string(), z.number()]).transform(String)).nullish(),
  'ocel:vmap': z.record(z.string(), z.unknown()).nullish(),
});
const ocel1Object = z.object({ 'ocel:type': z.string().min(1) });
const ocel1 = z.object({ 'ocel:events': z.record(z.string(), z.unknown()), 'ocel:objects': z.record(z.string(), z.unknown()).nullish() });

/** OCEL 2.0 JSON: objectTypes, eventTypes, objects, events. */
export function readOcel2Json(text: string): OcelLog {
  const json = parseLooseJson(text);
  const top = ocel2.safeParse(json.value);
  if (!top.success) throw notOcel('OCEL 2.0', json, top.error);
  const log = logOf(json);
  const declared = new Map<string, string>();
  for (const t of top.data.eventTypes ?? []) for (const a of t.attributes ?? []) declared.set(`${t.name}\u0000${a.name}`, a.type ?? 'string');

  (top.data.objects ?? []).forEach((raw, i) => {
    const o = ocel2Object.safeParse(raw);
    if (!o.success) return void log.problems.push({ location: `object ${i + 1}`, reason: issues(o.error) });
    log.objects.set(o.data.id, o.data.type);
    for (const r of o.data.relationships ?? []) log.objectObjects.push({ from: o.data.id, to: r.objectId, qualifier: r.qualifier ?? undefined });
  });
  (top.data.events ?? []).forEach((raw, i) => {
    if (isIncomplete(json, raw)) return; // cut off by the fault, reported once
    const e = ocel2Event.safeParse(raw);
    if (!e.success) return void log.problems.push({ location: `event ${idOf(raw) ?? `#${i + 1}`}`, reason: issues(e.error) });
    const attributes: OcelLog['events'][number]['attributes'] = {};
    for (const a of e.data.attributes ?? []) {
      const v = attributeValue(a.value, declared.get(`${e.data.type}\u0000${a.name}`));
      if (v !== undefined) attributes[a.name] = v;
    }
    log.events.push({ id: e.data.id, type: e.data.type, time: e.data.time, attributes });
    for (const r of e.data.relationships ?? []) log.eventObjects.push({ from: e.data.id, to: r.objectId, qualifier: r.qualifier ?? undefined });
  });
  return kept(json, log);
}

/** OCEL 1.0 JSON: ocel:global-log, ocel:events keyed by id, ocel:objects keyed by id. */
export function readOcel1Json(text: string): OcelLog {
  const json = parseLooseJson(text);
  const top = ocel1.safeParse(json.value);
  if (!top.success) throw notOcel('OCEL 1.0', json, top.error);
  const log = logOf(json);
  for (const [id, raw] of Object.entries(top.data['ocel:objects'] ?? {})) {
    const o = ocel1Object.safeParse(raw);
    if (!o.success) log.problems.push({ location: `object ${id}`, reason: issues(o.error) });
    else log.objects.set(id, o.data['ocel:type']);
  }
  for (const [id, raw] of Object.entries(top.data['ocel:events'])) {
    if (isIncomplete(json, raw)) continue;
    const e = ocel1Event.safeParse(raw);
    if (!e.success) {
      log.problems.push({ location: `event ${id}`, reason: issues(e.error) });
      continue;
    }
    const attributes: OcelLog['events'][number]['attributes'] = {};
    for (const [name, value] of Object.entries(e.data['ocel:vmap'] ?? {})) {
      const v = attributeValue(value);
      if (v !== undefined) attributes[name] = v;
    }
    log.events.push({ id, type: e.data['ocel:activity'], time: e.data['ocel:timestamp'], attributes });
    for (const o of e.data['ocel:omap'] ?? []) log.eventObjects.push({ from: id, to: o, qualifier: undefined });
  }
  return kept(json, log);
}

function issues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'value'}: ${i.message}`).join('; ');
}

function idOf(raw: unknown): string | undefined {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

function logOf(json: LooseJson): OcelLog {
  const log = emptyLog();
  if (json.fault) log.problems.push((log.fault = { location: `line ${json.fault.line}`, reason: `JSON: ${json.fault.reason}; what came before is kept` }));
  return log;
}

/** A damaged file that does not even reach the OCEL keys is malformed, not "not OCEL". */
function notOcel(form: string, json: LooseJson, error: z.ZodError): OcelError {
  if (json.fault) return new OcelError('ocel_malformed', `JSON: ${json.fault.reason} (line ${json.fault.line})`);
  return new OcelError('ocel_not_ocel', `${form} JSON: ${issues(error)}`);
}

const isIncomplete = (json: LooseJson, raw: unknown): boolean => typeof raw === 'object' && raw !== null && json.incomplete.has(raw);

/** Damage is survivable only when some events and the objects came through before it. */
function kept(json: LooseJson, log: OcelLog): OcelLog {
  if (json.fault) assertSurvivable(log, `JSON: ${json.fault.reason} (line ${json.fault.line})`);
  return log;
}
