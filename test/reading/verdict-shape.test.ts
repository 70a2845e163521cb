import { describe, expect, it } from 'vitest';
import { buildDocument, type GraphDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { auditDocument } from '../document/audit.js';
import { freshStore } from '../engine/helpers.js';
import { verdictLog } from './verdict-shape.js';

/**
 * A check's verdict and the attributes of the event at a split (engine/reading/verdicts.ts, triggers.ts, decisions.ts)
 * on a simulated repair log with a stated truth (test/reading/verdict-shape.ts), with names and with opaque codes, and
 * a control where the same attributes are noise.
 */
function docOf(events: WireEvent[]): { doc: GraphDocument; audit: string[] } {
  const store = freshStore();
  store.apply({ records: events });
  const doc = buildDocument(store.snapshot());
  return { doc, audit: auditDocument(doc, store.traces()) };
}
const rulesAt = (doc: GraphDocument, at: string) => doc.decisions.find((d) => d.at === at);

describe.each([false, true])('a repair log whose test writes its verdict (names hidden: %s)', (hidden) => {
  const { events, truth, names } = verdictLog({ hidden });
  const { doc, audit } = docOf(events);

  it('reads the split after the analysis from the severity written on the analysis event, the notice projected out', () => {
    const d = rulesAt(doc, names.analyze);
    expect(d?.explained).toBe(true);
    expect(d!.branches.map((b) => b.to).sort()).toEqual([names.complex, names.simple].sort());
    const byThen = new Map(d!.rules.map((r) => [r.then, r]));
    expect(byThen.get(names.simple)?.when).toEqual([{ attribute: 'severity', op: 'in', value: ['low'] }]);
    expect(byThen.get(names.complex)?.when).toEqual([{ attribute: 'severity', op: 'in', value: ['high'] }]);
    expect(d!.rules.every((r) => r.holds === 1)).toBe(true);
    expect(d!.evidence.method).toContain(`'${names.notify}', next in`);
  });

  it('reads the split after the test from its verdict, with no exception', () => {
    const d = rulesAt(doc, names.test);
    expect(d?.explained).toBe(true);
    const restart = d!.rules.find((r) => r.then === names.restart)!;
    expect(restart.when).toEqual([{ attribute: 'fixed', op: 'in', value: [false] }]);
    expect(restart.holds).toBe(1);
    expect(restart.cases).toBeLessThanOrEqual(truth.restartedAfterFirstTest);
  });

  it('splits the archived cases by the verdict: the ones archived unfixed are failures', () => {
    expect(truth.archivedUnfixed).toBeGreaterThan(10);
    const at = (kind: string) => doc.outcomes.filter((o) => o.end_activity === names.archive && o.kind === kind).reduce((n, o) => n + o.cases, 0);
    expect(at('success')).toBe(truth.archivedFixed);
    expect(at('failure')).toBe(truth.archivedUnfixed);
    const c = doc.success_criteria.find((x) => x.id === 'success-ending');
    expect(c?.test).toContain(`last value of 'fixed' in the case is true`);
    expect(c?.evidence.cases).toBe(truth.archivedFixed);
    expect(c?.evidence.strength).toBe('hypothesis');
    expect(c?.statement).not.toContain('records no outcome');
    // The case-level flag on every event from the first is no verdict.
    expect(JSON.stringify(doc.success_criteria)).not.toContain('case:priority');
  });

  it('reads the repeated test as a turn of the loop the verdict sends cases round, and asks no why', () => {
    // The mined tree loops test and repair (engine/reading/concurrency.ts): its turns are no exception, and what sends
    // a case round is the decision at the test, explained by the verdict written on it (the rule above).
    expect(doc.exceptions.find((e) => e.id === `repeated-${names.test.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`)).toBeUndefined();
    const loops = doc.assumptions.find((a): a is string => typeof a === 'string' && a.startsWith('Exceptions:'))!;
    expect(loops).toContain('Repeats that are turns of a loop of the mined process tree, not exceptions:');
    expect(loops).toContain(`'${names.test}'`);
    const restart = rulesAt(doc, names.test)!.rules.find((r) => r.then === names.restart)!;
    expect(restart.when).toEqual([{ attribute: 'fixed', op: 'in', value: [false] }]);
    expect(truth.retested).toBeGreaterThan(100);
    expect(doc.open_questions.map((q) => String((q as { question: string }).question)).join('\n')).not.toContain(`Why is '${names.test}' repeated`);
  });

  it('is recomputed by the audit', () => {
    expect([...audit]).toEqual([]);
    expect(JSON.stringify((audit as unknown as { skipped?: string[] }).skipped ?? [])).not.toContain("trigger");
  });
});

describe.each([false, true])('the same log where severity and the verdict are noise (names hidden: %s)', (hidden) => {
  const { events, names } = verdictLog({ hidden, noise: true, seed: 9 });
  const { doc, audit } = docOf(events);

  it('finds no rule, no verdict and no attribute trigger', () => {
    for (const d of doc.decisions) expect(d.rules.filter((r) => r.evidence.strength !== 'weak')).toEqual([]);
    expect(rulesAt(doc, names.analyze)?.explained ?? false).toBe(false);
    expect(doc.outcomes.filter((o) => o.end_activity === names.archive && o.kind === 'failure')).toEqual([]);
    expect(JSON.stringify(doc.success_criteria)).not.toContain("'fixed'");
    expect(doc.exceptions.map((e) => e.trigger).join('\n')).not.toContain(' with ');
    expect([...audit]).toEqual([]);
    expect(JSON.stringify((audit as unknown as { skipped?: string[] }).skipped ?? [])).not.toContain("trigger");
  });
});
