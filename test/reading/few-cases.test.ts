import { describe, expect, it } from 'vitest';
import { Rng } from '../../connectors/simulator/random.js';
import { buildDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { auditDocument } from '../document/audit.js';
import { freshStore } from '../engine/helpers.js';

/**
 * Decisions on too few cases (issue 31), shaped as a textbook example is made: a handful of requests for
 * compensation, each registered, checked, decided and then paid or rejected, with an amount on the request. Truth:
 * with 6 cases nobody can tell whether the amount (or anything) decides, so the reading must say too few cases, never
 * that no attribute predicts the choice; with 300 cases whose branch is a coin toss, "no attribute predicts it" is
 * the finding. Once with names, once with opaque codes.
 */
const NAMES = { register: 'register request', check: 'check ticket', decide: 'decide', pay: 'pay compensation', reject: 'reject request' };
const CODES = { register: 'T1', check: 'T2', decide: 'T3', pay: 'T4', reject: 'T5' };

function requests(n: number, hidden: boolean): WireEvent[] {
  const a = hidden ? CODES : NAMES;
  const rng = new Rng(3);
  const events: WireEvent[] = [];
  for (let c = 0; c < n; c++) {
    const caseId = `${c + 1}`;
    let t = Date.UTC(2025, 0, 6, 8) + c * 86_400_000;
    const amount = Math.round(100 + rng.next() * 900);
    const steps = [a.register, a.check, a.decide, rng.next() < 0.5 ? a.pay : a.reject];
    for (const [i, activity] of steps.entries()) {
      t += (1 + rng.next() * 5) * 3_600_000;
      events.push({ caseId, activity, timestamp: t, eventId: `${caseId}-${i}`, attributes: i === 0 ? { amount } : {} });
    }
  }
  return events;
}

describe.each([false, true])('a decision on too few cases (names hidden: %s)', (hidden) => {
  const a = hidden ? CODES : NAMES;
  const read = (n: number) => {
    const store = freshStore();
    store.apply({ records: requests(n, hidden) });
    const doc = buildDocument(store.snapshot());
    return { doc, store, audit: auditDocument(doc, store.traces()).filter((l) => l.startsWith('/decisions')) };
  };

  it('says too few cases to tell on 6 cases, never that no attribute predicts the choice', () => {
    const { doc, audit } = read(6);
    const d = doc.decisions.find((x) => x.at === a.decide)!;
    expect(d.evidence.cases).toBe(6);
    expect(d.explained).toBe(false);
    const text = JSON.stringify([doc.decisions, doc.open_questions]);
    expect(text).not.toMatch(/no attribute [a-z ]*predicts/i);
    expect(d.evidence.method).toContain('too few cases (6) to tell whether any attribute decides the branch: a rule needs at least 20');
    const question = doc.open_questions.map((x) => JSON.stringify(x)).find((x) => x.includes(`After '${a.decide}'`))!;
    expect(question).toContain('The log has too few cases (6) to tell');
    expect(doc.assumptions.filter((x) => String(x).includes('too few cases to tell'))).toHaveLength(1);
    expect(audit).toEqual([]);
  });

  it('says no attribute predicts it where the cases are enough and the branch is a coin toss', () => {
    const { doc, store, audit } = read(300);
    const d = doc.decisions.find((x) => x.at === a.decide)!;
    expect(d.explained).toBe(false);
    expect(d.evidence.method).not.toContain('too few cases');
    expect(audit).toEqual([]);
    // The audit sees the wrong words: a big decision said to have too few cases.
    const wrong = structuredClone(doc);
    const w = wrong.decisions.find((x) => x.at === a.decide)!;
    w.evidence.method = 'too few cases (300) to tell';
    expect(auditDocument(wrong, store.traces()).filter((l) => l.includes('/evidence/method'))).toHaveLength(1);
  });
});
