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
    const t = doc.escalations.find((e) => e.id.startsWith('timeout-') && e.from === names.sent);
    expect(t).toMatchObject({ from: names.sent, to: names.cancelled });
    expect(t!.evidence.cases).toBe(truth.timedOut);
    expect(t!.evidence.strength).toBe('hypothesis');
    expect(t!.trigger).toMatch(/about 720 hours \(30 days\)/);
    expect(t!.trigger).toContain("'u01', which does nothing else (a system account or a specialist)");
    // Case durations capped by the timeout measure it, not a service level: no success criterion on them.
    expect(doc.success_criteria.map((c) => c.id)).not.toContain('within-service-level');
    expect(doc.roles.find((r) => r.name.includes('u01'))).toMatchObject({ activities: [names.cancelled], name: `${names.cancelled} (u01 alone, doing only this step)` });
  });

  it('closes with the verdicts as alternatives in one stage, never one verdict after another', () => {
    const last = doc.stages[doc.stages.length - 1]!;
    expect(last.activities).toEqual(expect.arrayContaining([names.accepted, names.refused, names.cancelled]));
    expect(last.name).toMatch(new RegExp(`^${names.returned} to (${names.accepted}|${names.refused}|${names.cancelled})( / |$)`));
    expect(last.name.split(' / ').length).toBe(3);
  });

  it('reads the other channel as a way of sending, not as an exception', () => {
    expect(truth.online).toBeGreaterThan(10);
    expect(doc.exceptions.map((e) => e.name).join('\n')).not.toContain(names.sentOnline);
    const id = doc.nodes.find((n) => n.label === names.sentOnline)!.id;
    const edges = doc.edges.filter((e) => e.from === id || e.to === id);
    expect(edges.length).toBeGreaterThan(2);
    // Entering a failure ending stays what it is; touching a rare step it is not.
    expect(edges.filter((e) => e.kind === 'exception' && !e.evidence.method.includes('enters the failure ending'))).toEqual([]);
    expect(doc.assumptions.join('\n')).toContain(`here '${names.sentOnline}' instead of '${names.sent}'`);
    // What follows the sending follows either channel, in every case.
    const rule = doc.sequence_rules.find((r) => r.type === 'precedence' && r.activities[r.activities.length - 1] === names.returned);
    expect(rule).toMatchObject({ statement: `'${names.returned}' happens only after '${names.sent}' or '${names.sentOnline}'.`, holds: 1 });
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
