import { readFileSync, writeFileSync } from 'node:fs';
import type { GraphDocument } from '../../engine/document/types.js';
import { jsonText } from '../../engine/render/safe-text.js';
import { UsageError, type Command, type Io } from './command.js';

export const command: Command = {
  summary: 'Show what changed between two graph documents (nodes, edges, variants, rules, policies, outcomes)',
  usage: `Usage: pcg diff A.json B.json [--format text|json] [--out FILE]

Compares two process context graph documents (A before, B after; - reads one
of them from stdin) and prints what changed: nodes, edges, variants,
decisions, sequence rules, policies and outcomes that were added, removed or
changed, with their cases before → after. Elements are matched by id (nodes,
edges, sequence rules, policies, outcomes: one end activity can end cases
as a success, other and open, one outcome each), by path (variants), by
activity (decisions). Compared: node kind, label, stage (by name), cases, events and
repeating cases; edge kind and cases; variant class, cases and share; decision
branches, rules and whether they explain it; sequence rule type, statement and
holds; policy kind, statement, threshold and share met; outcome end activity,
kind, cases and share. Waits and other hours read from sketches are not compared. Exit code 0
whether or not anything changed; 1 when a file cannot be read or is no graph
document.

  --format F             text (default, for people) or json (for agents: a
                         stable shape, schema "pcg.document-diff" version 1,
                         with "same", per-section counts in "summary" and the
                         elements in "sections")
  --out FILE             write to FILE instead of stdout`,
  options: {
    format: { type: 'string' },
    out: { type: 'string' },
  },
  async run(values, positionals, io) {
    if (positionals.length !== 2) throw new UsageError(positionals.length < 2 ? 'give two documents: A.json B.json' : 'give exactly two documents');
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, not '${String(format)}'`);
    if (positionals[0] === '-' && positionals[1] === '-') throw new UsageError('only one of the two documents can be read from stdin');
    const docs: GraphDocument[] = [];
    for (const file of positionals) {
      const doc = await readDocument(file, io);
      if (!doc) return 1;
      docs.push(doc);
    }
    const { diffDocuments, renderDiffText } = await import('../../engine/render/diff.js');
    const diff = diffDocuments(docs[0]!, docs[1]!);
    const text = format === 'json' ? `${jsonText(diff, 2)}\n` : renderDiffText(diff, { before: positionals[0], after: positionals[1] });
    if (typeof values.out === 'string' && values.out !== '-') {
      try {
        writeFileSync(values.out, text);
      } catch (error) {
        io.err(`pcg diff: cannot write ${values.out}: ${(error as Error).message}\n`);
        return 1;
      }
    } else io.out(text);
    return 0;
  },
};

/** Reads and checks one document; on a problem prints one line and returns undefined. */
async function readDocument(file: string, io: Io): Promise<GraphDocument | undefined> {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (error) {
    io.err(`pcg diff: ${file}: ${error instanceof SyntaxError ? `not JSON: ${error.message}` : (error as Error).message}\n`);
    return undefined;
  }
  const { validateDocument } = await import('../../engine/document/index.js');
  const result = validateDocument(doc);
  if (!result.ok) {
    const first = result.problems[0];
    const more = result.problems.length > 1 ? ` (and ${result.problems.length - 1} more; pcg validate lists them)` : '';
    io.err(`pcg diff: ${file}: not a valid graph document: ${first ? `${first.path || '/'}: ${first.message}` : 'invalid'}${more}\n`);
    return undefined;
  }
  return doc as GraphDocument;
}
