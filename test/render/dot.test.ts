import { execFileSync, spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GraphDocument } from '../../engine/document/types.js';
import { renderDot } from '../../engine/render/index.js';
import { documentOf, scratchDir, simulatedLog } from './helpers.js';

type Attrs = Record<string, string>;
interface Parsed {
  kind: string;
  nodes: Map<string, Attrs>;
  edges: { from: string; to: string; attrs: Attrs }[];
  clusters: string[];
}

/**
 * A strict parser for the DOT language's statements (graph, node, edge and
 * attribute statements, subgraphs, ID = ID), enough to prove the text is a
 * digraph and to read back its nodes and edges. Throws on anything else.
 */
function parseDot(text: string): Parsed {
  const tokens: { t: 'id' | 'p'; v: string }[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) i++;
    else if (text.startsWith('//', i)) i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (text.startsWith('->', i)) {
      tokens.push({ t: 'p', v: '->' });
      i += 2;
    } else if ('{}[]=;,'.includes(c)) {
      tokens.push({ t: 'p', v: c });
      i++;
    } else if (c === '"') {
      let v = '';
      i++;
      while (text[i] !== '"') {
        if (i >= text.length) throw new Error('unterminated string');
        if (text[i] === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) {
          v += text[i + 1];
          i += 2;
        } else v += text[i++];
      }
      i++;
      tokens.push({ t: 'id', v });
    } else {
      const m = /^(-?(\.\d+|\d+(\.\d*)?)|[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)/.exec(text.slice(i));
      if (!m) throw new Error(`unexpected '${c}' at ${i}`);
      tokens.push({ t: 'id', v: m[0] });
      i += m[0].length;
    }
  }
  let k = 0;
  const peek = () => tokens[k];
  const take = (v?: string) => {
    const tok = tokens[k++];
    if (!tok || (v !== undefined && tok.v !== v)) throw new Error(`expected ${v ?? 'a token'} at token ${k - 1}, got ${tok?.v}`);
    return tok;
  };
  const id = () => {
    const tok = take();
    if (tok.t !== 'id') throw new Error(`expected an ID, got '${tok.v}'`);
    return tok.v;
  };
  const out: Parsed = { kind: '', nodes: new Map(), edges: [], clusters: [] };
  const attrList = (): Attrs => {
    const a: Attrs = {};
    while (peek()?.v === '[') {
      take('[');
      while (peek()?.v !== ']') {
        const key = id();
        take('=');
        a[key] = id();
        if (peek()?.v === ',' || peek()?.v === ';') take();
      }
      take(']');
    }
    return a;
  };
  const stmts = () => {
    take('{');
    while (peek()?.v !== '}') {
      const tok = peek()!;
      if (tok.v === 'subgraph' || tok.v === '{') {
        if (tok.v === 'subgraph') {
          take();
          if (peek()?.t === 'id') out.clusters.push(id());
        }
        stmts();
      } else if (['graph', 'node', 'edge'].includes(tok.v) && tokens[k + 1]?.v === '[') {
        take();
        attrList();
      } else {
        const first = id();
        if (peek()?.v === '=') {
          take('=');
          id();
        } else if (peek()?.v === '->') {
          const chain = [first];
          while (peek()?.v === '->') {
            take('->');
            chain.push(id());
          }
          const attrs = attrList();
          for (let j = 1; j < chain.length; j++) out.edges.push({ from: chain[j - 1]!, to: chain[j]!, attrs });
        } else {
          const attrs = attrList();
          out.nodes.set(first, { ...(out.nodes.get(first) ?? {}), ...attrs });
        }
      }
      if (peek()?.v === ';') take(';');
    }
    take('}');
  };
  out.kind = id();
  if (peek()?.t === 'id') id();
  stmts();
  if (k !== tokens.length) throw new Error('text after the graph');
  return out;
}

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
