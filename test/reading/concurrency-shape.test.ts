import { describe, expect, it } from 'vitest';
import { buildDocument, type GraphDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { auditDocument } from '../document/audit.js';
import { freshStore } from '../engine/helpers.js';
import { claimLog, skipLog } from './concurrency-shape.js';

/**
 * Concurrency and tree loops (engine/reading/concurrency.ts) on simulated logs with a stated truth
 * (test/reading/concurrency-shape.ts), read with names and with opaque codes: two branches that neither waits for
 * are not sequenced (no hand-off kind, no timing policy or sequence rule, one stage, one behaviour whatever their
 * order), the redo loop's way back is rework and its repeats no exceptions; and a true sequence that sometimes skips
 * a step (and records it late in a few cases) is not read as parallel.
 */
function docOf(events: WireEvent[]) {
  const store = freshStore();
  store.apply({ records: events });
  const doc = buildDocument(store.snapshot());
  const audit = [...auditDocument(doc, store.traces())];
  // And the audit sees a wrong figure: a behaviour count one off, a pair's hand-offs one off, a loop turn one off.
  const wrongs: [RegExp, (m: string) => string][] = [
    [/make (\d+) behaviours/, (m) => `make ${Number(m) + 1} behaviours`],
    [/\((\d+) cases? '/, (m) => `(${Number(m) + 1} cases '`],
    [/visit in (\d+) of the/, (m) => `visit in ${Number(m) - 1} of the`],
  ];
  for (const [re, to] of wrongs) {
    const wrong = structuredClone(doc);
    const i = wrong.assumptions.findIndex((a) => typeof a === 'string' && re.test(a));
    if (i < 0) continue;
    wrong.assumptions[i] = (wrong.assumptions[i] as string).replace(re, (_, m: string) => to(m));
    if (auditDocument(wrong, store.traces()).length === 0) audit.push(`the audit missed a wrong figure: ${String(re)}`);
  }
  return { doc, audit };
}
const label = (doc: GraphDocument, id: string) => doc.nodes.find((n) => n.id === id)?.label ?? id;
const edge = (doc: GraphDocument, from: string, to: string) => doc.edges.find((e) => label(doc, e.from) === from && label(doc, e.to) === to);
const text = (doc: GraphDocument) => doc.assumptions.filter((a): a is string => typeof a === 'string').join('\n');

describe.each([false, true])('a claim log with a parallel block and a redo loop (names hidden: %s)', (hidden) => {
  const { events, truth, names } = claimLog({ hidden });
  const { doc, audit } = docOf(events);
  const block = [names.check, names.casual, names.thorough];

  it('mines the block as parallel and the loop with its redo step', () => {
    expect(doc.model.process_tree).toContain('+(');
    expect(doc.model.process_tree).toContain('*(');
    expect(truth.looping).toBeGreaterThan(100);
  });

  it('reads hand-offs between the branches as interleavings, not hand-offs', () => {
    for (const [a, b] of [[names.check, names.casual], [names.casual, names.check], [names.check, names.thorough], [names.thorough, names.check]] as const) {
      const e = edge(doc, a, b);
      expect(e, `${a} -> ${b}`).toBeDefined();
      expect(e!.kind).toBe('allowed');
      expect(e!.evidence.method).toContain('interleaving, not a hand-off');
    }
    // The hand-offs into and out of the block stay hand-offs.
    expect(edge(doc, names.register, names.check)?.evidence.method).not.toContain('interleaving');
    expect(edge(doc, names.check, names.decide)?.evidence.method).not.toContain('interleaving');
  });

  it('states no timing policy or sequence rule between the branches', () => {
    const pair = (acts: readonly string[]) => acts.includes(names.check) && (acts.includes(names.casual) || acts.includes(names.thorough));
    expect(doc.sequence_rules.filter((r) => pair(r.activities.map(String))).map((r) => r.id)).toEqual([]);
    const ids = doc.policies.map((p) => p.id);
    for (const a of block) for (const b of block) expect(ids.filter((id) => id.endsWith(`-${a.toLowerCase().replace(/ /g, '-')}-${b.toLowerCase().replace(/ /g, '-')}`))).toEqual([]);
  });

  it('puts the block in one stage', () => {
    const stageOf = (a: string) => doc.stages.find((s) => s.activities.includes(a))?.id;
    expect(stageOf(names.casual)).toBe(stageOf(names.check));
    expect(stageOf(names.thorough)).toBe(stageOf(names.check));
  });

  it('counts variants differing only in the order of the branches as one behaviour', () => {
    expect(truth.behaviours).toBeLessThan(truth.variants);
    const line = text(doc).split('\n').find((a) => a.startsWith('Concurrency:'))!;
    expect(line).toContain(`the ${truth.variants} variants make ${truth.behaviours} behaviours, the commonest of ${truth.topBehaviour} cases`);
  });

  it('reads the loop: its way back is rework, its repeats are turns, not exceptions', () => {
    expect(edge(doc, names.decide, names.reinitiate)?.kind).toBe('rework');
    for (const b of block) expect(edge(doc, names.reinitiate, b)?.kind, `${names.reinitiate} -> ${b}`).toBe('rework');
    expect(doc.exceptions.filter((x) => x.id.startsWith('repeated-')).map((x) => x.name)).toEqual([]);
    expect(text(doc)).toContain(`'${names.decide}' again after the loop's redo step '${names.reinitiate}' (through that part of the mined tree's loop between the 1st and 2nd visit in ${truth.looping} of the ${truth.looping} cases`);
    expect(doc.open_questions.map((x) => JSON.stringify(x)).filter((x) => x.includes('repeated'))).toEqual([]);
  });

  it('passes the audit', () => {
    expect(audit).toEqual([]);
  });
});

describe.each([false, true])('a true sequence that sometimes skips a step (names hidden: %s)', (hidden) => {
  const { events, names } = skipLog({ hidden });
  const { doc, audit } = docOf(events);

  it('reads nothing as concurrent', () => {
    expect(text(doc)).toContain('Concurrency: no two activities run concurrently');
    expect(doc.edges.filter((e) => e.evidence.method.includes('interleaving'))).toEqual([]);
    expect(edge(doc, names.approve, names.ship)?.kind).toBe('normal');
    expect(edge(doc, names.ship, names.invoice)?.kind).toBe('normal');
  });

  it('keeps the order of the sequence as a rule', () => {
    expect(doc.policies.some((p) => p.id.startsWith('sequence-') || p.id.startsWith('timing-'))).toBe(true);
    expect(doc.sequence_rules.some((r) => r.activities.map(String).includes(names.ship) && r.activities.map(String).includes(names.invoice))).toBe(true);
  });

  it('passes the audit', () => {
    expect(audit).toEqual([]);
  });
});
