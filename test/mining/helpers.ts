import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseTree, printTree, safeLabel, treeDefect, type ProcessTree } from '../../engine/mining/index.js';
import { runPm4py } from '../tools/pm4py.js';

/**
 * What every mined tree must be: no operator without children, no loop
 * without a redo part (treeDefect names the first such place, so a failure
 * says where), and its printed text reads back as the very same tree.
 */
export function expectSoundTree(tree: ProcessTree): void {
  expect(treeDefect(tree)).toBeUndefined();
  // Read back as the same tree, each label as the tree writes it (safeLabel: a quote or line break pm4py cannot write).
  expect(parseTree(printTree(tree))).toEqual(asWritten(tree));
}

/** The tree with each label as printTree writes it. */
function asWritten(t: ProcessTree): ProcessTree {
  if (t.kind === 'activity') return { kind: 'activity', label: safeLabel(t.label) };
  if (t.kind === 'tau') return t;
  return { kind: t.kind, children: t.children.map(asWritten) } as ProcessTree;
}

// pm4py's own parser for its string syntax; str() of the parsed tree is its printer, which quotes
// labels only below an operator (a lone leaf prints bare), so a lone leaf is printed here.
const PARSE_ALL = `
import sys, json
from pm4py.objects.process_tree.utils.generic import parse
# pm4py's parser recurses once per nesting level (and more): deep trees of long logs pass the default limit.
sys.setrecursionlimit(100000)
def printed(tree):
    if tree.operator is not None:
        return str(tree)
    return 'tau' if tree.label is None else "'" + tree.label + "'"
failures = []
for text in json.load(open(sys.argv[1], encoding='utf8')):
    try:
        back = printed(parse(text))
        if back != text:
            failures.append({'text': text, 'error': 'printed back as ' + back})
    except Exception as e:
        failures.append({'text': text, 'error': type(e).__name__ + ': ' + str(e)})
print(json.dumps(failures))
`;

/**
 * The tree texts pm4py cannot parse, or does not print back unchanged, with
 * its error: one python call for the whole batch (pm4py's import alone takes
 * seconds). `dir`: a scratch folder for the batch file.
 */
export function pm4pyParseFailures(texts: readonly string[], dir: string): { text: string; error: string }[] {
  const file = join(dir, `trees-${process.pid}-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(texts));
  return runPm4py<{ text: string; error: string }[]>(PARSE_ALL, [file]);
}
