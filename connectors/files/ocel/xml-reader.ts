import { OcelError } from './errors.js';
import { assertSurvivable, attributeValue, emptyLog, type OcelLog } from './model.js';
import { childNamed, childrenNamed, parseXml, type XmlElement } from './xml.js';

/** OCEL 2.0 XML: <log> with <object-types>, <event-types>, <objects>, <events>. */
export function readOcel2Xml(text: string): OcelLog {
  const { root, log, done } = parse(text);
  const declared = new Map<string, string>();
  for (const t of childrenNamed(childNamed(root, 'event-types'), 'event-type')) {
    for (const a of childrenNamed(childNamed(t, 'attributes'), 'attribute')) declared.set(`${t.attrs.name}\u0000${a.attrs.name}`, a.attrs.type ?? 'string');
  }
  for (const o of childrenNamed(childNamed(root, 'objects'), 'object')) {
    const id = o.attrs.id;
    const type = o.attrs.type;
    if (!id || !type) {
      log.problems.push({ location: `line ${o.line}`, reason: 'object without id or type' });
      continue;
    }
    log.objects.set(id, type);
    for (const r of childrenNamed(childNamed(o, 'objects'), 'relationship')) {
      if (r.attrs['object-id']) log.objectObjects.push({ from: id, to: r.attrs['object-id'], qualifier: r.attrs.qualifier });
    }
  }
  for (const e of childrenNamed(childNamed(root, 'events'), 'event')) {
    if (!e.closed) continue; // cut off by a fault: reported once, below
    const { id, type, time } = e.attrs;
    if (!id || !type) {
      log.problems.push({ location: `line ${e.line}`, reason: 'event without id or type' });
      continue;
    }
    const attributes: OcelLog['events'][number]['attributes'] = {};
    for (const a of childrenNamed(childNamed(e, 'attributes'), 'attribute')) {
      const name = a.attrs.name;
      const value = name ? attributeValue(a.text, declared.get(`${type}\u0000${name}`)) : undefined;
      if (name && value !== undefined) attributes[name] = value;
    }
    log.events.push({ id, type, time: time ?? '', attributes });
    for (const r of childrenNamed(childNamed(e, 'objects'), 'relationship')) {
      if (r.attrs['object-id']) log.eventObjects.push({ from: id, to: r.attrs['object-id'], qualifier: r.attrs.qualifier });
    }
  }
  return done(log);
}

/** OCEL 1.0 XML: <log> of <global>, <events> and <objects>, values as typed key/value elements. */
export function readOcel1Xml(text: string): OcelLog {
  const { root, log, done } = parse(text);
  for (const o of childrenNamed(childNamed(root, 'objects'), 'object')) {
    const fields = keyed(o);
    const id = fields.get('id')?.attrs.value;
    const type = fields.get('type')?.attrs.value;
    if (id && type) log.objects.set(id, type);
    else log.problems.push({ location: `line ${o.line}`, reason: 'object without id or type' });
  }
  for (const e of childrenNamed(childNamed(root, 'events'), 'event')) {
    if (!e.closed) continue;
    const fields = keyed(e);
    const id = fields.get('id')?.attrs.value;
    const type = fields.get('activity')?.attrs.value;
    if (!id || !type) {
      log.problems.push({ location: `line ${e.line}`, reason: 'event without id or activity' });
      continue;
    }
    const attributes: OcelLog['events'][number]['attributes'] = {};
    for (const a of fields.get('vmap')?.children ?? []) {
      const name = a.attrs.key;
      const value = name ? attributeValue(a.attrs.value, xesType(a.name)) : undefined;
      if (name && value !== undefined) attributes[name] = value;
    }
    log.events.push({ id, type, time: fields.get('timestamp')?.attrs.value ?? '', attributes });
    for (const r of fields.get('omap')?.children ?? []) {
      if (r.attrs.value) log.eventObjects.push({ from: id, to: r.attrs.value, qualifier: undefined });
    }
  }
  return done(log);
}

function parse(text: string): { root: XmlElement; log: OcelLog; done: (log: OcelLog) => OcelLog } {
  const doc = parseXml(text);
  if (!doc.root) throw new OcelError('ocel_malformed', `XML: ${doc.fault?.reason ?? 'no root element'} (line ${doc.fault?.line ?? 1})`);
  if (doc.root.name !== 'log') throw new OcelError('ocel_not_ocel', `XML: the root element is <${doc.root.name}>, not <log>`);
  const log = emptyLog();
  const fault = doc.fault;
  if (fault) log.problems.push((log.fault = { location: `line ${fault.line}`, reason: `XML: ${fault.reason}; what came before is kept` }));
  const done = (l: OcelLog) => {
    if (fault) assertSurvivable(l, `XML: ${fault.reason} (line ${fault.line})`);
    return l;
  };
  return { root: doc.root, log, done };
}

/** OCEL 1.0 keys appear with and without the `ocel:` prefix. */
function keyed(el: XmlElement): Map<string, XmlElement> {
  const m = new Map<string, XmlElement>();
  for (const c of el.children) if (c.attrs.key) m.set(c.attrs.key.replace(/^ocel:/, ''), c);
  return m;
}

function xesType(tag: string): string {
  return tag === 'int' ? 'integer' : tag === 'float' ? 'float' : tag === 'boolean' ? 'boolean' : 'string';
}
