/**
 * The errors of a backup or restore: a stable code and one line for the
 * operator (`pcg backup: <code>: …`), and the reading of a Node error's code.
 */

export type BackupErrorCode =
  | 'not_a_data_dir'
  | 'backup_out_exists'
  | 'backup_inside_data_dir'
  | 'backup_unreadable'
  | 'backup_invalid'
  | 'backup_too_new'
  | 'backup_incomplete'
  | 'checksum_mismatch'
  | 'copy_failed'
  | 'restore_target_in_use'
  | 'restore_target_not_empty'
  | 'restore_target_not_dir';

/** A backup or restore that cannot go on: one line for the operator, with a stable code. */
export class BackupError extends Error {
  override name = 'BackupError';
  constructor(
    readonly code: BackupErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const errno = (error: unknown): string => String((error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? error);

/** A file that cannot be read or written stops the backup, named. */
export function failed(rel: string, error: unknown): BackupError {
  if (error instanceof BackupError) return error;
  const e = error as { code?: string; message?: string };
  return new BackupError('copy_failed', `cannot copy ${rel} (${e.code ?? 'error'}: ${e.message ?? String(error)})`);
}
