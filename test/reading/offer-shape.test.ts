import { describe, expect, it } from 'vitest';
import { buildDocument, type GraphDocument } from '../../engine/document/index.js';
import { freshStore } from '../engine/helpers.js';
import { offerLog } from './offer-shape.js';

/**
 * An offer log with a stated truth (test/reading/offer-shape.ts), read with its names and with opaque codes: what an
 * expert reading BPIC 2017's offer log would not sign (issue 31), as rules about how such data is made.
 */
function docOf(hidden: boolean) {
  const { events, truth, names } = offerLog({ hidden });
  const store = freshStore();
  for (let i = 0; i < events.length; i += 5000) store.apply({ records: events.slice(i, i + 5000) });
  return { doc: buildDocument(store.snapshot()), truth, names };
}
const text = (d: GraphDocument) => JSON.stringify(d);

describe.each([false, true])('an offer log (names hidden: %s)', (hidden) => {
  const { doc, truth, names } = docOf(hidden);

  it('says cases group by the application they share, with the counts', () => {
    expect(doc.process.case_represents).toContain(`cases group by 'case:app': ${truth.offers} cases carry ${truth.applications} values of it`);
  });

  it('reads the cancellation after exactly 30 days as a timeout of the system account, counting only those', () => {
    const t = doc.escalations.find((e) => e.id.startsWith('timeout-'));
    expect(t).toMatchObject({ from: names.sent, to: names.cancelled });
    expect(t!.evidence.cases).toBe(truth.timedOut);
    expect(t!.evidence.strength).toBe('hypothesis');
    expect(t!.trigger).toMatch(/about 720 hours \(30 days\)/);
    expect(t!.trigger).toContain("'u01', which does nothing else");
  });

  it('states no timing between the two records the system writes for one step', () => {
    expect(doc.policies.filter((p) => p.kind === 'timing' && p.threshold_hours < 1 / 60)).toEqual([]);
    expect(doc.policies.some((p) => p.kind === 'timing' && p.statement.includes(`'${names.created}' directly follows '${names.create}'`))).toBe(false);
  });

  it('names the attributes written knowing the ending as leaks, and rests no rule on them or on the step kind', () => {
    const leaks = doc.assumptions.find((a) => typeof a === 'string' && a.startsWith('Attributes that may encode the ending')) as string;
    expect(leaks).toContain(`'case:score' (its value >= `);
    expect(leaks).toContain(`on the first event of ${truth.acceptedApplications} cases foretells '${names.accepted}'`);
    expect(leaks).toContain(`'case:selected' (its value false on the first event of`);
    expect(leaks).toContain(`keeps them from '${names.accepted}': 0 of them end there`);
    for (const d of doc.decisions) {
      expect(d.rules, d.at).toEqual([]);
      expect(d.evidence.method, d.at).toContain('the log does not record what decides');
      expect(d.evidence.method, d.at).not.toContain("'kind'");
    }
  });

  it.runIf(!hidden)('counts success by application too, and asks whether cancelled siblings of an accepted offer were replaced', () => {
    expect(text(doc)).toContain(`Counted by 'case:app' instead of by case, ${truth.acceptedApplications} of ${truth.applications} values`);
    const question = doc.open_questions.find((q) => typeof q === 'object' && String((q as { question: string }).question).startsWith(`Are the ${truth.replaced} cases ending in a failure ending`));
    expect(question).toBeDefined();
  });

  it.runIf(hidden)('claims no success or failure without names: endings are other', () => {
    expect(doc.outcomes.every((o) => o.kind === 'other' || o.kind === 'open')).toBe(true);
    expect(text(doc)).not.toContain('Counted by');
  });
});
