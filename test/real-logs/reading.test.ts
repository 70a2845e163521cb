import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importLog } from '../../connectors/files/index.js';
import { buildDocument, validateDocument, type GraphDocument } from '../../engine/document/index.js';
import { ProjectStore } from '../../engine/index.js';
import { isPlaceholderStep } from '../../engine/reading/placeholder-steps.js';
import { realLogs } from '../tools/pm4py.js';
import { classicLogs, optionsFor, storeName } from './manifest.js';

/**
 * The reading on the real logs: every document validates and keeps the
 * reading's own invariants; on the textbook running example the decision
 * after the examination steps is checked against a hand count of the file.
 * The logs over 100k events are left to document.test.ts.
 */
// Made only when the suite runs: a skipped file runs no afterAll.
const work = realLogs ? mkdtempSync(join(tmpdir(), 'pcg-real-reading-')) : '';
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function documentOf(file: string): Promise<GraphDocument> {
  const store = ProjectStore.open(join(work, storeName(file)));
  try {
    await importLog(store, join(realLogs!, file), optionsFor(file));
    return buildDocument(store.snapshot());
  } finally {
    store.close();
  }
}

/** The running example read by regex: per trace, activity names in time order. */
function tracesOf(xes: string): string[][] {
  return xes
    .split('<trace>')
    .slice(1)
    .map((t) =>
      t
        .split('<event>')
        .slice(1)
        .map((e) => ({
          name: /key="concept:name" value="([^"]*)"/.exec(e)![1]!,
          time: Date.parse(/key="time:timestamp" value="([^"]*)"/.exec(e)![1]!),
        }))
        .sort((a, b) => a.time - b.time)
        .map((e) => e.name),
    );
}

describe.skipIf(!realLogs)('the reading of real logs', () => {
  it.each(classicLogs(100_000).map((r) => r.file))('%s: a valid document whose reading keeps its invariants', async (file) => {
    const doc = await documentOf(file);
    expect(validateDocument(doc)).toEqual({ ok: true, problems: [] });
    expect(doc.outcomes.reduce((n, o) => n + o.cases, 0)).toBe(doc.source.cases);
    const staged = doc.stages.flatMap((s) => s.activities.map(String)).sort();
    // Every activity has a stage but a placeholder step ('Unmatched'), which names no step (placeholder-steps.ts).
    expect(staged).toEqual(doc.nodes.filter((n) => n.kind === 'activity' && !isPlaceholderStep(n.label)).map((n) => n.label).sort());
    for (const d of doc.decisions) {
      expect(d.branches.length).toBeGreaterThanOrEqual(2);
      expect(d.baseline_share).toBe(Math.max(...d.branches.map((b) => b.share)));
    }
    for (const e of doc.edges) expect(e.evidence.method).toContain(`kind: ${e.kind}`);
  }, 600_000);

  it('running-example: the decision after the examination steps, by hand', async () => {
    const doc = await documentOf('pm4py/running-example.xes');
    const traces = tracesOf(readFileSync(join(realLogs!, 'pm4py/running-example.xes'), 'utf8'));
    expect(traces).toHaveLength(6);
    // By hand from the file: 9 visits of 'decide', each after one of the examination steps, then 3 x each branch.
    const before = new Map<string, number>();
    const after = new Map<string, Set<number>>();
    traces.forEach((t, c) =>
      t.forEach((a, i) => {
        if (a !== 'decide') return;
        before.set(t[i - 1]!, (before.get(t[i - 1]!) ?? 0) + 1);
        const s = after.get(t[i + 1]!) ?? new Set<number>();
        after.set(t[i + 1]!, s.add(c));
      }),
    );
    expect([...before.keys()].sort()).toEqual(['check ticket', 'examine casually', 'examine thoroughly']);
    expect(new Map([...after].map(([a, s]) => [a, s.size]))).toEqual(new Map([['pay compensation', 3], ['reinitiate request', 2], ['reject request', 3]]));
    // A decision is read at the first visit: what follows each case's first 'decide'.
    const first = new Map<string, number>();
    for (const t of traces) {
      const next = t[t.indexOf('decide') + 1]!;
      first.set(next, (first.get(next) ?? 0) + 1);
    }
    expect(first).toEqual(new Map([['pay compensation', 2], ['reinitiate request', 2], ['reject request', 2]]));

    const d = doc.decisions.find((x) => x.at === 'decide')!;
    expect(d).toBeDefined();
    expect(d.branches).toEqual([
      { to: 'pay compensation', cases: 2, share: 1 / 3 },
      { to: 'reinitiate request', cases: 2, share: 1 / 3 },
      { to: 'reject request', cases: 2, share: 1 / 3 },
    ]);
    expect(d.baseline_share).toBeCloseTo(1 / 3, 12);
    expect(d.explained).toBe(false);
    const into = doc.edges.filter((e) => e.to === doc.nodes.find((n) => n.label === 'decide')!.id).map((e) => doc.nodes.find((n) => n.id === e.from)!.label);
    expect(into.sort()).toEqual(['check ticket', 'examine casually', 'examine thoroughly']);
    const kinds = new Map(doc.outcomes.map((o) => [o.end_activity, [o.kind, o.cases]]));
    expect(kinds).toEqual(new Map([['pay compensation', ['success', 3]], ['reject request', ['failure', 3]]]));
    expect(doc.process.case_represents).toBe("one request (a reading of activity names), identified by 'concept:name'");
  }, 120_000);
});
