import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildDocument, validateDocument } from '../../engine/document/index.js';
import type { GraphDocument } from '../../engine/document/index.js';
import { ProjectStore, type WireEvent } from '../../engine/index.js';
import { modelNames, simulate } from '../../connectors/simulator/index.js';

const T0 = Date.UTC(2025, 2, 1);

function checkCounts(doc: GraphDocument): void {
  expect(validateDocument(doc)).toEqual({ ok: true, problems: [] });
  const ids = new Set(doc.nodes.map((n) => n.id));
  expect(ids.size).toBe(doc.nodes.length);
  for (const e of doc.edges) {
    expect(ids.has(e.from)).toBe(true);
    expect(ids.has(e.to)).toBe(true);
  }
  const cases = doc.source.cases;
  expect(doc.edges.filter((e) => e.from === 'start').reduce((s, e) => s + e.cases, 0)).toBe(cases);
  expect(doc.edges.filter((e) => e.to === 'end').reduce((s, e) => s + e.cases, 0)).toBe(cases);
  expect(doc.variants.reduce((s, v) => s + v.cases, 0)).toBeLessThanOrEqual(cases);
  for (const v of doc.variants) expect(v.cases).toBeLessThanOrEqual(cases);
  // At most one main path, the commonest listed one; none where paths tie or nearly every case has its own (engine/reading/paths.ts).
  const mains = doc.variants.filter((v) => v.class === 'main');
  expect(mains.length).toBeLessThanOrEqual(1);
  if (mains.length) expect(doc.variants[0]).toBe(mains[0]);
  if (cases > 0) expect(mains.length).toBe(doc.assumptions.some((a) => typeof a === 'string' && a.startsWith('Variants:') && /; here (the commonest path \(\d+ cases, [\d.]+%\) leads|every case follows the one path)/.test(a)) ? 1 : 0);
  if (doc.outcomes.length) expect(doc.outcomes.reduce((s, o) => s + o.cases, 0)).toBe(cases);
  expect(doc.nodes.filter((n) => n.kind === 'activity').reduce((s, n) => s + n.events, 0)).toBe(doc.source.events);
}

describe('document properties', () => {
  it('holds on random logs', () => {
    const event = fc.record({
      caseId: fc.constantFrom('c1', 'c2', 'c3', 'c4', 'c5', 'c6'),
      activity: fc.constantFrom('a', 'b', 'c', "d'x", 'e (f)'),
      minutes: fc.integer({ min: 0, max: 10_000 }),
      resource: fc.option(fc.constantFrom('r1', 'r2', 'r3'), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(event, { minLength: 0, maxLength: 40 }), (events) => {
        const store = ProjectStore.open(':memory:');
        try {
          const records: WireEvent[] = events.map((e, i) => ({
            caseId: e.caseId,
            activity: e.activity,
            timestamp: T0 + e.minutes * 60_000,
            eventId: `e${i}`,
            ...(e.resource ? { resource: e.resource } : {}),
          }));
          store.apply({ records });
          const doc = buildDocument(store.snapshot());
          checkCounts(doc);
          expect(doc.source.cases).toBe(new Set(events.map((e) => e.caseId)).size);
          expect(doc.source.events).toBe(events.length);
          expect(doc.roles.length > 0).toBe(events.some((e) => e.resource !== undefined));
        } finally {
          store.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it.each(modelNames())('holds on a simulated %s log', (model) => {
    const store = ProjectStore.open(':memory:');
    try {
      store.apply({ records: [...simulate({ model, cases: 200, seed: 11 })] });
      const doc = buildDocument(store.snapshot());
      checkCounts(doc);
      expect(doc.source.cases).toBe(200);
      expect(doc.model.cases_it_accepts).toBeGreaterThan(0.5);
    } finally {
      store.close();
    }
  });
});
