import { beforeAll, describe, expect, it } from 'vitest';
import { groundTruth, simulate, type GroundTruth } from '../../connectors/simulator/index.js';
import { buildDocument, validateDocument, type GraphDocument } from '../../engine/document/index.js';
import { freshStore } from '../engine/helpers.js';

/**
 * The reading against the simulator's ground truth: every built-in model
 * states what drives its choices, its stages, rework loops, escalation,
 * service level and separation of duties; the document must find them.
 */
const CASES = 1500;

function documentOf(model: string, openShare: number): GraphDocument {
  const store = freshStore();
  const events = [...simulate({ model, cases: CASES, seed: 11, openShare })];
  for (let i = 0; i < events.length; i += 4000) store.apply({ records: events.slice(i, i + 4000) });
  return buildDocument(store.snapshot());
}

const edgeKind = (doc: GraphDocument, from: string, to: string) => {
  const id = (label: string) => doc.nodes.find((n) => n.label === label)?.id;
  return doc.edges.find((e) => e.from === id(from) && e.to === id(to))?.kind;
};

describe.each(['claims', 'helpdesk', 'order-to-cash'])('reading of the simulated %s log', (model) => {
  let doc: GraphDocument;
  let truth: GroundTruth;
  beforeAll(() => {
    truth = groundTruth(model);
    doc = documentOf(model, 0);
  });

  it('validates', () => {
    expect(validateDocument(doc)).toEqual({ ok: true, problems: [] });
  });

  it('finds the attribute that drives a choice, and no rule for a random one', () => {
    for (const d of truth.decisions) {
      const found = doc.decisions.find((x) => x.at === d.at);
      expect(found, `decision at ${d.at}`).toBeDefined();
      expect(found!.branches.map((b) => b.to).sort()).toEqual(expect.arrayContaining([...d.branches].sort()));
      if (d.rule) {
        expect(found!.explained).toBe(true);
        expect(found!.rules.length).toBeGreaterThan(0);
        for (const r of found!.rules) expect(r.when).toEqual([expect.objectContaining({ attribute: d.rule.attribute })]);
        const top = found!.branches[0]!;
        expect(found!.baseline_share).toBeCloseTo(top.share, 10);
        expect(found!.rules.every((r) => r.holds >= d.rule!.rate - 0.05)).toBe(true);
      } else {
        expect(found!.explained).toBe(false);
        for (const b of found!.branches) expect(b.share).toBeCloseTo(d.shares![b.to]!, 1);
      }
    }
  });

  it('returns the stages in the order of the model', () => {
    const truthStage = new Map(truth.activities.map((a) => [a.name, truth.stages.findIndex((s) => s.name === a.stage)]));
    const ours = new Map<string, number>();
    doc.stages.forEach((s, i) => s.activities.forEach((a) => ours.set(String(a), i)));
    expect(doc.stages.length).toBeGreaterThanOrEqual(3);
    // Every activity in exactly one stage, and the nodes carry it.
    const listed = doc.stages.flatMap((s) => s.activities.map(String));
    expect(listed.sort()).toEqual(doc.nodes.filter((n) => n.kind === 'activity').map((n) => n.label).sort());
    for (const n of doc.nodes.filter((x) => x.kind === 'activity')) expect(n.stage).toBe(doc.stages[ours.get(n.label)!]!.id);
    // Monotone: an activity of a later model stage never sits in an earlier stage.
    for (const [a, ta] of truthStage) {
      for (const [b, tb] of truthStage) if (ta < tb && ours.has(a) && ours.has(b)) expect(ours.get(a)!, `${a} before ${b}`).toBeLessThanOrEqual(ours.get(b)!);
    }
    expect(ours.get(truth.startActivity)).toBe(0);
  });

  it('marks the rework loops as rework edges', () => {
    for (const r of truth.rework) expect(edgeKind(doc, r.from, r.to), `${r.from} -> ${r.to}`).toBe('rework');
  });

  it('finds the injected escalation after long waits, and no other', () => {
    for (const e of truth.escalations) {
      const found = doc.escalations.find((x) => x.from === e.from && x.to === e.activity);
      expect(found, `${e.from} -> ${e.activity}`).toBeDefined();
      expect(found!.evidence.share).toBeGreaterThan(0.9);
      const hours = Number(/about ([\d.]+) hours/.exec(found!.trigger)![1]);
      expect(hours).toBeGreaterThanOrEqual(e.afterHours * 0.95);
      expect(hours).toBeLessThanOrEqual(e.afterHours * 1.1);
      expect(edgeKind(doc, e.from, e.activity)).toBe('escalation');
    }
    expect(doc.escalations).toHaveLength(truth.escalations.length);
  });

  it('finds the service level with the right threshold and share', () => {
    const sl = doc.policies.find((p) => p.kind === 'service_level')!;
    expect(sl.threshold_hours).toBeGreaterThan(truth.serviceLevel.hours * 0.93);
    expect(sl.threshold_hours).toBeLessThan(truth.serviceLevel.hours * 1.07);
    expect(Math.abs(sl.share_met - truth.serviceLevel.share)).toBeLessThan(0.03);
  });

  it('finds the separation of duties', () => {
    for (const s of truth.separation) {
      const [a, b] = [...s.activities].sort();
      const found = doc.policies.find((p) => p.kind === 'separation' && p.statement.includes(`'${a}'`) && p.statement.includes(`'${b}'`));
      expect(found, `${a} / ${b}`).toBeDefined();
      expect(found!.share_met).toBe(1);
      expect(found!.threshold_hours).toBe(0);
    }
  });

  it('reads the endings', () => {
    const kinds = new Map(doc.outcomes.map((o) => [o.end_activity, o.kind]));
    for (const a of truth.endActivities.success) expect(kinds.get(a)).toBe('success');
    for (const a of truth.endActivities.failure) expect(kinds.get(a)).toBe('failure');
    expect(doc.outcomes.reduce((n, o) => n + o.cases, 0)).toBe(doc.source.cases);
    expect(doc.process.case_represents).toContain(truth.caseRepresents.split(' ').pop()!.toLowerCase().replace(/s$/, ''));
    expect(doc.success_criteria.find((c) => c.id === 'success-ending')!.share_met).toBeGreaterThan(0.9);
  });
});

describe('open cases', () => {
  it('are the recent cases stopped outside the ends of finished cases; outcomes sum to all cases', () => {
    const doc = documentOf('helpdesk', 0.05);
    const open = doc.outcomes.filter((o) => o.kind === 'open');
    const openCases = open.reduce((n, o) => n + o.cases, 0);
    expect(openCases / doc.source.cases).toBeGreaterThan(0.02);
    expect(openCases / doc.source.cases).toBeLessThan(0.1);
    expect(open.map((o) => o.end_activity)).not.toContain('Close Ticket');
    expect(doc.outcomes.reduce((n, o) => n + o.cases, 0)).toBe(doc.source.cases);
    expect(validateDocument(doc).ok).toBe(true);
  });
});
