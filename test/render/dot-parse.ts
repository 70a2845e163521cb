/** The DOT reader the render tests share (dot.test.ts, hostile-names.property.test.ts). */

export type Attrs = Record<string, string>;
export interface Parsed {
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
export function parseDot(text: string): Parsed {
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
