import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { migrations } from './catalog/migrations.js';
import { PRIVATE_DIR, PRIVATE_FILE } from './file-modes.js';
import { registerWireError } from '../engine/error-base.js';
import { OperatorError } from './exit-codes.js';

/**
 * What `pcg serve` checks of its data directory before it opens anything
 * (api/cli/serve.ts): the directory is a writable folder, no other `pcg serve`
 * runs on it (a lock file), and its catalog is a sound SQLite file of a schema
 * this pcg knows. Each failure is a `StartupError`: one line for the operator,
 * printed without a stack, and a non-zero exit before the port is opened.
 */
export class StartupError extends OperatorError<'startup_failed'> {
  override name = 'StartupError';
  constructor(message: string) {
    super('startup_failed', message);
  }
}
registerWireError('StartupError', StartupError, (w) => new StartupError(w.message));

const errno = (error: unknown): string => String((error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? error);

/**
 * Makes a data directory its owner's alone: the folder and every folder below 0700, every file 0600 (a directory
 * an older pcg wrote with 0755 and 0644). Symbolic links are left as they are. Linear in the files it holds.
 */
export function tightenDataDir(dir: string): number {
  let changed = 0;
  const walk = (path: string) => {
    try {
      const st = lstatSync(path);
      if (st.isSymbolicLink()) return;
      const want = st.isDirectory() ? PRIVATE_DIR : PRIVATE_FILE;
      if ((st.mode & 0o777) !== want) {
        chmodSync(path, want);
        changed++;
      }
      if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    } catch (error) {
      // Another process (a worker, pcg serve) removed it meanwhile: nothing left to tighten.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  };
  walk(dir);
  return changed;
}

/** Creates the directory if missing; it must then be a folder this process can write. */
export function checkDataDir(dir: string): void {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new StartupError(`the data directory ${dir} is not a directory (it is a file); pass another --data-dir`);
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  } catch (error) {
    throw new StartupError(`cannot create the data directory ${dir} (${errno(error)}); pass another --data-dir`);
  }
  // A real write, not access(2): a read-only mount or a full disk only shows on writing.
  const probe = join(dir, `.write-check-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    writeFileSync(probe, 'pcg');
    unlinkSync(probe);
  } catch (error) {
    throw new StartupError(`the data directory ${dir} is not writable (${errno(error)}); fix its permissions or pass another --data-dir`);
  }
  for (const name of ['catalog.sqlite', 'catalog.sqlite-wal', 'catalog.sqlite-shm']) {
    const file = join(dir, name);
    if (!existsSync(file)) continue;
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch (error) {
      throw new StartupError(`${file} is not writable (${errno(error)}); fix its permissions`);
    }
  }
}

/** The lock file's content. */
export interface LockInfo {
  pid: number;
  hostname: string;
  startedAt: string;
  /** Tells this holder's lock from a successor's, so release never deletes another's. */
  token: string;
}

export interface DataDirLock {
  file: string;
  info: LockInfo;
  /** Deletes the lock file if it is still this holder's; safe to call twice. */
  release(): void;
}

export const LOCK_FILE = 'serve.lock';

/** Locks held by this process, so a second serve in one process (tests) is refused like one in another. */
const heldHere = new Set<string>();

function readLock(file: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockInfo>;
    return typeof info.pid === 'number' && Number.isInteger(info.pid) && info.pid > 0 ? (info as LockInfo) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process named in a lock is a live `pcg serve`: a lock from
 * another host cannot be checked and counts as live; a pid that is gone, or
 * (on Linux) reused by a process that is not a `serve`, counts as stale.
 */
function holderAlive(file: string, info: LockInfo): boolean {
  if (info.hostname !== hostname()) return true;
  if (info.pid === process.pid) return heldHere.has(file);
  try {
    process.kill(info.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // After a restart (a container's pid 1, say) the pid may name an unrelated process.
    const args = readFileSync(`/proc/${info.pid}/cmdline`, 'utf8').split('\0');
    return args.includes('serve');
  } catch {
    return true;
  }
}

/**
 * Takes `<dir>/serve.lock` (exclusive create) for this process: one `pcg serve`
 * per data directory. A lock whose holder is gone (killed, crashed) is taken
 * over; a live holder's is refused with a StartupError naming it. `pcg worker`
 * processes do not lock: they write only partition files.
 */
export function lockDataDir(dir: string): DataDirLock {
  const file = join(dir, LOCK_FILE);
  const info: LockInfo = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString(), token: randomBytes(12).toString('hex') };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify(info)}\n`, { flag: 'wx', mode: 0o644 });
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new StartupError(`cannot create the lock file ${file} (${code ?? String(error)}); is the data directory writable?`);
    }
    let holder = readLock(file);
    if (!holder) {
      // Perhaps another serve is between its create and its write: look again shortly.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
      holder = readLock(file);
    }
    if (holder && holderAlive(file, holder)) {
      const where = holder.hostname === info.hostname ? `pid ${holder.pid}` : `pid ${holder.pid} on host ${holder.hostname}`;
      throw new StartupError(
        `the data directory ${dir} is in use by another pcg serve (${where}, started ${holder.startedAt}); stop it first, or delete ${file} if that process is gone`,
      );
    }
    // A lock that is unreadable or whose holder is gone: take it over (once; a racing
    // serve that took it meanwhile is then found alive on the next round).
    if (attempt >= 2) throw new StartupError(`cannot take over the stale lock file ${file}; delete it and start again`);
    try {
      unlinkSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new StartupError(`cannot remove the stale lock file ${file} (${errno(error)})`);
    }
  }
  heldHere.add(file);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    heldHere.delete(file);
    process.removeListener('exit', release);
    if (readLock(file)?.token !== info.token) return;
    try {
      unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
  // Any exit of the process (a crash included) releases the lock; SIGKILL leaves a stale one, taken over at the next start.
  process.on('exit', release);
  return { file, info, release };
}

const SQLITE_HEADER = 'SQLite format 3\0';

/**
 * The catalog, if there is one, must be a SQLite file that passes
 * `PRAGMA quick_check` and whose schema version this pcg knows (a newer pcg's
 * catalog is refused rather than guessed at).
 */
export function checkCatalog(file: string): void {
  if (!existsSync(file)) return;
  const size = statSync(file).size;
  if (size > 0) {
    const header = Buffer.alloc(16);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, header, 0, 16, 0);
    } finally {
      closeSync(fd);
    }
    if (size < 100 || header.toString('latin1') !== SQLITE_HEADER) throw new StartupError(`the catalog ${file} is not a SQLite database (damaged, or not a pcg data directory); restore it from a backup`);
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { fileMustExist: true });
    const rows = db.pragma('quick_check') as { quick_check: string }[];
    const problems = rows.map((r) => r.quick_check).filter((r) => r !== 'ok');
    if (problems.length) throw new StartupError(`the catalog ${file} is damaged (quick_check: ${problems[0]!.replace(/\s+/g, ' ').slice(0, 200)}); restore it from a backup`);
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > migrations.length) {
      throw new StartupError(`the catalog ${file} was written by a newer pcg (schema version ${version}; this pcg knows up to ${migrations.length}); run a newer pcg`);
    }
  } catch (error) {
    if (error instanceof StartupError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) throw new StartupError(`the catalog ${file} is damaged (${code}); restore it from a backup`);
    throw new StartupError(`cannot open the catalog ${file} (${code || (error as Error).message})`);
  } finally {
    db?.close();
  }
}
