import { closeSync, existsSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join, relative } from 'node:path';
import { errno } from './errors.js';

/**
 * The data directory as a backup sees it: which files are the catalog, the
 * project and partition stores and the key files, which are SQLite databases,
 * and which are transient (never copied).
 */

/** The data directory's secret files (kept in the backup as they are: the backup holds secrets). */
export const KEY_FILES = ['global-api-key', 'source-secret-key', 'demo-api-key'] as const;

export const CATALOG = 'catalog.sqlite';
export const LOCK = 'serve.lock';
export const PART_FILE = /^[A-Za-z0-9_-]+\.\d+\.sqlite$/;
export const PROJECT_ID = /^[A-Za-z0-9_-]+$/;
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

export function isSqlite(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(16);
    return readSync(fd, head, 0, 16, 0) === 16 && head.equals(SQLITE_HEADER);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Files SQLite keeps beside a database while it is open, and files that are no part of the data. */
export function transient(name: string): boolean {
  return /-(wal|shm|journal)$/.test(name) || name === LOCK || name.startsWith('.write-check-');
}

/** Every regular file under `dir` (relative to `root`), skipping transient files and whatever `skip` names. */
export function walk(root: string, dir: string, skip: (rel: string) => boolean): string[] {
  const out: string[] = [];
  const gone = (error: unknown) => {
    // Deleted since its folder was read (a project or dataset removed meanwhile): nothing to copy.
    if (errno(error) !== 'ENOENT') throw error;
  };
  const visit = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch (error) {
      return gone(error);
    }
    for (const name of names) {
      const full = join(d, name);
      const rel = relative(root, full);
      if (transient(name) || skip(rel)) continue;
      let st;
      try {
        st = lstatSync(full);
      } catch (error) {
        gone(error);
        continue;
      }
      if (st.isDirectory()) visit(full);
      else if (st.isFile()) out.push(rel);
      // Symbolic links, sockets and the like are no part of a data directory.
    }
  };
  if (existsSync(dir)) visit(dir);
  return out;
}
