import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BackupError } from './errors.js';
import { copyFile, syncDir } from './files.js';
import { LOCK } from './layout.js';
import { readManifest, type Manifest } from './manifest.js';
import { discard, finish, freshTarget } from './staging.js';
import { ownerOnly } from '../file-modes.js';

/**
 * Restoring a backup (`pcg restore`): a new data directory from a backup's
 * files, each checked against the manifest's size and sha256.
 */

export interface RestoreResult {
  dataDir: string;
  manifest: Manifest;
  files: number;
  bytes: number;
  seconds: number;
}

/**
 * Rebuilds a data directory from a backup: `dataDir` must not exist or be an
 * empty directory (a `serve.lock` in it is refused first, by name). Every file
 * is copied and its size and sha256 checked against the manifest; on any
 * mismatch nothing is left behind. Start `pcg serve` on it once this returns.
 */
export function restoreDataDir(from: string, dataDir: string): RestoreResult {
  const started = performance.now();
  const source = resolve(from);
  const target = resolve(dataDir);
  const manifest = readManifest(source);
  if (existsSync(join(target, LOCK))) {
    throw new BackupError('restore_target_in_use', `${target} holds ${LOCK}: a pcg serve runs on it (or ran and was killed); restore into a new directory`);
  }
  const notEmpty = (t: string) => new BackupError('restore_target_not_empty', `${t} is not empty; restore into a new or empty directory`);
  const { work, staged } = freshTarget(target, undefined, {
    notEmpty,
    notDir: (t) => new BackupError('restore_target_not_dir', `${t} exists and is not a directory; restore into a new or empty directory`),
  });
  let bytes = 0;
  try {
    for (const f of manifest.files) {
      const from = join(source, ...f.path.split('/'));
      const to = join(work, ...f.path.split('/'));
      if (!existsSync(from)) throw new BackupError('backup_incomplete', `${f.path} is listed in the manifest but missing from ${source}`);
      mkdirSync(dirname(to), { recursive: true });
      const copied = copyFile(from, to, ownerOnly(f.mode));
      if (copied.bytes !== f.bytes || copied.sha256 !== f.sha256) {
        throw new BackupError('checksum_mismatch', `${f.path} in ${source} is not the file the backup wrote (${copied.bytes} bytes, sha256 ${copied.sha256}; the manifest says ${f.bytes} bytes, ${f.sha256}); nothing was restored`);
      }
      bytes += copied.bytes;
    }
    for (const d of new Set(manifest.files.map((f) => dirname(join(work, ...f.path.split('/')))))) syncDir(d);
    finish(work, target, staged, notEmpty);
  } catch (error) {
    discard(work, staged);
    throw error;
  }
  return { dataDir: target, manifest, files: manifest.files.length, bytes, seconds: (performance.now() - started) / 1000 };
}
