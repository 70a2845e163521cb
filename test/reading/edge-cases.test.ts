import { describe, expect, it } from 'vitest';
import { buildDocument, validateDocument } from '../../engine/document/index.js';
import { freshStore } from '../engine/helpers.js';

/** Small and degenerate logs still give a valid, honest reading. */
describe('the reading of tiny logs', () => {
  it('an empty project has no outcomes, stages or decisions', () => {
    const doc = buildDocument(freshStore().snapshot());
    expect(validateDocument(doc).ok).toBe(true);
    expect(doc.outcomes).toEqual([]);
    expect(doc.stages).toEqual([]);
    expect(doc.decisions).toEqual([]);
    expect(doc.policies).toEqual([]);
  });

  it('one case with one activity', () => {
    const store = freshStore();
    store.apply({ records: [{ caseId: 'c1', activity: 'Open Request', timestamp: '2025-01-01T00:00:00Z' }] });
    const doc = buildDocument(store.snapshot());
    expect(validateDocument(doc)).toEqual({ ok: true, problems: [] });
    expect(doc.outcomes.reduce((n, o) => n + o.cases, 0)).toBe(1);
    expect(doc.stages.flatMap((s) => s.activities)).toEqual(['Open Request']);
  });

  it('equal timestamps and a self-loop', () => {
    const store = freshStore();
    const t = '2025-01-01T00:00:00Z';
    const records = ['a', 'b', 'c'].flatMap((c) => [
      { caseId: c, activity: 'Create Order', timestamp: t, eventId: `${c}1` },
      { caseId: c, activity: 'Check Order', timestamp: t, eventId: `${c}2` },
      { caseId: c, activity: 'Check Order', timestamp: t, eventId: `${c}3` },
      { caseId: c, activity: 'Close Order', timestamp: t, eventId: `${c}4`, resource: 'r1', attributes: { amount: 5 } },
    ]);
    store.apply({ records });
    const doc = buildDocument(store.snapshot());
    expect(validateDocument(doc)).toEqual({ ok: true, problems: [] });
    expect(doc.process.case_represents).toBe("one order (a reading of activity names), identified by 'case id'");
    expect(doc.outcomes).toEqual([{ id: 'success-close-order', end_activity: 'Close Order', kind: 'success', cases: 3, share: 1 }]);
    // Every event of the log at one time: the times say nothing, so the repeat is not read as entries written at
    // once; every case makes it, so it is the step's usual recording (normal), and the frozen clock is stated.
    const self = doc.edges.find((e) => e.from === e.to)!;
    expect(self.kind).toBe('normal');
    expect(self.evidence.method).toMatch(/repeats directly in 100% of all cases: most cases record it more than once in a row/);
    expect(doc.assumptions.some((a) => JSON.stringify(a).includes('Times: every case begins and ends at one instant'))).toBe(true);
  });
});
