import { execFileSync, spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GraphDocument } from '../../engine/document/types.js';
import { renderDot } from '../../engine/render/index.js';
import { parseDot } from './dot-parse.js';
import { documentOf, scratchDir, simulatedLog } from './helpers.js';

describe('DOT map', () => {
  let doc: GraphDocument;
  let dot: string;
  const dir = scratchDir();
  beforeAll(async () => {
    doc = await documentOf(await simulatedLog(dir));
    dot = renderDot(doc);
  });

  it('parses as a digraph with one node per document node and one edge per document edge', () => {
    const g = parseDot(dot);
    expect(g.kind).toBe('digraph');
    expect([...g.nodes.keys()].sort()).toEqual(doc.nodes.map((n) => n.id).sort());
    expect(g.edges).toHaveLength(doc.edges.length);
    expect(g.edges.map((e) => `${e.from}->${e.to}`)).toEqual(doc.edges.map((e) => `${e.from}->${e.to}`));
    expect(dot).toMatch(/rankdir=LR/);
  });

  it('labels nodes and edges with their cases and styles edges by kind', () => {
    const g = parseDot(dot);
    for (const n of doc.nodes) {
      const a = g.nodes.get(n.id)!;
      expect(a.label).toBe(n.kind === 'activity' ? `${n.label}\\n${n.cases} ${n.cases === 1 ? 'case' : 'cases'}` : `${n.label}\\n${n.cases}`);
      expect(a.class).toBe(n.kind);
    }
    expect(g.nodes.get('start')!.shape).toBe('circle');
    expect(g.nodes.get('end')!.shape).toBe('doublecircle');
    const style: Record<string, string> = { normal: 'solid', allowed: 'solid', rework: 'dashed', skip: 'dotted', exception: 'dashed', escalation: 'bold' };
    doc.edges.forEach((e, j) => {
      const a = g.edges[j]!.attrs;
      expect(a.label).toBe(String(e.cases));
      expect(a.class).toBe(e.kind);
      expect(a.style).toBe(style[e.kind]);
    });
    // order-to-cash has rework (Manager Approval back to Check Credit) and an escalation.
    expect(doc.edges.some((e) => e.kind === 'rework')).toBe(true);
    expect(g.edges.filter((e) => e.attrs.class === 'rework').every((e) => e.attrs.constraint === 'false')).toBe(true);
  });

  it('fills the nodes of each stage with its own colour, without clusters', () => {
    const g = parseDot(dot);
    expect(g.clusters).toEqual([]);
    const fills = doc.stages.map((s) => new Set(doc.nodes.filter((n) => n.stage === s.id).map((n) => g.nodes.get(n.id)!.fillcolor)));
    for (const f of fills) expect(f.size).toBe(1);
    expect(new Set(fills.map((f) => [...f][0])).size).toBe(Math.min(doc.stages.length, 6));
  });

  it('escapes quotes and backslashes in names', () => {
    const odd = structuredClone(doc);
    odd.nodes[1]!.label = 'Say "hi" \\ then\nleave';
    const g = parseDot(renderDot(odd));
    expect(g.nodes.get(odd.nodes[1]!.id)!.label!.startsWith('Say "hi" \\ then\\nleave')).toBe(true);
  });

  const hasDot = spawnSync('dot', ['-V']).status === 0;
  it.runIf(hasDot)('is read by Graphviz itself when it is installed', () => {
    const svg = execFileSync('dot', ['-Tsvg'], { input: dot, encoding: 'utf8' });
    expect(svg.match(/<g id="node\d+" class="node/g)).toHaveLength(doc.nodes.length);
    expect(svg.match(/<g id="edge\d+" class="edge/g)).toHaveLength(doc.edges.length);
  });
});
