import { parseArgs, type ParseArgsConfig } from 'node:util';
import { registerWireError } from '../../engine/error-base.js';
import { OperatorError } from '../exit-codes.js';

/**
 * One subcommand of `pcg`. Each lives in its own file under api/cli/ and is
 * loaded lazily, so `pcg simulate` never pays for the HTTP server's imports.
 */
export interface Command {
  /** One line for `pcg --help`. */
  summary: string;
  /** The full text for `pcg <name> --help`. */
  usage: string;
  /** Writes a data directory or backups: runs under a private umask (owner-only files; api/data-dir.ts). */
  keepsData?: boolean;
  /** Options as node:util parseArgs takes them; `help` is added for every command. */
  options: NonNullable<ParseArgsConfig['options']>;
  /** Runs with parsed values and positionals; returns the exit code. */
  run(values: Record<string, string | boolean | string[] | boolean[] | undefined>, positionals: string[], io: Io): Promise<number>;
}

/** Where a command writes; tests pass buffers, the binary passes the process streams. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Where a progress bar may be drawn (the process's stderr); a test's Io has none, so it draws nothing. */
  terminal?: Terminal;
}

/** A stream a progress bar is drawn on: drawn only when it is a terminal. */
export interface Terminal {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  terminal: process.stderr,
};

/** Thrown for bad command-line input: printed with the usage, exit code 2. */
export class UsageError extends OperatorError<'usage'> {
  override name = 'UsageError';
  constructor(message: string) {
    super('usage', message);
  }
}
registerWireError('UsageError', UsageError, (w) => new UsageError(w.message));

export function parseCommandArgs(command: Command, argv: string[]) {
  return parseArgs({
    args: argv,
    options: { ...command.options, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
}
