import { describe, expect, it } from 'vitest';
import { Rng } from '../../connectors/simulator/random.js';
import { buildDocument, type GraphDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { auditDocument } from '../document/audit.js';
import { freshStore } from '../engine/helpers.js';

/**
 * Loops that decide on a later turn (issue 31: a reviewer could not sign "Evict 75" when 90 tenants were evicted,
 * 15 of them at a later warning; nor a reminder log read without "cancelled only after the second reminder").
 * The stated truth of the shape:
 * - dunning: an unpaid bill gets a reminder; after the 1st reminder half pay and half get a 2nd; after the 2nd,
 *   55% pay and 45% are cancelled. A cancellation never follows a 1st reminder.
 * - inspection: each inspection rejects 12% of the cases; the others are fixed and inspected again, up to three
 *   inspections, the third passing every case it does not reject.
 * - tenancy (a fifth of the cases): a contract signed (again, right away, in a fifth of them: a redone signature),
 *   then the rent paid two to seven times, a month apart, then the tenancy ends. Paying again is the step's way.
 * Read with names and with opaque codes (no claim may rest on words).
 */
const NAMES = { register: 'Register', bill: 'Send Bill', pay: 'Receive Payment', remind: 'Send Reminder', cancel: 'Cancel Order', inspect: 'Inspect', fix: 'Fix Defects', reject: 'Reject', accept: 'Accept', sign: 'Sign Contract', rent: 'Pay Rent', leave: 'End Tenancy' } as const;
type Step = keyof typeof NAMES;
const HIDDEN: Record<Step, string> = { register: 'S1', bill: 'S2', pay: 'S3', remind: 'S4', cancel: 'S5', inspect: 'S6', fix: 'S7', reject: 'S8', accept: 'S9', sign: 'T1', rent: 'T2', leave: 'T3' };

interface Truth {
  cancelAfter: number[];
  rejectAt: number[];
  inspected: number;
}

function loopLog(hidden: boolean, tiedCancel = false): { events: WireEvent[]; truth: Truth; names: Record<Step, string> } {
  const names = hidden ? HIDDEN : NAMES;
  const rng = new Rng(5);
  const r = () => rng.next();
  const events: WireEvent[] = [];
  const truth: Truth = { cancelAfter: [0, 0], rejectAt: [0, 0, 0], inspected: 0 };
  const H = 3_600_000;
  for (let c = 0; c < 1200; c++) {
    const id = `c${c}`;
    let t = Date.UTC(2025, 0, 1) + c * 7 * H + Math.floor(r() * H);
    const steps: Step[] = [];
    if (c % 5 === 4) {
      steps.push('sign');
      if (r() < 0.2) steps.push('sign');
      for (let k = 2 + Math.floor(r() * 6); k > 0; k--) steps.push('rent');
      steps.push('leave');
    } else if (c % 2 === 0) {
      steps.push('register', 'bill');
      let reminders = 0;
      while (true) {
        if (reminders === 0 && r() < 0.4) break;
        if (reminders === 1 && r() < 0.5) break;
        if (reminders === 2) {
          if (r() < 0.45) {
            steps.push('cancel');
            truth.cancelAfter[1]!++;
          }
          break;
        }
        steps.push('remind');
        reminders++;
      }
      if (steps[steps.length - 1] !== 'cancel') steps.push('pay');
    } else {
      steps.push('register');
      truth.inspected++;
      for (let k = 0; k < 3; k++) {
        steps.push('inspect');
        if (r() < 0.12) {
          steps.push('reject');
          truth.rejectAt[k]!++;
          break;
        }
        steps.push(k < 2 ? 'fix' : 'accept');
      }
    }
    steps.forEach((s, i) => {
      t += s === 'rent' ? 30 * 24 * H : tiedCancel && s === 'cancel' ? 0 : Math.floor((1 + r() * 40) * H);
      events.push({ caseId: id, eventId: `${id}-${i}`, activity: names[s], timestamp: new Date(t).toISOString(), resource: `u${1 + Math.floor(r() * 8)}` });
    });
  }
  return { events, truth, names };
}

function docOf(hidden: boolean): { doc: GraphDocument; truth: Truth; names: Record<Step, string>; audit: string[] } {
  const { events, truth, names } = loopLog(hidden);
  const store = freshStore();
  store.apply({ records: events });
  const doc = buildDocument(store.snapshot());
  // The turns recomputed from the stored events (test/document/audit-reading.ts).
  const audit = auditDocument(doc, store.traces()).filter((l) => l.includes('/sequence_rules/'));
  // And the audit sees a wrong figure: the same document with one turn's count off by one.
  const wrong = structuredClone(doc);
  const rule = wrong.sequence_rules.find((r) => r.id.startsWith('later-turn-'))!;
  rule.statement = rule.statement.replace(/after (\d+) of the/, (_, n: string) => `after ${Number(n) + 1} of the`);
  audit.push(...(auditDocument(wrong, store.traces()).some((l) => l.includes('taken at that turn')) ? [] : ['the audit missed a wrong count']));
  return { doc, truth, names, audit };
}

describe.each([false, true])('loops deciding on later turns (names hidden: %s)', (hidden) => {
  const { doc, truth, names, audit } = docOf(hidden);

  it('states turns the stored events give again', () => {
    expect(audit).toEqual([]);
  });

  it('states that the cancellation comes only from the 2nd reminder on, with the turns counted', () => {
    const rule = doc.sequence_rules.find((x) => x.id.startsWith('later-turn-') && x.activities.join() === [names.remind, names.cancel].join());
    expect(rule?.id).toBe(`later-turn-${names.remind.toLowerCase().replace(/ /g, '-')}-${names.cancel.toLowerCase().replace(/ /g, '-')}`);
    expect(rule!.holds).toBe(1);
    expect(rule!.evidence.cases).toBe(truth.cancelAfter[1]);
    expect(rule!.statement).toContain(`only from a case's 2nd '${names.remind}' on`);
    expect(rule!.statement).toContain(`after ${truth.cancelAfter[1]} of the`);
  });

  it('states the later turns of the inspection loop in its decision, so every rejection is counted', () => {
    const d = doc.decisions.find((x) => x.at === names.inspect)!;
    // The first inspection's branches are the first turn only...
    expect(d.branches.find((b) => b.to === names.reject)?.cases).toBe(truth.rejectAt[0]);
    // ...and the evidence adds the later turns, per turn, and the cases on any turn.
    const all = truth.rejectAt.reduce((n, x) => n + x, 0);
    expect(d.evidence.method).toContain(`'${names.reject}' ${truth.rejectAt[1]! + truth.rejectAt[2]!} (${truth.rejectAt[1]} at the 2nd, ${truth.rejectAt[2]} at the 3rd), on any turn in ${all} of the ${truth.inspected} cases`);
  });

  it('reads a step most of its cases repeat directly as recurring (normal), and a minority\'s direct repeat as rework', () => {
    const id = (label: string) => doc.nodes.find((n) => n.label === label)!.id;
    const kind = (a: string) => doc.edges.find((e) => e.from === id(a) && e.to === id(a))?.kind;
    expect(kind(names.rent)).toBe('normal');
    expect(kind(names.sign)).toBe('rework');
  });

  it('claims later-turn rules for the cancellation and the third inspection\'s pass, none for a visit every case makes, and none where a step follows from the first turn on', () => {
    const found = doc.sequence_rules.filter((x) => x.id.startsWith('later-turn-')).map((x) => x.activities.join(' -> '));
    // Not the tenancy's end after a 2nd payment: every tenancy pays at least twice, so "the 2nd" names no turn.
    expect(found.sort()).toEqual([`${names.remind} -> ${names.cancel}`, `${names.inspect} -> ${names.accept}`].sort());
    const accept = doc.sequence_rules.find((x) => x.id.startsWith('later-turn-') && x.activities[1] === names.accept)!;
    expect(accept.statement).toContain(`only from a case's 3rd '${names.inspect}' on`);
  });
});

describe('a later-turn order the file makes', () => {
  it('claims none where the cancellation shares its timestamp with the reminder (which came first is the file\'s order)', () => {
    const store = freshStore();
    store.apply({ records: loopLog(false, true).events });
    const doc = buildDocument(store.snapshot());
    expect(doc.sequence_rules.filter((x) => x.id.startsWith('later-turn-') && x.activities.includes(NAMES.cancel))).toEqual([]);
    expect(doc.sequence_rules.some((x) => x.id.startsWith('later-turn-') && x.activities.includes(NAMES.accept))).toBe(true);
  });
});

describe('a work item written twice under one name', () => {
  it('claims no later-turn rule: every case reaches the 2nd record, which is the same piece of work', () => {
    // A log without a lifecycle column: each validation scheduled, then completed, both as 'Validate'.
    const rng = new Rng(8);
    const events: WireEvent[] = [];
    for (let c = 0; c < 300; c++) {
      const steps = ['Submit', 'Validate', 'Validate', rng.next() < 0.7 ? 'Approve' : 'Deny'];
      steps.forEach((a, i) => events.push({ caseId: `w${c}`, eventId: `w${c}-${i}`, activity: a, timestamp: new Date(Date.UTC(2024, 0, 1) + c * 3_600_000 + i * 600_000 * (1 + (c % 7))).toISOString() }));
    }
    const store = freshStore();
    store.apply({ records: events });
    const doc = buildDocument(store.snapshot());
    expect(doc.sequence_rules.filter((x) => x.id.startsWith('later-turn-'))).toEqual([]);
  });
});
