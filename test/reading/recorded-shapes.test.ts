import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importLog } from '../../connectors/files/index.js';
import { buildDocument, type GraphDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { freshStore } from '../engine/helpers.js';

/**
 * Shapes a blind review of unseen logs found misread (issue 31), each with its truth stated: a simulator's clock that
 * ticks in fixed steps, a case attribute that drives the decisions, the commonest ending named as a failure, a row
 * number, times at the Unix epoch, a plain 'resource' key, an outcome recorded in words, and steps that start as the
 * step before them ends.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const H = 3_600_000;
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function docOf(events: readonly WireEvent[]): GraphDocument {
  const store = freshStore();
  for (let i = 0; i < events.length; i += 5000) store.apply({ records: events.slice(i, i + 5000) });
  return buildDocument(store.snapshot());
}
async function docOfXes(traces: string[]): Promise<GraphDocument> {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-recorded-'));
  dirs.push(dir);
  const path = join(dir, 'log.xes');
  writeFileSync(path, `<?xml version="1.0" encoding="UTF-8"?><log xes.version="1.0">${traces.join('')}</log>`);
  const store = freshStore();
  await importLog(store, path, {});
  return buildDocument(store.snapshot());
}

/**
 * A loan log from a simulator: every wait is one of two fixed delays (22.2 h, or 25 h for the flagged group), the
 * flagged group is denied an appointment four times as often, most loans end denied, and a row number rides along.
 */
function lendingLog(start: number): { events: WireEvent[]; flagged: number } {
  const events: WireEvent[] = [];
  let row = 0;
  let flagged = 0;
  for (let c = 0; c < 600; c++) {
    const group = c % 3 === 0;
    if (group) flagged++;
    const delay = (group ? 25 : 22.2) * H;
    const denied = group ? c % 9 === 0 || c % 9 === 3 : c % 10 === 1;
    const path = ['Request Appointment', denied ? 'Appointment Denied' : 'Set Appointment'];
    if (!denied) path.push('Verify Information', c % 5 === 0 ? 'Sign Agreement' : 'Loan Denied');
    let t = start + c * 600_000;
    path.forEach((activity, i) => {
      if (i > 0) t += delay;
      events.push({ caseId: `L${c}`, eventId: `L${c}-${i}`, activity, timestamp: t, attributes: { 'case:group': group, '@@index': row++ } });
    });
  }
  return { events, flagged };
}

describe('what the data records, read as recorded', () => {
  const { events } = lendingLog(Date.UTC(2015, 0, 5));
  const doc = docOf(events);

  it('a clock ticking in fixed steps: no escalation, timeout, timing policy or service level from it', () => {
    expect(doc.assumptions.find((a) => typeof a === 'string' && a.startsWith('Clock:'))).toMatch(/of the hand-offs come after one of a few fixed waits \(22, 25 hours/);
    expect(doc.escalations).toEqual([]);
    expect(doc.edges.filter((e) => e.kind === 'escalation')).toEqual([]);
    expect(doc.policies.filter((p) => p.kind === 'timing' || p.kind === 'service_level')).toEqual([]);
    expect(doc.success_criteria.map((c) => c.id)).not.toContain('within-service-level');
  });

  it('a case attribute left out of rules is named as a lead where it goes with other branches, never as "not recorded"', () => {
    const q = doc.open_questions.map((x) => (typeof x === 'object' && !Array.isArray(x) ? String((x as { question: string }).question) : '')).find((x) => x.startsWith("After 'Request Appointment'"));
    expect(q).toContain("'case:group', an attribute of the whole case left out of rules");
    // 66 of 200 flagged cases set an appointment (two in three denied), 360 of 400 others (one in ten denied).
    expect(q).toContain("goes with 'Set Appointment' in 90% of the 400 cases with false against 33% of the 200 with true");
    const d = doc.decisions.find((x) => x.at === 'Request Appointment')!;
    expect(d.evidence.method).toContain("attributes of the whole case were not tried ('case:group')");
    expect(d.evidence.method).not.toContain('the log does not record what decides');
  });

  it('the commonest ending is how the process ends, not an exception, and a row number makes no rule', () => {
    expect(doc.outcomes.find((o) => o.end_activity === 'Loan Denied')?.kind).toBe('failure');
    expect(doc.exceptions.map((e) => e.name)).not.toContain("ends with 'Loan Denied'");
    expect(doc.exceptions.map((e) => e.name)).toContain("ends with 'Appointment Denied'");
    expect(JSON.stringify(doc.decisions)).not.toContain('@@index');
    // The failures are named; the ending without a verdict in its name may be the success, and the objective says so.
    expect(doc.process.objective).toMatch(/^not recorded as a success: the log names only failures .*though cases also end at 'Sign Agreement' \(\d+\), which give no verdict in their names/);
  });

  it('a step saved again seconds later is one entry written twice: no rework, no repeated-step exception', () => {
    const twice = events.flatMap((e) => (e.activity === 'Verify Information' && Number(e.caseId.slice(1)) % 3 === 1 ? [e, { ...e, eventId: `${e.eventId}-again`, timestamp: Number(e.timestamp) + 20_000 }] : [e]));
    const d = docOf(twice);
    const loop = d.edges.find((e) => e.from === e.to && d.nodes.find((n) => n.id === e.from)?.label === 'Verify Information')!;
    expect(loop.cases).toBeGreaterThan(100);
    expect(loop.kind).toBe('allowed');
    expect(loop.evidence.method).toContain('repeats within a minute in 100% of its direct repeats: entries written twice, not rework');
    expect(d.exceptions.map((e) => e.id)).not.toContain('repeated-verify-information');
  });

  it('two sites doing the same steps: a step is done instead of its twin, not instead of the step before it', () => {
    const twins: WireEvent[] = [];
    for (let c = 0; c < 200; c++) {
      const site = c % 10 < 6 ? 'S' : 'B';
      ['incoming claim', `${site} check`, `${site} register`, 'determine likelihood', 'close claim'].forEach((activity, i) =>
        twins.push({ caseId: `T${c}`, eventId: `T${c}-${i}`, activity, timestamp: Date.UTC(2024, 0, 1) + c * H + i * 600_000 }),
      );
    }
    const d = docOf(twins);
    for (const r of d.sequence_rules) expect(r.activities.slice(0, -1), r.statement).not.toContain(r.activities[r.activities.length - 1]);
    const rules = d.sequence_rules.map((r) => r.statement);
    // Each of B's steps stands for its twin at S, the register too (its step before is done at either site): the
    // nearest precedence names the registers of both sites.
    expect(rules).toContain("'determine likelihood' happens only after 'S register' or 'B register'.");
    // A step of one site follows that site's steps, not "either".
    expect(rules).toContain("'B register' happens only after 'B check'.");
    expect(rules.filter((r) => r.startsWith("'B register' happens only after 'S check'"))).toEqual([]);
  });

  it('a reminder a week after the invoice, while most payments come later still, is a habit, not a timeout', () => {
    const invoices: WireEvent[] = [];
    for (let c = 0; c < 300; c++) {
      const t0 = Date.UTC(2024, 0, 1) + c * H;
      const reminded = c % 3 === 0;
      // Reminders at one week to the hour; payments spread over one to five weeks, most after a week.
      const next = reminded ? ['send reminder', 170 * H + (c % 7) * 60_000] : ['pay', (200 + (c % 40) * 15) * H];
      invoices.push({ caseId: `I${c}`, eventId: `I${c}-0`, activity: 'send invoice', timestamp: t0 }, { caseId: `I${c}`, eventId: `I${c}-1`, activity: next[0] as string, timestamp: t0 + (next[1] as number) });
      if (reminded) invoices.push({ caseId: `I${c}`, eventId: `I${c}-2`, activity: 'pay', timestamp: t0 + 400 * H });
    }
    expect(docOf(invoices).escalations.filter((e) => e.id.startsWith('timeout-'))).toEqual([]);
  });

  it('times at the Unix epoch are relative: said so', () => {
    const epoch = docOf(lendingLog(0).events);
    expect(epoch.assumptions.join('\n')).toMatch(/the first event is at 1970-01-01T00:00:00.000Z, in the first year of the Unix epoch/);
    expect(doc.assumptions.join('\n')).not.toMatch(/Unix epoch/);
  });

  it("a plain 'resource' key is the resource; an outcome in words is recorded, not absent; a step starting as the one before ends is no tie", async () => {
    const outcomes = ['processed', 'rejected', 'not liable'];
    const traces = Array.from({ length: 90 }, (_, c) => {
      let t = Date.UTC(2024, 2, 4, 8) + c * H;
      const steps = ['Register Claim', 'Assess Claim', 'Close Claim'].map((name, i) => {
        const from = t;
        t += (i + 1) * 600_000;
        // Each step starts the moment the one before it completes: a chain, its order that of time.
        // Each reviewer's verdict rides on the assessment: results of the case's parts, not its outcome. The closing
        // clerk is not recorded (the XES default '__INVALID__').
        const at = (tr: string, time: number) => `<event><string key="concept:name" value="${esc(name)}"/><string key="lifecycle:transition" value="${tr}"/><string key="resource" value="${i === 0 ? 'Clerk A' : i === 1 ? (c % 2 ? 'Handler B' : 'Handler C') : '__INVALID__'}"/><date key="time:timestamp" value="${new Date(time).toISOString()}"/>${tr === 'complete' && i === 2 ? `<string key="outcome" value="${outcomes[c % 3]}"/>` : ''}${i === 1 && tr === 'complete' ? `<string key="Result by Reviewer A" value="${c % 2 ? 'accept' : 'reject'}"/><string key="Result by Reviewer B" value="${c % 3 ? 'accept' : 'reject'}"/>` : ''}</event>`;
        return at('start', from) + at('complete', t);
      });
      return `<trace><string key="concept:name" value="claim-${c}"/>${steps.join('')}</trace>`;
    });
    const claims = await docOfXes(traces);
    expect(claims.roles.length).toBeGreaterThan(0);
    expect(claims.roles.flatMap((r) => r.activities)).toContain('Assess Claim');
    expect(claims.assumptions).toContain("Outcome attribute: 'outcome' records how cases ended, in words: 'not liable' (30), 'processed' (30), 'rejected' (30); which of these are successes the log does not say.");
    expect(claims.open_questions.map((x) => JSON.stringify(x)).join('\n')).not.toContain('The log records no verdict');
    // The objective (a success-named step every case passes is none: it ends them all) says where the outcome is.
    expect(claims.process.objective).toBe("recorded in 'outcome' ('not liable' 30, 'processed' 30, 'rejected' 30), not by the endings' names: which of its values are successes the log does not say");
    expect(claims.assumptions.join('\n')).toContain('Data quality: no two consecutive steps of a case share a timestamp');
    expect(claims.assumptions.join('\n')).not.toContain('Result by Reviewer');
    expect(JSON.stringify(claims.roles)).not.toContain('__INVALID__');
  });
});
