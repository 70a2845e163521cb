import { describe, expect, it } from 'vitest';
import { buildDocument, type GraphDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { auditDocument } from '../document/audit.js';
import { freshStore } from '../engine/helpers.js';
import { closedLog, repairLog } from './window-shape.js';

/**
 * The observation window (engine/reading/window.ts) on simulated logs with a stated truth
 * (test/reading/window-shape.ts), with names and with opaque codes: cases cut off by the extract are open, not
 * stalled, skips or exceptions; genuinely abandoned old cases stay stalled; a log of closed cases selected on its
 * ending gives no success share, no service level, and says that rules to its ending hold by selection. The audit
 * recomputes the window's figures and finds none wrong.
 */
function docOf(events: WireEvent[]) {
  const store = freshStore();
  store.apply({ records: events });
  const doc = buildDocument(store.snapshot());
  const audit = [...auditDocument(doc, store.traces())];
  // And the audit sees a wrong window: one censored case too few, or the selection left unsaid.
  const wrong = structuredClone(doc);
  const at = wrong.assumptions.findIndex((a) => typeof a === 'string' && a.startsWith('Observation window:'));
  if (at >= 0) {
    const text = wrong.assumptions[at] as string;
    wrong.assumptions[at] = text.includes('cut while cases ran') ? text.replace(/but (\d+) of/, (_, n: string) => `but ${Number(n) - 1} of`) : 'Observation window: nothing to say.';
    if (!auditDocument(wrong, store.traces()).some((l) => l.startsWith('/outcomes (observation window)'))) audit.push('the audit missed a wrong window');
  }
  store.close();
  return { doc, audit };
}
const window = (doc: GraphDocument) => doc.assumptions.filter((a): a is string => typeof a === 'string' && a.startsWith('Observation window:'));
/** Cases counted with an outcome kind, at any activity but `but` (the ending: with codes it is `other` too). */
const count = (doc: GraphDocument, kind: string, but = '') => doc.outcomes.filter((o) => o.kind === kind && o.end_activity !== but).reduce((n, o) => n + o.cases, 0);

describe.each([false, true])('a repair log cut while items wait for the test desk (names hidden: %s)', (hidden) => {
  const { events, truth, names } = repairLog('cut', { hidden });
  const { doc, audit } = docOf(events);

  it('counts the cut-off cases as open, whatever their idle gap', () => {
    expect(truth.running).toBeGreaterThan(100);
    expect(count(doc, 'open')).toBe(truth.running);
    expect(count(doc, 'other', names.archive)).toBe(0);
    expect(JSON.stringify(doc.open_questions)).not.toContain('abandoned');
    expect(window(doc)).toHaveLength(1);
    expect(window(doc)[0]).toContain(`but ${truth.running} of the ${truth.running} cases stopped outside an ending`);
  });

  it('reads no skip to the end and no exception path from them, and no service level from their durations', () => {
    expect(doc.edges.filter((e) => e.kind === 'skip').map((e) => e.id)).toEqual([]);
    const cutAt = new Set([names.simple, names.complex, names.test]);
    expect(doc.variants.filter((v) => v.class === 'exception' && cutAt.has(String(v.path[v.path.length - 1]))).map((v) => v.path.join(' > '))).toEqual([]);
    expect(doc.policies.filter((p) => p.kind === 'service_level')).toEqual([]);
  });

  it('leaves nothing the audit can recompute differently', () => {
    expect(audit).toEqual([]);
  });
});

describe.each([false, true])('a repair log with items abandoned all along (names hidden: %s)', (hidden) => {
  const { events, truth, names } = repairLog('abandoned', { hidden });
  const { doc, audit } = docOf(events);

  it('keeps the abandoned cases stalled and asks about them', () => {
    expect(truth.abandoned).toBeGreaterThan(40);
    expect(window(doc)).toEqual([]);
    expect(count(doc, 'open')).toBe(0);
    expect(count(doc, 'other', names.archive)).toBe(truth.abandoned);
    expect(JSON.stringify(doc.open_questions)).toContain(`Are the ${truth.abandoned} cases that stopped outside any ending long ago abandoned`);
    expect(doc.policies.filter((p) => p.kind === 'service_level')).toHaveLength(1);
    expect(audit).toEqual([]);
  });
});

describe.each([false, true])('an extract of tickets closed in a four-month window (names hidden: %s)', (hidden) => {
  const { events, truth, names } = closedLog({ hidden });
  const { doc, audit } = docOf(events);

  it('says the log is selected on its ending, and gives no success share or service level', () => {
    expect(truth.closed).toBe(truth.cases);
    expect(window(doc)).toHaveLength(1);
    expect(window(doc)[0]).toContain('the log looks selected on its ending');
    expect(window(doc)[0]).toContain(`100% of the cases end with '${names.close}': that is the filter, not a result`);
    expect(doc.success_criteria.filter((c) => c.test.includes(`'${names.close}'`))).toEqual([]);
    expect(doc.policies.filter((p) => p.kind === 'service_level')).toEqual([]);
    expect(doc.process.objective).toContain(`Every case ends with '${names.close}': the log was selected on that ending`);
  });

  it('says that rules to the ending hold by selection', () => {
    const toEnd = doc.sequence_rules.filter((r) => r.type === 'response' && r.activities[1] === names.close);
    expect(toEnd.length).toBeGreaterThan(0);
    for (const r of toEnd) expect(r.statement).toContain('by selection');
    expect(audit).toEqual([]);
  });
});

describe('the same repair log cut by date with no backlog', () => {
  it('reads no window: the finished cases reach the cut', () => {
    const { events } = repairLog('abandoned', { seed: 3 });
    // Drop the abandoned cases: every case finishes within hours, so nothing is cut off.
    const ids = new Set<string>();
    const last = new Map<string, string>();
    for (const e of events) last.set(e.caseId, e.activity);
    for (const [id, a] of last) if (a === 'Archive Item') ids.add(id);
    const { doc } = docOf(events.filter((e) => ids.has(e.caseId)));
    expect(window(doc)).toEqual([]);
    expect(doc.policies.filter((p) => p.kind === 'service_level')).toHaveLength(1);
  });
});
