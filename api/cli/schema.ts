import type { Command } from './command.js';

export const command: Command = {
  summary: 'Print the JSON Schema of the process context graph document',
  usage: `Usage: pcg schema

Prints the JSON Schema (draft 2020-12) of the graph document that
\`pcg graph\` writes: schema service.process-context-graph, version 1.0.`,
  options: {},
  async run(_values, positionals, io) {
    if (positionals.length) {
      io.err('pcg schema: takes no arguments\n');
      return 2;
    }
    const { documentJsonSchema } = await import('../../engine/document/index.js');
    io.out(`${JSON.stringify(documentJsonSchema(), null, 2)}\n`);
    return 0;
  },
};
