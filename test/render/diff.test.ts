import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GraphDocument } from '../../engine/document/types.js';
import { diffDocuments, diffSections, renderDiffText } from '../../engine/render/index.js';
import { documentOf, scratchDir, simulatedLog, withExtraActivity } from './helpers.js';

describe('document diff', () => {
  let before: GraphDocument;
  let after: GraphDocument;
  const dir = scratchDir();
  beforeAll(async () => {
    const log = await simulatedLog(dir);
    const more = join(dir, 'more.ndjson');
    withExtraActivity(log, more, 'Archive Order');
    before = await documentOf(log);
    after = await documentOf(more);
  });

  it('finds nothing between a document and itself', () => {
    const d = diffDocuments(before, structuredClone(before));
    expect(d.same).toBe(true);
    for (const s of diffSections) {
      expect(d.sections[s]).toMatchObject({ added: [], removed: [], changed: [] });
      expect(d.summary[s]).toEqual({ added: 0, removed: 0, changed: 0, unchanged: d.sections[s].unchanged });
    }
    expect(d.summary.nodes.unchanged).toBe(before.nodes.length);
    expect(d.summary.edges.unchanged).toBe(before.edges.length);
    expect(d.summary.variants.unchanged).toBe(before.variants.length);
    expect(renderDiffText(d).trim().split('\n').at(-1)).toBe('No differences.');
  });

  it('reports the node of one more activity as added, with its edges and cases', () => {
    const d = diffDocuments(before, after);
    expect(d.same).toBe(false);
    const node = after.nodes.find((n) => n.label === 'Archive Order')!;
    expect(node.cases).toBe(100); // every fourth of the 400 cases
    expect(d.sections.nodes.added).toEqual([{ key: node.id, label: 'Archive Order', fields: expect.objectContaining({ kind: 'activity', cases: 100 }) }]);
    expect(d.sections.nodes.removed).toEqual([]);
    const newEdges = after.edges.filter((e) => e.from === node.id || e.to === node.id);
    expect(d.sections.edges.added.map((e) => e.key).sort()).toEqual(newEdges.map((e) => e.id).sort());
    for (const e of newEdges) expect(d.sections.edges.added.find((a) => a.key === e.id)!.fields).toEqual({ kind: e.kind, cases: e.cases });
    // Cases that now go on to Archive Order no longer end at Close Order.
    const closeEnd = d.sections.edges.changed.find((c) => c.key === 'close-order->end')!;
    expect(closeEnd.changes.cases).toEqual({
      before: before.edges.find((e) => e.id === 'close-order->end')!.cases,
      after: after.edges.find((e) => e.id === 'close-order->end')!.cases,
    });
    expect(d.sections.outcomes.added.map((o) => o.key)).toContain('success-archive-order');
    expect(d.sections.sequence_rules.added.length).toBeGreaterThan(0);
    expect(d.before.events).toBe(before.source.events);
    expect(d.after.events).toBe(before.source.events + 100);

    const text = renderDiffText(d, { before: 'a.json', after: 'b.json' });
    expect(text).toContain(`nodes: 1 added, 0 removed, ${d.summary.nodes.changed} changed, ${d.summary.nodes.unchanged} unchanged`);
    expect(text).toContain('  + Archive Order (100 cases)');
    expect(text).toContain(`  ~ Close Order → end: cases ${closeEnd.changes.cases!.before} → ${closeEnd.changes.cases!.after}`);
    expect(text).toContain(`source: events ${before.source.events} → ${before.source.events + 100}`);
  });

  it('reads the other way as removed', () => {
    const d = diffDocuments(after, before);
    expect(d.sections.nodes.removed.map((n) => n.label)).toEqual(['Archive Order']);
    expect(d.sections.nodes.added).toEqual([]);
    expect(renderDiffText(d)).toContain('  - Archive Order (100 cases)');
  });

  it('keeps a stable shape for agents', () => {
    const d = diffDocuments(before, after);
    expect(Object.keys(d)).toEqual(['schema', 'version', 'same', 'before', 'after', 'summary', 'sections']);
    expect(d.schema).toBe('pcg.document-diff');
    expect(d.version).toBe(1);
    expect(Object.keys(d.summary)).toEqual([...diffSections]);
    expect(Object.keys(d.sections)).toEqual([...diffSections]);
    expect(Object.keys(d.before)).toEqual(['data_version', 'log_digest', 'cases', 'events', 'period_end']);
    for (const s of diffSections) expect(Object.keys(d.sections[s])).toEqual(['added', 'removed', 'changed', 'unchanged']);
    // JSON round trip: nothing but plain values.
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
  });

  it('matches variants by path and stage by name, not by position', () => {
    const moved = structuredClone(before);
    moved.variants.reverse();
    moved.stages = moved.stages.map((s, i) => ({ ...s, id: `stage-${i + 7}` }));
    for (const n of moved.nodes) if (n.stage) n.stage = n.stage.replace(/\d+$/, (k) => String(Number(k) + 6));
    expect(diffDocuments(before, moved).same).toBe(true);
  });
});

