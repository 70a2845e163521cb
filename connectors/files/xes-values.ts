import type { AttributeValue } from '../../engine/index.js';
import { parseTimestamp, type ZoneReader } from './timestamp.js';

/*
 * XES attribute elements and their values, as the reader (xes.ts) maps them: dates become ISO text,
 * numbers numbers when they are whole or finite, anything that does not read stays text.
 */

const ATTRIBUTE_TAGS = new Set(['string', 'date', 'int', 'float', 'boolean', 'id', 'list', 'container']);

/** Whether an element is an attribute (list and container ones have no scalar value, typedValue says). */
export function isAttributeTag(tag: string): boolean {
  return ATTRIBUTE_TAGS.has(tag);
}

/** The value of an XML attribute in the tokenizer's [name, value, …] list. */
export function attrOf(attrs: string[], name: string): string | undefined {
  for (let i = 0; i < attrs.length; i += 2) if (attrs[i] === name) return attrs[i + 1];
  return undefined;
}

/** Classifier keys are space-separated; a key with spaces is quoted with single quotes. */
export function splitKeys(keys: string): string[] {
  return [...keys.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

const intPattern = /^[+-]?\d+$/;

/** An attribute element's value by its tag; undefined for list and container (no scalar value). */
export function typedValue(tag: string, raw: string, zone: ZoneReader): AttributeValue | undefined {
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
