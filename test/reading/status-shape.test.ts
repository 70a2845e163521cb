import { describe, expect, it } from 'vitest';
import { buildDocument, type GraphDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { auditDocument } from '../document/audit.js';
import { freshStore } from '../engine/helpers.js';
import { routeLog, statusLog } from './status-shape.js';

/**
 * Outcome statuses (engine/reading/statuses.ts) on simulated logs with a stated truth (test/reading/status-shape.ts),
 * read with their names and with opaque codes: the outcome is the status a case reached, not the trailing work after
 * it; a withdrawn part is not the case's failure; and alternative routes to a common end are no status set.
 */
function docOf(events: WireEvent[]) {
  const store = freshStore();
  store.apply({ records: events });
  const doc = buildDocument(store.snapshot());
  const audit = auditDocument(doc, store.traces()).filter((l) => l.startsWith('/outcomes') || l.startsWith('/success_criteria'));
  // And the audit sees a wrong figure: one case moved from a status to another.
  const wrong = structuredClone(doc);
  const reached = wrong.outcomes.filter((o) => o.id.includes('-reached-'));
  if (reached.length >= 2) {
    reached[0]!.cases -= 1;
    reached[1]!.cases += 1;
    if (!auditDocument(wrong, store.traces()).some((l) => l.startsWith('/outcomes (end_activity'))) audit.push('the audit missed a wrong status count');
  }
  return { doc, audit };
}
const byEnd = (doc: GraphDocument) => {
  const m = new Map<string, number>();
  for (const o of doc.outcomes) m.set(`${o.kind} ${o.end_activity}`, (m.get(`${o.kind} ${o.end_activity}`) ?? 0) + o.cases);
  return m;
};

describe.each([false, true])('an application log with outcome statuses (names hidden: %s)', (hidden) => {
  const { events, truth, names } = statusLog({ hidden });
  const { doc, audit } = docOf(events);
  const outcome = (kind: string, a: string) => byEnd(doc).get(`${kind} ${a}`) ?? 0;

  it('reads the outcome from the status reached, not from the trailing work after it', () => {
    const ok = hidden ? 'other' : 'success';
    const bad = hidden ? 'other' : 'failure';
    expect(outcome(ok, names.offerAccepted)).toBe(truth.accepted);
    expect(outcome(bad, names.denied)).toBe(truth.denied);
    expect(outcome(bad, names.cancelled)).toBe(truth.cancelled);
    expect(doc.outcomes.filter((o) => o.id.includes('-reached-')).map((o) => o.end_activity).sort()).toEqual([names.cancelled, names.denied, names.offerAccepted].sort());
    // The status written first is the status; the one written right after it in the same cases is named beside it.
    expect(doc.assumptions.join('\n')).toContain(`'${names.offerAccepted}' ${truth.accepted} ('${names.pending}' written in the same cases)`);
    // The trailing steps are no endings: no decided case is counted at them.
    const undecided = doc.outcomes.filter((o) => !o.id.includes('-reached-'));
    expect(undecided.reduce((n, o) => n + o.cases, 0)).toBe(truth.undecided);
    expect(undecided.every((o) => o.kind === 'open' || o.kind === 'other')).toBe(true);
  });

  it('never reads the withdrawn offer as the case failing', () => {
    expect(truth.acceptedEndingWithdrawn).toBeGreaterThan(20);
    expect(doc.outcomes.filter((o) => o.end_activity === names.offerCancelled)).toEqual([]);
    expect(doc.exceptions.map((e) => e.name).join('\n')).not.toContain(`ends with '${names.offerCancelled}'`);
  });

  it('claims success and failure only from names', () => {
    if (hidden) {
      expect(doc.outcomes.filter((o) => o.kind === 'success' || o.kind === 'failure')).toEqual([]);
      expect(doc.success_criteria).toEqual([]);
      expect(doc.assumptions.join('\n')).toContain('No status names a verdict');
    } else {
      const c = doc.success_criteria.find((x) => x.id === 'success-status')!;
      expect(c.test).toBe(`an event of ['${names.offerAccepted}'] in the case`);
      expect(c.evidence).toMatchObject({ cases: truth.accepted, strength: 'hypothesis' });
      expect(doc.process.objective).toContain(`to bring each application to '${names.offerAccepted}'`);
      // A failure status is no ending cases stop at: no "ends with" exception counts the few whose last event it is.
      expect(doc.exceptions.filter((e) => e.id.startsWith('failed-ending-'))).toEqual([]);
    }
  });

  it('is recomputed by the audit from the stored events', () => {
    expect(audit).toEqual([]);
  });
});

describe.each([false, true])('two alternative routes to a common end (names hidden: %s)', (hidden) => {
  const { events, names } = routeLog({ hidden });
  const { doc, audit } = docOf(events);

  it('reads no status set: the routes go on to the same end', () => {
    expect(doc.outcomes.filter((o) => o.id.includes('-reached-'))).toEqual([]);
    expect(doc.outcomes.map((o) => o.end_activity)).toEqual([names.close]);
    expect(doc.assumptions.join('\n')).not.toContain('outcome statuses');
    expect(audit).toEqual([]);
  });
});