describe('a document against itself', () => {
  let before: GraphDocument;
  const dir = scratchDir();
  beforeAll(async () => {
    before = await documentOf(await simulatedLog(dir));
  });

  it('is the same when one end activity ends cases as success, other and open alike (outcomes are paired by id)', async () => {
    const { simulate } = await import('../../connectors/simulator/index.js');
    const { freshStore } = await import('../engine/helpers.js');
    const { buildDocument } = await import('../../engine/document/index.js');
    const store = freshStore();
    // Open cases: an activity that ends some cases and is where others are still waiting.
    store.apply({ records: [...simulate({ model: 'claims', cases: 300, seed: 3, openShare: 0.3 })] });
    const doc = buildDocument(store.snapshot());
    const byEnd = new Map<string, number>();
    for (const o of doc.outcomes) byEnd.set(o.end_activity, (byEnd.get(o.end_activity) ?? 0) + 1);
    expect(Math.max(...byEnd.values())).toBeGreaterThan(1);
    const self = diffDocuments(doc, structuredClone(doc));
    expect(self.same).toBe(true);
    for (const s of diffSections) expect(self.summary[s]).toEqual({ added: 0, removed: 0, changed: 0, unchanged: sectionLength(doc, s) });
    expect(self.summary.outcomes.unchanged).toBe(doc.outcomes.length);

    // One outcome of an activity that ends cases in several ways changes: that one, and only it, is reported.
    const shared = [...byEnd].find(([, n]) => n > 1)![0];
    const target = doc.outcomes.find((o) => o.end_activity === shared && o.kind === 'open') ?? doc.outcomes.find((o) => o.end_activity === shared)!;
    const changed = structuredClone(doc);
    const moved = changed.outcomes.find((o) => o.id === target.id)!;
    moved.cases = target.cases + 5;
    const d = diffDocuments(doc, changed);
    expect(d.same).toBe(false);
    expect(d.sections.outcomes.changed).toEqual([{ key: target.id, label: shared, changes: { cases: { before: target.cases, after: target.cases + 5 } } }]);
    expect(d.summary.outcomes).toEqual({ added: 0, removed: 0, changed: 1, unchanged: doc.outcomes.length - 1 });
    for (const s of diffSections.filter((x) => x !== 'outcomes')) expect(d.summary[s]).toEqual({ added: 0, removed: 0, changed: 0, unchanged: sectionLength(doc, s) });
    expect(renderDiffText(d)).toContain(`  ~ ${shared}: cases ${target.cases} → ${target.cases + 5}`);
  });

  it('shows an outcome whose id now names another end activity (two names with one stem) as changed, not as the same', () => {
    const doc = structuredClone(before);
    const o = doc.outcomes[0]!;
    const renamed = structuredClone(doc);
    renamed.outcomes[0]!.end_activity = `${o.end_activity}!`;
    const d = diffDocuments(doc, renamed);
    expect(d.sections.outcomes.changed).toEqual([{ key: o.id, label: `${o.end_activity}!`, changes: { end_activity: { before: o.end_activity, after: `${o.end_activity}!` } } }]);
  });

  it('tells apart a key met twice in one document (by its rank), so a document is still the same as itself', () => {
    const doc = structuredClone(before);
    doc.outcomes.push({ ...doc.outcomes[0]!, cases: doc.outcomes[0]!.cases + 1 });
    const d = diffDocuments(doc, structuredClone(doc));
    expect(d.same).toBe(true);
    expect(d.summary.outcomes.unchanged).toBe(doc.outcomes.length);
  });

  it('has one key per element in every section of a real document (ids are unique)', () => {
    for (const s of diffSections) {
      const keys = diffDocuments(before, before).summary[s].unchanged;
      expect(keys).toBe(sectionLength(before, s));
    }
    const ids = before.outcomes.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

function sectionLength(doc: GraphDocument, s: (typeof diffSections)[number]): number {
  return (doc[s] as unknown[]).length;
}
