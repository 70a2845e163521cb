import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../connectors/simulator/random.js';
import { importLog, inspectLog } from '../../connectors/files/index.js';
import { buildDocument, type GraphDocument } from '../../engine/document/index.js';
import { auditDocument } from '../document/audit.js';
import { freshDir, freshStore } from '../engine/helpers.js';

/**
 * A log of order only (issue 31), shaped as such exports are made: a ticket system writes one row per step, case by
 * case as steps are appended, with no time column (only the order of rows says which step came after which); rows of
 * different cases interleave. Truth: each case's steps are in file order; the log says nothing of waits, durations,
 * service levels or escalations; some cases have not finished. Once with names, once with opaque codes.
 */
const NAMES = { open: 'Open Ticket', triage: 'Triage', fix: 'Fix', verify: 'Verify', close: 'Close Ticket' };
const CODES = { open: 'K1', triage: 'K2', fix: 'K3', verify: 'K4', close: 'K5' };

function orderLog(hidden: boolean): { csv: string; paths: Map<string, string[]> } {
  const a = hidden ? CODES : NAMES;
  const rng = new Rng(8);
  const paths = new Map<string, string[]>();
  for (let c = 0; c < 240; c++) {
    const p = [a.open, a.triage, a.fix, a.verify];
    while (rng.next() < 0.3) p.push(a.fix, a.verify);
    // The last 20 tickets are still open: cut after a random step.
    if (c >= 220) p.splice(1 + Math.floor(rng.next() * 3));
    else p.push(a.close);
    paths.set(`T${1000 + c}`, p);
  }
  // Interleave: rows are written as the steps happen across tickets, each ticket's own steps in its order.
  const cursor = new Map([...paths.keys()].map((k) => [k, 0]));
  const rows = ['case_id,activity,resource'];
  const open = [...paths.keys()];
  while (open.length) {
    const i = Math.floor(rng.next() * Math.min(open.length, 12));
    const id = open[i]!;
    const k = cursor.get(id)!;
    rows.push(`${id},${paths.get(id)![k]},agent-${1 + Math.floor(rng.next() * 6)}`);
    cursor.set(id, k + 1);
    if (k + 1 === paths.get(id)!.length) open.splice(i, 1);
  }
  return { csv: `${rows.join('\n')}\n`, paths };
}

describe.each([false, true])('a log of order only, without a time column (names hidden: %s)', (hidden) => {
  const { csv, paths } = orderLog(hidden);
  const read = async () => {
    const file = join(freshDir(), 'tickets.csv');
    writeFileSync(file, csv);
    const store = freshStore();
    await importLog(store, file);
    return { doc: buildDocument(store.snapshot()), store, file };
  };

  it('is read, each case in file order, and inspect says it has no times', async () => {
    const { doc, store, file } = await read();
    expect(doc.source).toMatchObject({ cases: 240, events: [...paths.values()].reduce((n, p) => n + p.length, 0), period_start: '', period_end: '' });
    for (const t of store.traces()) expect(t.map((e) => e.activity)).toEqual(paths.get(t[0]!.caseId));
    const summary = await inspectLog(file);
    expect(summary).toMatchObject({ cases: 240, period_start: null, period_end: null, times: expect.stringMatching(/^none: /) });
    expect((summary.columns as Record<string, unknown>).timestamp).toBeNull();
  });

  it('claims nothing of time, says so once, and audits clean', async () => {
    const { doc, store } = await read();
    const d: GraphDocument = doc;
    expect(d.policies.filter((p) => p.kind === 'timing' || p.kind === 'service_level')).toEqual([]);
    expect(d.escalations).toEqual([]);
    expect(d.edges.every((e) => e.median_wait_hours === 0 && e.slow_wait_hours === 0)).toBe(true);
    expect(d.policies.filter((p) => p.kind === 'sequence').every((p) => p.evidence.strength === 'weak')).toBe(true);
    const said = d.assumptions.filter((x) => /the log records the order of the steps, not when they happened/.test(String(x)));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('no timing policy, service level, escalation or timeout is read');
    expect(d.assumptions.some((x) => /Unix epoch/.test(String(x)))).toBe(false);
    expect([...auditDocument(doc, store.traces())]).toEqual([]);
  });

  it('reads where tickets end from the counts: the close is an ending, and no stopped ticket is called open', async () => {
    const { doc } = await read();
    // Without times no case's age can be read: the 220 closed tickets end at the close, the 20 cut after a random
    // step are asked about, not called open (nor abandoned).
    const close = hidden ? CODES.close : NAMES.close;
    expect(doc.outcomes.filter((o) => o.end_activity === close).reduce((n, o) => n + o.cases, 0)).toBe(220);
    expect(doc.outcomes.filter((o) => o.kind === 'open')).toEqual([]);
    const asked = doc.open_questions.map((q) => String((q as { question: string }).question)).find((q) => q.includes('stopped outside any ending'));
    expect(asked).toBe('Are the 20 cases that stopped outside any ending unfinished, or abandoned? The log records no times, so it cannot tell.');
  });
});
