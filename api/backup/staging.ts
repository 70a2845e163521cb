import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { BackupError } from './errors.js';
import { syncDir } from './files.js';

/**
 * The directory a backup or restore writes: new or empty, never left
 * half-written (built under a hidden name and renamed, or emptied again on
 * failure).
 */

/**
 * Where a new directory's content is written: an existing empty directory is
 * filled in place; a missing one is built beside it under a hidden name and
 * renamed at the end, so it never exists half-written.
 */
export function freshTarget(target: string, mode: number | undefined, refuse: { notEmpty: (t: string) => BackupError; notDir: (t: string) => BackupError }): { work: string; staged: boolean } {
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) throw refuse.notDir(target);
    if (readdirSync(target).length > 0) throw refuse.notEmpty(target);
    return { work: target, staged: false };
  }
  mkdirSync(dirname(target), { recursive: true });
  const work = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, mode === undefined ? {} : { mode });
  return { work, staged: true };
}

/** Undoes a failed run: a staged directory goes; a target that was empty is emptied again. */
export function discard(work: string, staged: boolean): void {
  if (staged) return rmSync(work, { recursive: true, force: true });
  for (const name of readdirSync(work)) rmSync(join(work, name), { recursive: true, force: true });
}

export function finish(work: string, target: string, staged: boolean, nonEmpty: (target: string) => BackupError): void {
  syncDir(work);
  if (!staged) return;
  try {
    renameSync(work, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') throw nonEmpty(target);
    throw error;
  }
  syncDir(dirname(target));
}
