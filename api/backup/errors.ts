/**
 * The errors of a backup or restore: a stable code and one line for the
 * operator (`pcg backup: <code>: …`), and the reading of a Node error's code.
 */
import { registerWireError } from '../../engine/error-base.js';
import { OperatorError, type OperatorErrorCode } from '../exit-codes.js';

/** The backup's rows of the operator's registry (api/exit-codes.ts). */
export type BackupErrorCode = Exclude<OperatorErrorCode, 'usage' | 'config_invalid' | 'startup_failed' | 'catalog_too_new' | 'descriptor_limit' | 'file_unusable' | 'file_refused' | 'engine_refused'>;

/** A backup or restore that cannot go on: one line for the operator, with a stable code. */
export class BackupError extends OperatorError<BackupErrorCode> {
  override name = 'BackupError';
}
registerWireError('BackupError', BackupError, (w) => new BackupError(w.code as BackupErrorCode, w.message));

export const errno = (error: unknown): string => String((error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? error);

/** A file that cannot be read or written stops the backup, named. */
export function failed(rel: string, error: unknown): BackupError {
  if (error instanceof BackupError) return error;
  const e = error as { code?: string; message?: string };
  return new BackupError('copy_failed', `cannot copy ${rel} (${e.code ?? 'error'}: ${e.message ?? String(error)})`);
}
