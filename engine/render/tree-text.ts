/**
 * The process tree printed over indented lines, one operator or label a line
 * where a line would grow long: a deep tree in pm4py's syntax is one line of
 * over a thousand characters nobody can read. The text stays pm4py's syntax
 * (line breaks and spaces are whitespace to its parser), so it can be copied.
 */
import { parseTree, printTree, type ProcessTree } from '../mining/tree.js';

/** An operator whose whole text fits in this many characters stays on one line. */
export const TREE_LINE = 72;

const symbol = { sequence: '->', xor: 'X', parallel: '+', loop: '*' } as const;

function lines(tree: ProcessTree, indent: string, out: string[], tail: string): void {
  const flat = printTree(tree);
  if (tree.kind === 'activity' || tree.kind === 'tau' || indent.length + flat.length + tail.length <= TREE_LINE) {
    out.push(`${indent}${flat}${tail}`);
    return;
  }
  out.push(`${indent}${symbol[tree.kind]}(`);
  tree.children.forEach((c, i) => lines(c, `${indent}  `, out, i < tree.children.length - 1 ? ',' : ''));
  out.push(`${indent})${tail}`);
}

/** The tree text indented; a text that is not a tree in pm4py's syntax is returned as it is. */
export function indentedTree(text: string): string {
  let tree: ProcessTree;
  try {
    tree = parseTree(text);
  } catch {
    return text;
  }
  const out: string[] = [];
  lines(tree, '', out, '');
  return out.join('\n');
}
