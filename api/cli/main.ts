import { EngineError } from '../../engine/errors.js';
import { visibleText } from '../../engine/render/safe-text.js';
import { parseCommandArgs, processIo, UsageError, type Command, type Io } from './command.js';
import { isMainThread } from 'node:worker_threads';
import { PRIVATE_UMASK } from '../file-modes.js';
import { exitCode } from '../exit-codes.js';

/** Every subcommand, loaded on demand. */
const commands: Record<string, () => Promise<{ command: Command }>> = {
  simulate: () => import('./simulate.js'),
  inspect: () => import('./inspect.js'),
  import: () => import('./import.js'),
  graph: () => import('./graph.js'),
  diff: () => import('./diff.js'),
  schema: () => import('./schema.js'),
  validate: () => import('./validate.js'),
  serve: () => import('./serve.js'),
  worker: () => import('./worker.js'),
  mcp: () => import('./mcp.js'),
  backup: () => import('./backup.js'),
  restore: () => import('./restore.js'),
  prune: () => import('./prune.js'),
};

async function loadable(): Promise<[string, Command][]> {
  const found: [string, Command][] = [];
  for (const [name, load] of Object.entries(commands)) {
    try {
      found.push([name, (await load()).command]);
    } catch (error) {
      // A command whose module is missing is left off the list rather than breaking the others.
      if (!(error instanceof Error && /Cannot find module|Failed to load|ERR_MODULE_NOT_FOUND/.test(String(error)))) throw error;
    }
  }
  return found;
}

async function overview(io: Io): Promise<void> {
  const lines = ['Usage: pcg <command> [options]', '', 'Commands:'];
  for (const [name, c] of await loadable()) lines.push(`  ${name.padEnd(10)} ${c.summary}`);
  lines.push('', 'Run `pcg <command> --help` for the options of one command.', '');
  io.out(lines.join('\n'));
}

/**
 * The Io a command runs with: its messages (stderr) carry file names, column
 * names and activities from the data, so every control character in them is
 * shown escaped (engine/render/safe-text.ts) and none acts on the terminal.
 * Standard output is left as it is: what a command prints there is a
 * rendered format (already safe) or JSON written with jsonText, which must
 * stay exact; the few lines of text that echo data escape it themselves.
 * The progress bar draws on `terminal`, with its own control sequences.
 */
export function messagesShown(io: Io): Io {
  return { ...io, err: (text) => io.err(visibleText(text)) };
}

export async function main(argv: string[], given: Io = processIo): Promise<number> {
  const io = messagesShown(given);
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    await overview(io);
    return name === undefined ? 2 : 0;
  }
  const load = commands[name];
  if (!load) {
    io.err(`pcg: unknown command '${name}'\n`);
    await overview(io);
    return 2;
  }
  const { command } = await load();
  try {
    const { values, positionals } = parseCommandArgs(command, rest);
    if (values.help) {
      io.out(command.usage.endsWith('\n') ? command.usage : `${command.usage}\n`);
      return 0;
    }
    // Every tenant's events, the catalog and backups are the owner's alone, whatever the shell's umask.
    // (A thread cannot set it: runOnThread sets it for the commands it runs there.)
    if (command.keepsData && isMainThread) process.umask(PRIVATE_UMASK);
    return await command.run(values, positionals, io);
  } catch (error) {
    if (error instanceof UsageError || (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
      io.err(`pcg ${name}: ${error.message}\n\n${command.usage}\n`);
      return exitCode('usage');
    }
    if (error instanceof EngineError) {
      io.err(`pcg ${name}: ${error.code}: ${error.message}\n`);
      return exitCode('engine_refused');
    }
    throw error;
  }
}
