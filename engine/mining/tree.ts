import { EngineError } from '../errors.js';

/**
 * A process tree (van der Aalst / Leemans): leaves are activities or the silent
 * step tau; `sequence`, `xor` (exclusive choice), `parallel` (interleaving of
 * the children) and `loop` (first child is the body, the others the redo
 * parts: body (redo body)*).
 */
export type ProcessTree =
  | { kind: 'activity'; label: string }
  | { kind: 'tau' }
  | { kind: 'sequence' | 'xor' | 'parallel' | 'loop'; children: ProcessTree[] };

export type Operator = 'sequence' | 'xor' | 'parallel' | 'loop';

const symbol: Record<Operator, string> = { sequence: '->', xor: 'X', parallel: '+', loop: '*' };

export const tau = (): ProcessTree => ({ kind: 'tau' });
export const leaf = (label: string): ProcessTree => ({ kind: 'activity', label });
export const node = (kind: Operator, children: ProcessTree[]): ProcessTree => ({ kind, children });

/**
 * pm4py's parser ends a label at the next single quote and reads line breaks
 * as spaces, and it knows no escape. So a quote inside a label is printed as
 * the typographic apostrophe U+2019 and a line break as a space: the printed
 * tree always parses, and `safeLabel(activity)` maps an activity to its label.
 */
export function safeLabel(label: string): string {
  return label.replace(/'/g, '\u2019').replace(/\r\n|\r|\n/g, ' ');
}

/** pm4py's process tree syntax: `->( 'a', X( 'b', tau ), +( 'c', 'd' ), *( 'e', tau ) )`. */
export function printTree(tree: ProcessTree): string {
  switch (tree.kind) {
    case 'activity':
      return `'${safeLabel(tree.label)}'`;
    case 'tau':
      return 'tau';
    default:
      return `${symbol[tree.kind]}( ${tree.children.map(printTree).join(', ')} )`;
  }
}

/** Reads pm4py's syntax back (the four operators above; `tau` or `τ` for silent steps). */
export function parseTree(text: string): ProcessTree {
  let i = 0;
  const fail = (what: string): never => {
    throw new EngineError('invalid_argument', `process tree: ${what} at offset ${i}`);
  };
  const skip = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const parse = (): ProcessTree => {
    skip();
    if (text[i] === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) fail('unterminated label');
      const label = text.slice(i + 1, close);
      i = close + 1;
      return leaf(label);
    }
    if (text.startsWith('tau', i)) {
      i += 3;
      return tau();
    }
    if (text[i] === '\u03c4') {
      i += 1;
      return tau();
    }
    let kind: Operator | undefined;
    for (const [k, s] of Object.entries(symbol) as [Operator, string][]) {
      if (text.startsWith(s, i)) {
        kind = k;
        i += s.length;
        break;
      }
    }
    if (!kind) return fail('expected a label, tau or an operator');
    skip();
    if (text[i] !== '(') fail("expected '('");
    i++;
    const children: ProcessTree[] = [];
    for (;;) {
      children.push(parse());
      skip();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ')') {
        i++;
        break;
      }
      fail("expected ',' or ')'");
    }
    return node(kind, children);
  };
  const tree = parse();
  skip();
  if (i !== text.length) fail('unexpected text after the tree');
  return tree;
}

/**
 * Normal form (as pm4py's fold): nested operators of one kind flattened, an
 * operator with one child replaced by it, silent steps removed from sequences
 * and parallels, at most one tau per choice.
 */
export function foldTree(tree: ProcessTree): ProcessTree {
  if (tree.kind === 'activity' || tree.kind === 'tau') return tree;
  let children = tree.children.map(foldTree);
  if (tree.kind === 'loop') return node('loop', children);
  children = children.flatMap((c) => (c.kind === tree.kind ? (c as { children: ProcessTree[] }).children : [c]));
  if (tree.kind === 'sequence' || tree.kind === 'parallel') {
    children = children.filter((c) => c.kind !== 'tau');
    if (children.length === 0) return tau();
  } else {
    const firstTau = children.findIndex((c) => c.kind === 'tau');
    children = children.filter((c, j) => c.kind !== 'tau' || j === firstTau);
  }
  return children.length === 1 ? children[0]! : node(tree.kind, children);
}

/**
 * The first structural defect of a tree, as a path of child indices from the
 * root (`/2/0`) and what is wrong there; undefined when there is none. An
 * operator needs a child (pm4py's parser refuses `X( )`), and a loop a body
 * and at least one redo part. The miner never builds such a tree on purpose:
 * a defect means a branch of it went wrong (see checkTree).
 */
export function treeDefect(tree: ProcessTree): string | undefined {
  const walk = (t: ProcessTree, path: string): string | undefined => {
    if (t.kind === 'activity' || t.kind === 'tau') return undefined;
    if (t.children.length === 0) return `${path || '/'}: ${symbol[t.kind]} has no children`;
    if (t.kind === 'loop' && t.children.length < 2) return `${path || '/'}: * has a body but no redo part`;
    for (let i = 0; i < t.children.length; i++) {
      const d = walk(t.children[i]!, `${path}/${i}`);
      if (d) return d;
    }
    return undefined;
  };
  return walk(tree, '');
}

/**
 * The tree itself, or an internal error when treeDefect finds one: a plain
 * Error, not an EngineError, since no input of the caller's can cause it and
 * no caller should map it to a user-facing code.
 */
export function checkTree(tree: ProcessTree): ProcessTree {
  const defect = treeDefect(tree);
  if (defect) throw new Error(`internal error: malformed process tree at ${defect}: ${printTree(tree).slice(0, 300)}`);
  return tree;
}

/** Activity labels of a tree, in order of first appearance. */
export function treeLabels(tree: ProcessTree): string[] {
  const out: string[] = [];
  const walk = (t: ProcessTree) => {
    if (t.kind === 'activity') out.push(t.label);
    else if (t.kind !== 'tau') t.children.forEach(walk);
  };
  walk(tree);
  return [...new Set(out)];
}
