import { beforeAll, describe, expect, it } from 'vitest';
import type { GraphDocument } from '../../engine/document/types.js';
import { escapeHtml, hiddenText, layoutDocument, renderHtml, simplify } from '../../engine/render/index.js';
import { documentOf, scratchDir, simulatedLog } from './helpers.js';

const asPercent = (share: number) => `${Math.round(share * 1000) / 10}%`;

describe('HTML page', () => {
  const docs = new Map<string, GraphDocument>();
  const dir = scratchDir();
  beforeAll(async () => {
    for (const model of ['order-to-cash', 'claims', 'helpdesk', 'patient-care', 'freight']) docs.set(model, await documentOf(await simulatedLog(dir, model, 300, 5)));
  });

  it('is one self-contained file: no URL of any host, no external script, style, font or image', () => {
    for (const doc of docs.values()) {
      const html = renderHtml(doc);
      expect(html.startsWith('<!doctype html>')).toBe(true);
      expect(html).not.toMatch(/https?:\/\//i);
      expect(html).not.toMatch(/\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
      expect(html).not.toMatch(/<(script|img|iframe|link)\b[^>]*\b(src|href)=/i);
      expect(html).not.toMatch(/@import|url\((?!#)/i);
      expect(html.match(/<script>/g)).toHaveLength(1);
    }
  });

  it('draws one node shape per document node and one edge per document edge', () => {
    for (const doc of docs.values()) {
      const html = renderHtml(doc);
      expect(html.match(/<svg\b/g)).toHaveLength(1);
      const nodes = [...html.matchAll(/<g class="node (start|end|activity)" data-id="([^"]*)"/g)];
      expect(nodes.map((m) => m[2]).sort()).toEqual(doc.nodes.map((n) => escapeHtml(n.id)).sort());
      expect(html.match(/<rect /g)).toHaveLength(doc.nodes.filter((n) => n.kind === 'activity').length);
      expect(html.match(/<circle /g)).toHaveLength(doc.nodes.filter((n) => n.kind !== 'activity').length);
      const edges = [...html.matchAll(/<g class="edge (\w+)" data-id="[^"]*" data-from="([^"]*)" data-to="([^"]*)" data-cases="(\d+)">/g)];
      expect(edges.map((m) => [m[1], m[2], m[3], Number(m[4])])).toEqual(doc.edges.map((e) => [e.kind, escapeHtml(e.from), escapeHtml(e.to), e.cases]));
      for (const e of doc.edges) expect(html).toContain(`>${e.cases}</text></g>`);
    }
  });

  it('opens the map simplified by a view, states the hidden share and carries the whole map behind a button', () => {
    for (const doc of docs.values()) {
      const view = { activities: 30, paths: 0 };
      const kept = simplify(doc, view);
      const html = renderHtml(doc, view);
      const [simple, whole] = html.split('<svg class="process-map whole-map"');
      expect(whole).toBeDefined();
      const ids = (text: string) => [...text.matchAll(/<g class="node (?:start|end|activity)" data-id="([^"]*)"/g)].map((m) => m[1]);
      expect(ids(simple!).sort()).toEqual(kept.nodes.map(escapeHtml).sort());
      expect(ids(whole!).sort()).toEqual(doc.nodes.map((n) => escapeHtml(n.id)).sort());
      expect(kept.nodes.length).toBeLessThan(doc.nodes.length);
      const edges = [...simple!.matchAll(/<g class="edge \w+" data-id="([^"]*)"/g)].map((m) => m[1]);
      expect(edges.sort()).toEqual(kept.edges.map(escapeHtml).sort());
      expect(html).toContain(`Simplified (activities 30%, paths 0%): ${escapeHtml(hiddenText(kept))}`);
      expect(html).toContain('<button id="whole" type="button" aria-pressed="false">Show the whole map</button>');
      expect(html).not.toContain('id="rare"');
    }
  });

  it("carries the report's sections with the document's figures", () => {
    const doc = docs.get('order-to-cash')!;
    const html = renderHtml(doc);
    for (const id of ['map', 'case', 'outcomes', 'stages', 'main-path', 'variants', 'decisions', 'policies', 'exceptions', 'data-quality']) expect(html).toContain(`<section id="${id}">`);
    const main = doc.variants.find((v) => v.class === 'main')!;
    expect(html).toContain(`<p>${escapeHtml(main.path.join(' → '))}</p>`);
    expect(html).toContain(`<td class="num">1</td><td>${main.class}</td><td class="num">${main.cases}</td><td class="num">${asPercent(main.share)}</td>`);
    for (const s of doc.stages) expect(html).toContain(escapeHtml(s.name));
  });

  it('lays nodes out left to right without overlaps, start first and end last', () => {
    for (const [model, doc] of docs) {
      const layout = layoutDocument(doc);
      expect(layout.nodes, model).toHaveLength(doc.nodes.length);
      expect(layout.edges, model).toHaveLength(doc.edges.length);
      for (const n of layout.nodes) for (const v of [n.x, n.y, n.w, n.h]) expect(Number.isFinite(v)).toBe(true);
      for (const e of layout.edges) expect(e.d, model).not.toMatch(/NaN|Infinity/);
      const start = layout.nodes.find((n) => n.node.kind === 'start')!;
      const end = layout.nodes.find((n) => n.node.kind === 'end')!;
      for (const n of layout.nodes) {
        if (n !== start) expect(n.x, model).toBeGreaterThan(start.x);
        if (n !== end) expect(n.x, model).toBeLessThan(end.x);
      }
      for (const a of layout.nodes) {
        for (const b of layout.nodes) {
          if (a === b) continue;
          const apart = Math.abs(a.x - b.x) >= (a.w + b.w) / 2 || Math.abs(a.y - b.y) >= (a.h + b.h) / 2;
          expect(apart, `${model}: ${a.node.id} overlaps ${b.node.id}`).toBe(true);
        }
      }
      // Stage order is kept: no activity of a later stage stands left of the first column of an earlier one.
      const column = new Map(layout.nodes.map((n) => [n.node.id, n.layer]));
      const firstColumn = doc.stages.map((s) => Math.min(...doc.nodes.filter((n) => n.stage === s.id).map((n) => column.get(n.id)!)));
      for (let i = 1; i < firstColumn.length; i++) expect(firstColumn[i]!, model).toBeGreaterThanOrEqual(firstColumn[i - 1]!);
      // Columns follow the stages: every activity of a later stage stands right of every activity of an earlier one
      // (a late step reached early, by a skip or an exception, was drawn in an early column).
      const columnsOf = (s: { id: string }) => doc.nodes.filter((n) => n.stage === s.id).map((n) => column.get(n.id)!);
      for (let i = 1; i < doc.stages.length; i++) {
        const later = doc.stages.slice(i).flatMap(columnsOf);
        const earlier = doc.stages.slice(0, i).flatMap(columnsOf);
        if (later.length && earlier.length) expect(Math.min(...later), `${model}: stage ${doc.stages[i]!.name}`).toBeGreaterThan(Math.max(...earlier));
      }
      const [, , w, h] = layout.viewBox;
      expect(w).toBeGreaterThan(0);
      expect(h).toBeGreaterThan(0);
    }
  });

  it('escapes names in the page', () => {
    const doc = structuredClone(docs.get('claims')!);
    const a = doc.nodes.find((n) => n.kind === 'activity')!;
    a.label = '<b>Fraud & "Check"</b>';
    const html = renderHtml(doc);
    expect(html).not.toContain('<b>Fraud');
    expect(html).toContain('&lt;b&gt;Fraud &amp; &quot;Check&quot;&lt;/b&gt;');
  });
});
