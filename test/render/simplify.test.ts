import { beforeAll, describe, expect, it } from 'vitest';
import { groundTruth } from '../../connectors/simulator/index.js';
import type { GraphDocument } from '../../engine/document/types.js';
import { DEFAULT_PATHS, DEFAULT_SHOWN_ACTIVITIES, defaultSimplification, hiddenText, simplify } from '../../engine/render/simplify.js';
import { documentOf, scratchDir, simulatedLog } from './helpers.js';
import { mapProblems } from './map-checks.js';

const models = ['order-to-cash', 'patient-care', 'helpdesk', 'claims', 'freight'];

describe('simplify: one rule for every picture of the map', () => {
  const docs = new Map<string, GraphDocument>();
  const dir = scratchDir();
  beforeAll(async () => {
    for (const m of models) docs.set(m, await documentOf(await simulatedLog(dir, m, 400, 3)));
  });

  it('keeps the whole document at 100 % and 100 %', () => {
    for (const doc of docs.values()) {
      const s = simplify(doc, { activities: 100, paths: 100 });
      expect(s.nodes).toEqual(doc.nodes.map((n) => n.id));
      expect(s.edges).toEqual(doc.edges.map((e) => e.id));
      expect(s.hidden).toMatchObject({ activities: 0, paths: 0, eventsShare: 0, casesShare: 0 });
      expect(hiddenText(s)).toBe('');
    }
  });

  it('leaves no kept node cut off at any slider position: every one is reached from start and reaches end over kept edges', () => {
    for (const [model, doc] of docs) {
      const activities = doc.nodes.filter((n) => n.kind === 'activity');
      for (const a of [0, 10, 25, 50, 75, 100]) {
        for (const p of [0, 5, 20, 50, 100]) {
          const s = simplify(doc, { activities: a, paths: p });
          const where = `${model} at ${a} % / ${p} %`;
          expect(mapProblems(doc, s), where).toEqual([]);
          // At least the asked share stays.
          const kept = activities.filter((n) => s.nodes.includes(n.id));
          expect(kept.length, where).toBeGreaterThanOrEqual(Math.max(1, Math.round((a / 100) * activities.length)));
        }
      }
    }
  });

  it("hides the model's rare steps and keeps its frequent branches (order-to-cash, stated truth)", () => {
    const doc = docs.get('order-to-cash')!;
    const truth = groundTruth('order-to-cash');
    const s = simplify(doc, { activities: 50, paths: 0 });
    const label = new Map(doc.nodes.map((n) => [n.id, n.label]));
    const kept = new Set(s.nodes.map((id) => label.get(id)));
    // The exceptions' own steps (cancelled, returned) and the escalation's reminder are hidden ...
    for (const x of truth.exceptions) for (const a of x.activities.filter((a) => a !== 'Close Order')) expect(kept.has(a), a).toBe(false);
    for (const x of truth.escalations) expect(kept.has(x.activity), x.activity).toBe(false);
    // ... the start and the successful end stay, and at each decision the branch most cases take.
    expect(kept.has(truth.startActivity)).toBe(true);
    for (const a of truth.endActivities.success) expect(kept.has(a)).toBe(true);
    expect(kept.has('Auto Approval')).toBe(true);
    expect(kept.has('Manager Approval')).toBe(false);
    expect(kept.has('Carrier A Pickup')).toBe(true); // 60 % of the shipments
    expect(kept.has('Carrier B Pickup')).toBe(false);
    const activities = doc.nodes.filter((n) => n.kind === 'activity');
    expect(s.hidden.activities).toBe(6);
    expect(s.hidden.ofActivities).toBe(activities.length);
    expect(hiddenText(s)).toMatch(/^Hidden: 6 of 17 activities \(\d+(\.\d)?% of the events\) and \d+ of \d+ paths \(\d+(\.\d)?% of the cases counted on paths\)\.$/);
    // Every kept activity keeps at least one edge in and one out, though 0 % of the paths were asked for.
    for (const id of s.nodes) {
      const n = doc.nodes.find((x) => x.id === id)!;
      const edges = doc.edges.filter((e) => s.edges.includes(e.id) && e.from !== e.to);
      if (n.kind !== 'start') expect(edges.some((e) => e.to === id), n.label).toBe(true);
      if (n.kind !== 'end') expect(edges.some((e) => e.from === id), n.label).toBe(true);
    }
  });

  it('opens with every activity up to 15, else the 15 most frequent, and 20 % of the paths', () => {
    const doc = docs.get('order-to-cash')!;
    expect(DEFAULT_SHOWN_ACTIVITIES).toBe(15);
    expect(DEFAULT_PATHS).toBe(20);
    // 17 activities: 89 % of them (15; the percent rounded up).
    expect(defaultSimplification(doc)).toEqual({ activities: 89, paths: 20 });
    expect(doc.nodes.filter((n) => n.kind === 'activity')).toHaveLength(17);
    expect(defaultSimplification(docs.get('freight')!)).toEqual({ activities: 100, paths: 20 });
    const many = { nodes: Array.from({ length: 120 }, () => ({ kind: 'activity' })) } as unknown as GraphDocument;
    expect(defaultSimplification(many)).toEqual({ activities: 13, paths: 20 });
    // 398 activities (BPIC 2015): 4 %, 16 of them, never fewer than 15.
    for (const n of [16, 17, 27, 30, 40, 120, 398, 1000]) {
      const d = { nodes: Array.from({ length: n }, (_, i) => ({ id: `a${i}`, kind: 'activity', cases: n - i, events: n - i })), edges: [] } as unknown as GraphDocument;
      const kept = simplify(d, defaultSimplification(d)).nodes.length;
      expect(kept, `${n} activities`).toBeGreaterThanOrEqual(15);
      expect(kept, `${n} activities`).toBeLessThanOrEqual(20);
    }
    const s = simplify(doc, defaultSimplification(doc));
    expect(s.nodes.length - 2).toBeGreaterThanOrEqual(15);
  });

  it('reads out-of-range percentages as the nearest end', () => {
    const doc = docs.get('freight')!;
    expect(simplify(doc, { activities: 250, paths: Number.NaN })).toEqual(simplify(doc, { activities: 100, paths: 100 }));
    expect(simplify(doc, { activities: -5, paths: -1 })).toEqual(simplify(doc, { activities: 0, paths: 0 }));
  });
});
