/**
 * How the renderers write the document's figures: shares as percentages,
 * hours rounded for reading, rule conditions as text. Pure functions, shared
 * by the Markdown, DOT, HTML and diff renderers so one figure reads the same
 * everywhere. Nothing here computes a figure the document does not hold.
 */
import type { GraphDocument, Plain } from '../document/types.js';

/** A share (0..1) as a percentage with at most one decimal: 0.2 → "20%", 0.1836 → "18.4%". */
export function pct(share: number): string {
  const p = Math.round(share * 1000) / 10;
  if (p === 0 && share > 0) return '<0.1%';
  return `${p}%`;
}

/** Hours rounded for reading: two significant digits below 10, one decimal below 100, whole above. */
export function hours(h: number): string {
  if (h === 0) return '0 h';
  const v = h >= 100 ? Math.round(h) : h >= 10 ? Math.round(h * 10) / 10 : Number(h.toPrecision(2));
  return `${v} h`;
}

/** "1 case", "12 cases". */
export function casesText(n: number): string {
  return `${n} ${n === 1 ? 'case' : 'cases'}`;
}

/** "1 event", "12 events". */
export function eventsText(n: number): string {
  return `${n} ${n === 1 ? 'event' : 'events'}`;
}

/** A plain value as one line of text (objects as `key: value; …`, arrays as `[a, b]`). */
export function plainText(p: Plain): string {
  if (typeof p === 'string') return p;
  if (typeof p === 'number' || typeof p === 'boolean') return String(p);
  if (Array.isArray(p)) return `[${p.map(plainText).join(', ')}]`;
  return Object.entries(p)
    .map(([k, v]) => `${k}: ${plainText(v)}`)
    .join('; ');
}

/** One condition of a rule's `when`: `orderAmount < 5000`, `priority in [high, critical]`. */
export function conditionText(c: Plain): string {
  if (c && typeof c === 'object' && !Array.isArray(c) && typeof c.attribute === 'string' && typeof c.op === 'string' && 'value' in c) {
    if (c.op === 'any') return `${c.attribute} is any value`;
    return `${c.attribute} ${c.op} ${plainText(c.value!)}`;
  }
  return plainText(c);
}

/** A rule's conditions joined: `a < 5 and b in [x, y]` (`always` when it has none). */
export function whenText(when: Plain[]): string {
  return when.length ? when.map(conditionText).join(' and ') : 'always';
}

/** The path of a variant as text: `A → B → C`. */
export function pathText(path: Plain[]): string {
  return path.map(plainText).join(' → ');
}

/** The document's main variant (class main), if it lists one: none where the commonest paths tie or nearly every case has a path of its own (engine/reading/paths.ts). */
export function mainVariant(doc: GraphDocument) {
  return doc.variants.find((v) => v.class === 'main');
}

/** Node labels by id (start and end included). */
export function labelsById(doc: GraphDocument): Map<string, string> {
  return new Map(doc.nodes.map((n) => [n.id, n.label]));
}

/** Stage names by id. */
export function stageNames(doc: GraphDocument): Map<string, string> {
  return new Map(doc.stages.map((s) => [s.id, s.name]));
}
