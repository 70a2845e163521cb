import { PcgError, registerWireError, type ErrorEntry } from '../engine/error-base.js';

/**
 * The operator's error registry: the conditions that end a command (`pcg serve` before it listens, `pcg backup`,
 * a bad command line), each with the process's exit code. The HTTP registry is api/errors.ts; a command that meets
 * an engine or file error prints its code and exits with `engine_refused` / `file_refused`'s code (api/cli/main.ts,
 * api/cli/inspect.ts). test/api/error-tables.test.ts holds every row to an exit code.
 */
export const operatorErrorTable = {
  usage: { exit: 2, retriable: false, message: 'the command line is not valid: printed with the usage' },
  config_invalid: { exit: 2, retriable: false, message: 'a setting (variable or flag) is not valid' },
  startup_failed: { exit: 1, retriable: false, message: 'the data directory cannot be used (missing, locked, unwritable, too new)' },
  catalog_too_new: { exit: 1, retriable: false, message: 'the catalog was written by a newer pcg' },
  descriptor_limit: { exit: 1, retriable: false, message: 'the process may not open enough files for the stores and connections configured' },
  file_unusable: { exit: 1, retriable: false, message: 'a file the command reads or writes cannot be used' },
  file_refused: { exit: 1, retriable: false, message: "a log file was refused by its reader (the reader's code is printed)" },
  engine_refused: { exit: 1, retriable: false, message: "the engine refused (its code is printed)" },
  not_a_data_dir: { exit: 1, retriable: false, message: 'the folder is not a pcg data directory' },
  backup_out_exists: { exit: 1, retriable: false, message: 'the backup target exists' },
  backup_inside_data_dir: { exit: 1, retriable: false, message: 'the backup target is inside the data directory' },
  backup_unreadable: { exit: 1, retriable: false, message: 'the backup cannot be read' },
  backup_invalid: { exit: 1, retriable: false, message: 'the backup is not a pcg backup' },
  backup_too_new: { exit: 1, retriable: false, message: 'the backup was written by a newer pcg' },
  backup_incomplete: { exit: 1, retriable: false, message: 'the backup lacks files its manifest lists' },
  checksum_mismatch: { exit: 1, retriable: false, message: "a file of the backup does not match its manifest's checksum" },
  copy_failed: { exit: 1, retriable: true, message: 'a file could not be copied (the message names it and the system error)' },
  restore_target_in_use: { exit: 1, retriable: true, message: 'a running pcg holds the restore target' },
  restore_target_not_empty: { exit: 1, retriable: false, message: 'the restore target holds files' },
  restore_target_not_dir: { exit: 1, retriable: false, message: 'the restore target is not a folder' },
} as const satisfies Record<string, ErrorEntry & { exit: number }>;

export type OperatorErrorCode = keyof typeof operatorErrorTable;

/** The exit code of a condition of the registry. */
export const exitCode = (code: OperatorErrorCode): number => operatorErrorTable[code].exit;

/** A condition that ends a command: one line for the operator, its exit code from the registry. */
export class OperatorError<C extends OperatorErrorCode = OperatorErrorCode> extends PcgError<C> {
  override name = 'OperatorError';
  constructor(code: C, message: string) {
    super(code, message, { retriable: operatorErrorTable[code].retriable });
  }
  get exit(): number {
    return operatorErrorTable[this.code].exit;
  }
}
registerWireError('OperatorError', OperatorError, (w) => new OperatorError(w.code as OperatorErrorCode, w.message));
