import { createHash } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { FileKind, ManifestFile } from './manifest.js';
import { ownerOnly } from '../file-modes.js';

/**
 * Files as bytes: synced copies and digests (size and sha256) of single
 * files, and the syncing of directories.
 */

const CHUNK = 1 << 20;

/** Copies a file byte for byte (synced), returning its size and sha256. */
export function copyFile(from: string, to: string, mode: number): { bytes: number; sha256: string } {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK);
  const input = openSync(from, 'r');
  let bytes = 0;
  try {
    const output = openSync(to, 'wx', mode);
    try {
      for (;;) {
        const n = readSync(input, buffer, 0, CHUNK, null);
        if (n === 0) break;
        hash.update(buffer.subarray(0, n));
        let written = 0;
        while (written < n) written += writeSync(output, buffer, written, n - written);
        bytes += n;
      }
      fsyncSync(output);
    } finally {
      closeSync(output);
    }
  } finally {
    closeSync(input);
  }
  chmodSync(to, mode);
  return { bytes, sha256: hash.digest('hex') };
}

/** A file's size and sha256, read back (and synced: SQLite's backup wrote it). */
export function digestFile(file: string): { bytes: number; sha256: string } {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK);
  const fd = openSync(file, 'r+');
  let bytes = 0;
  try {
    fsyncSync(fd);
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
      bytes += n;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, sha256: hash.digest('hex') };
}

export function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not every platform syncs directories.
  }
}

/** Copies one file that is not a SQLite database as bytes. */
export function copyPlain(file: string, rel: string, work: string, kind: FileKind, project: string | undefined): ManifestFile {
  const to = join(work, rel);
  mkdirSync(dirname(to), { recursive: true });
  const mode = ownerOnly(statSync(file).mode);
  const at = new Date().toISOString();
  const { bytes, sha256 } = copyFile(file, to, mode);
  return { path: rel.split(sep).join('/'), kind, bytes, sha256, mode, ...(project === undefined ? {} : { project }), at };
}
