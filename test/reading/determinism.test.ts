import { describe, expect, it } from 'vitest';
import { simulate } from '../../connectors/simulator/index.js';
import { buildDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { freshStore } from '../engine/helpers.js';

/** The same events in any order, split and repeated any way, give the same document (apart from data_version). */
function documentOf(events: WireEvent[], batch: number) {
  const store = freshStore();
  for (let i = 0; i < events.length; i += batch) store.apply({ records: events.slice(i, i + batch) });
  const doc = buildDocument(store.snapshot());
  return { ...doc, source: { ...doc.source, data_version: '' } };
}

describe('the reading is deterministic', () => {
  it('gives the same document for any arrival order', () => {
    const log = [...simulate({ model: 'claims', cases: 150, seed: 5 })];
    const reversed = [...log].reverse();
    const interleaved = [...log.filter((_, i) => i % 2 === 1), ...log.filter((_, i) => i % 3 === 0), ...log.filter((_, i) => i % 2 === 0)];
    const a = documentOf(log, 1000);
    expect(a.decisions.length).toBeGreaterThan(0);
    expect(documentOf(reversed, 257)).toEqual(a);
    expect(documentOf(interleaved, 611)).toEqual(a);
    expect(JSON.stringify(documentOf(reversed, 257))).toBe(JSON.stringify(a));
  });
});
