import { readFileSync } from 'node:fs';
import { oneLine } from '../../engine/render/safe-text.js';
import { UsageError, type Command } from './command.js';

export const command: Command = {
  summary: 'Check a graph document against its schema, printing every problem',
  usage: `Usage: pcg validate FILE

Checks that FILE (JSON; - for stdin) is a valid process context graph
document. Prints "valid", or one line per problem: its path (like
/edges/3/share_of_from) and what is wrong. Exit code 0 when valid, 1 when not.`,
  options: {},
  async run(_values, positionals, io) {
    if (positionals.length !== 1) throw new UsageError(positionals.length ? 'give exactly one FILE' : 'FILE is required');
    const file = positionals[0]!;
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
    } catch (error) {
      io.err(`pcg validate: ${file}: ${error instanceof SyntaxError ? `not JSON: ${error.message}` : String((error as Error).message)}\n`);
      return 1;
    }
    const { validateDocument } = await import('../../engine/document/index.js');
    const result = validateDocument(doc);
    if (result.ok) {
      io.out('valid\n');
      return 0;
    }
    // A path names the document's own keys and a message may quote its values: one line each, controls shown escaped.
    for (const p of result.problems) io.out(`${oneLine(`${p.path || '/'}: ${p.message}`)}\n`);
    io.err(`pcg validate: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}\n`);
    return 1;
  },
};
