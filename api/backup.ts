import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';

/**
 * Online backup and offline restore of a data directory (`pcg backup`, `pcg restore`).
 *
 * A backup is a directory with the data directory's layout plus `manifest.json`
 * (written last: a backup without one is incomplete). SQLite files (the
 * catalog, each project's own store and its partition stores) are copied with
 * SQLite's online backup API from a connection that holds a read transaction
 * for the whole copy, so each copy is the file as it was at one moment while
 * writers go on (they are never blocked; without the pinned read the backup
 * API restarts at every write and never ends under steady ingestion). The
 * files of one project are pinned together, at a moment when none of them
 * changes, so the project's merged state (own store plus partitions) is one
 * that existed. Other files (dataset files, key files) are copied as bytes.
 * Every file's size, sha256 and mode are in the manifest; the stores' data
 * versions too.
 */

export const MANIFEST = 'manifest.json';
export const BACKUP_FORMAT = 'pcg-backup';
export const BACKUP_VERSION = 1;

/** The data directory's secret files (kept in the backup as they are: the backup holds secrets). */
export const KEY_FILES = ['global-api-key', 'source-secret-key', 'demo-api-key'] as const;

const CATALOG = 'catalog.sqlite';
const LOCK = 'serve.lock';
const PART_FILE = /^[A-Za-z0-9_-]+\.\d+\.sqlite$/;
const PROJECT_ID = /^[A-Za-z0-9_-]+$/;
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');
/** Pages per backup step: ~100 MB at 4 KiB pages (the read is pinned, so the step size only trades progress reports for speed). */
const PAGES_PER_STEP = 25_600;
/** Tries to pin a project's files at one moment before settling for each file at its own. */
const CUT_ATTEMPTS = 50;

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

const fileKinds = ['catalog', 'project', 'partition', 'sqlite', 'key', 'file'] as const;
export type FileKind = (typeof fileKinds)[number];

/** A relative path of plain segments (no `.`, `..`, empty or absolute parts): a manifest cannot point outside its directories. */
const relativePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !p.includes('\0') && !p.includes('\\') && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..'), 'a relative path of plain segments');

const manifestFile = z.object({
  path: relativePath,
  kind: z.enum(fileKinds),
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  mode: z.number().int().min(0).max(0o7777),
  /** For the stores of a project (kind project, partition) and its other files. */
  project: z.string().optional(),
  /** A project or partition store's data_version at the copy. */
  dataVersion: z.number().int().min(0).optional(),
  /** A SQLite file's user_version (its schema's migration number). */
  schemaVersion: z.number().int().min(0).optional(),
  /** When the copy's content was fixed (the read transaction began, or the byte copy started). */
  at: z.string(),
});
export type ManifestFile = z.infer<typeof manifestFile>;

const manifestProject = z.object({
  id: z.string(),
  /** The merged state's data_version (own store plus partitions), as `GET …/graph` reports it. */
  dataVersion: z.number().int().min(0),
  stores: z.number().int().min(0),
  /** `consistent`: all its stores as they were at one moment; `per-file`: each store at its own. */
  cut: z.enum(['consistent', 'per-file']),
});

export const manifestSchema = z
  .object({
    format: z.literal(BACKUP_FORMAT),
    version: z.number().int().min(1),
    pcg: z.string().optional(),
    startedAt: z.string(),
    finishedAt: z.string(),
    dataDir: z.string(),
    projects: z.array(manifestProject),
    /** Project folders on disk with no project in the catalog copy (made after it, or left by a failed delete): not copied. */
    leftOut: z.array(z.string()),
    files: z.array(manifestFile),
  })
  .loose();
export type Manifest = z.infer<typeof manifestSchema>;

export interface BackupResult {
  out: string;
  manifest: Manifest;
  bytes: number;
  seconds: number;
}

export interface RestoreResult {
  dataDir: string;
  manifest: Manifest;
  files: number;
  bytes: number;
  seconds: number;
}

const errno = (error: unknown): string => String((error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? error);

function isSqlite(file: string): boolean {
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
function transient(name: string): boolean {
  return /-(wal|shm|journal)$/.test(name) || name === LOCK || name.startsWith('.write-check-');
}

const CHUNK = 1 << 20;

/** Copies a file byte for byte (synced), returning its size and sha256. */
function copyFile(from: string, to: string, mode: number): { bytes: number; sha256: string } {
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
function digestFile(file: string): { bytes: number; sha256: string } {
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

function syncDir(dir: string): void {
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

/**
 * Where a new directory's content is written: an existing empty directory is
 * filled in place; a missing one is built beside it under a hidden name and
 * renamed at the end, so it never exists half-written.
 */
function freshTarget(target: string, mode: number | undefined, refuse: { notEmpty: (t: string) => BackupError; notDir: (t: string) => BackupError }): { work: string; staged: boolean } {
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
function discard(work: string, staged: boolean): void {
  if (staged) return rmSync(work, { recursive: true, force: true });
  for (const name of readdirSync(work)) rmSync(join(work, name), { recursive: true, force: true });
}

function finish(work: string, target: string, staged: boolean, nonEmpty: (target: string) => BackupError): void {
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

interface Pinned {
  rel: string;
  file: string;
  kind: FileKind;
  db: Database.Database;
  mode: number;
  at: string;
}

const openReader = (file: string): Database.Database => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
};

/**
 * Opens a read transaction on each file, at a moment when none of them
 * changes: each file's `PRAGMA data_version` (which moves with every commit
 * another connection makes) is read before and after all the transactions
 * began; unchanged everywhere means every snapshot is the file as it was
 * between the two reads. A file written in that instant makes it try again;
 * after CUT_ATTEMPTS tries each file keeps its own moment.
 */
async function pin(files: { rel: string; file: string; kind: FileKind }[]): Promise<{ pinned: Pinned[]; consistent: boolean }> {
  const pinned: Pinned[] = [];
  const probes: Database.Database[] = [];
  try {
    for (const f of files) {
      try {
        const db = openReader(f.file);
        pinned.push({ ...f, db, mode: statSync(f.file).mode & 0o777, at: '' });
      } catch (error) {
        // Deleted since it was listed (its project, say): nothing to copy.
        if (existsSync(f.file)) throw error;
      }
    }
    if (pinned.length > 1) for (const p of pinned) probes.push(openReader(p.file));
    const versions = () => probes.map((p) => p.pragma('data_version', { simple: true }) as number);
    for (let attempt = 1; ; attempt++) {
      const before = versions();
      for (const p of pinned) {
        p.db.exec('BEGIN');
        // The read transaction (the snapshot) starts at the first read.
        p.db.prepare('SELECT count(*) FROM sqlite_master').get();
        p.at = new Date().toISOString();
      }
      const after = versions();
      const consistent = before.every((v, i) => v === after[i]);
      if (consistent || attempt >= CUT_ATTEMPTS) return { pinned, consistent };
      for (const p of pinned) p.db.exec('ROLLBACK');
      await new Promise((r) => setTimeout(r, Math.min(attempt, 10)));
    }
  } catch (error) {
    for (const p of pinned) p.db.close();
    throw error;
  } finally {
    for (const p of probes) p.close();
  }
}

function metaOf(db: Database.Database): { dataVersion?: number; schemaVersion: number } {
  const schemaVersion = db.pragma('user_version', { simple: true }) as number;
  try {
    const row = db.prepare("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: string } | undefined;
    return { schemaVersion, dataVersion: Number(row?.value ?? '0') };
  } catch {
    // No meta table: not a project store.
    return { schemaVersion };
  }
}

/** Copies one pinned file through SQLite's backup API and describes the copy. */
async function copyPinned(p: Pinned, work: string, project: string | undefined): Promise<ManifestFile> {
  const kind = p.kind;
  const to = join(work, p.rel);
  mkdirSync(dirname(to), { recursive: true });
  const meta = metaOf(p.db);
  await p.db.backup(to, { progress: () => PAGES_PER_STEP });
  const mode = p.mode;
  chmodSync(to, mode);
  const { bytes, sha256 } = digestFile(to);
  return {
    path: p.rel.split(sep).join('/'),
    kind,
    bytes,
    sha256,
    mode,
    ...(project === undefined ? {} : { project }),
    ...(kind === 'project' || kind === 'partition' ? { dataVersion: meta.dataVersion ?? 0 } : {}),
    schemaVersion: meta.schemaVersion,
    at: p.at,
  };
}

/** A file that cannot be read or written stops the backup, named. */
function failed(rel: string, error: unknown): BackupError {
  if (error instanceof BackupError) return error;
  const e = error as { code?: string; message?: string };
  return new BackupError('copy_failed', `cannot copy ${rel} (${e.code ?? 'error'}: ${e.message ?? String(error)})`);
}

async function copyGroup(files: { rel: string; file: string; kind: FileKind }[], work: string, project: string | undefined) {
  let current = files.map((f) => f.rel).join(', ');
  let cut: Awaited<ReturnType<typeof pin>>;
  try {
    cut = await pin(files);
  } catch (error) {
    throw failed(current, error);
  }
  const { pinned, consistent } = cut;
  const out: ManifestFile[] = [];
  try {
    for (const p of pinned) {
      current = p.rel;
      out.push(await copyPinned(p, work, project));
    }
  } catch (error) {
    throw failed(current, error);
  } finally {
    for (const p of pinned) {
      if (p.db.inTransaction) p.db.exec('ROLLBACK');
      p.db.close();
    }
  }
  return { files: out, consistent };
}

/** Copies one file that is not a SQLite database as bytes. */
function copyPlain(file: string, rel: string, work: string, kind: FileKind, project: string | undefined): ManifestFile {
  const to = join(work, rel);
  mkdirSync(dirname(to), { recursive: true });
  const mode = statSync(file).mode & 0o777;
  const at = new Date().toISOString();
  const { bytes, sha256 } = copyFile(file, to, mode);
  return { path: rel.split(sep).join('/'), kind, bytes, sha256, mode, ...(project === undefined ? {} : { project }), at };
}

/** Every regular file under `dir` (relative to `root`), skipping transient files and whatever `skip` names. */
function walk(root: string, dir: string, skip: (rel: string) => boolean): string[] {
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

/** Copies single files: SQLite ones through the backup API (each at its own moment), others as bytes. */
async function copyLoose(root: string, rels: string[], work: string, project: string | undefined, kindOf: (rel: string) => FileKind): Promise<ManifestFile[]> {
  const out: ManifestFile[] = [];
  for (const rel of rels) {
    const file = join(root, rel);
    if (isSqlite(file)) {
      out.push(...(await copyGroup([{ rel, file, kind: 'sqlite' }], work, project)).files);
      continue;
    }
    try {
      out.push(copyPlain(file, rel, work, kindOf(rel), project));
    } catch (error) {
      // Deleted since it was listed (a dataset, say): nothing to copy.
      if (errno(error) !== 'ENOENT' || existsSync(file)) throw failed(rel, error);
    }
  }
  return out;
}

function packageVersion(): string | undefined {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/**
 * Takes a backup of the data directory `dataDir` into the new (or empty)
 * directory `out` while servers and workers keep writing. The catalog is
 * copied first; then every project the catalog copy lists (its own store and
 * partition stores pinned together, then its other files); then the other
 * files of the data directory (key files included). `serve.lock` and SQLite's
 * `-wal`/`-shm` files are left out.
 */
export async function backupDataDir(dataDir: string, out: string, options: { onFile?: (file: ManifestFile) => void } = {}): Promise<BackupResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const src = resolve(dataDir);
  const dest = resolve(out);
  const catalogFile = join(src, CATALOG);
  if (!existsSync(src) || !statSync(src).isDirectory()) throw new BackupError('not_a_data_dir', `the data directory ${src} does not exist`);
  if (!isSqlite(catalogFile)) throw new BackupError('not_a_data_dir', `${src} has no catalog (${CATALOG}): not a pcg data directory`);
  if (dest === src || dest.startsWith(src + sep)) throw new BackupError('backup_inside_data_dir', `the backup ${dest} would be inside the data directory ${src}; write it elsewhere`);
  const exists = (target: string) =>
    new BackupError('backup_out_exists', `${target} exists and is not empty; a backup goes into a new or empty directory`);
  const { work, staged } = freshTarget(dest, 0o700, {
    notEmpty: exists,
    notDir: (t) => new BackupError('backup_out_exists', `${t} exists and is not a directory; a backup goes into a new or empty directory`),
  });
  const files: ManifestFile[] = [];
  const note = (f: ManifestFile) => {
    files.push(f);
    options.onFile?.(f);
  };
  try {
    // 1. The catalog, and from its copy the projects to copy.
    const catalog = await pin([{ rel: CATALOG, file: catalogFile, kind: 'catalog' }]);
    let projectIds: string[];
    try {
      projectIds = (catalog.pinned[0]!.db.prepare('SELECT id FROM project ORDER BY id').all() as { id: string }[]).map((r) => r.id);
      note(await copyPinned(catalog.pinned[0]!, work, undefined));
    } finally {
      const db = catalog.pinned[0]!.db;
      if (db.inTransaction) db.exec('ROLLBACK');
      db.close();
    }

    // 2. Each project: its stores at one moment, then its other files (datasets).
    const projects: Manifest['projects'] = [];
    const projectsDir = join(src, 'projects');
    const listed = new Set(projectIds);
    const leftOut = existsSync(projectsDir)
      ? readdirSync(projectsDir)
          .filter((name) => !listed.has(name))
          .sort()
          .map((name) => `projects/${name}`)
      : [];
    for (const id of projectIds) {
      if (!PROJECT_ID.test(id)) throw new BackupError('not_a_data_dir', `the catalog names a project ${JSON.stringify(id)} that cannot be a folder`);
      const dir = join(projectsDir, id);
      const stores: { rel: string; file: string; kind: FileKind }[] = [];
      const own = join(dir, 'state.sqlite');
      if (isSqlite(own)) stores.push({ rel: relative(src, own), file: own, kind: 'project' });
      const partsDir = join(dir, 'parts');
      if (existsSync(partsDir)) {
        for (const name of readdirSync(partsDir).filter((n) => PART_FILE.test(n)).sort()) {
          const file = join(partsDir, name);
          if (isSqlite(file)) stores.push({ rel: relative(src, file), file, kind: 'partition' });
        }
      }
      let consistent = true;
      if (stores.length) {
        const group = await copyGroup(stores, work, id);
        consistent = group.consistent;
        group.files.forEach(note);
      }
      // Store files without a SQLite header yet are being created (nothing committed in them): left out too.
      const isStore = (rel: string) => rel === join('projects', id, 'state.sqlite') || (dirname(rel) === join('projects', id, 'parts') && PART_FILE.test(basename(rel)));
      const rest = walk(src, dir, isStore);
      (await copyLoose(src, rest, work, id, () => 'file')).forEach(note);
      const versions = files.filter((f) => f.project === id && (f.kind === 'project' || f.kind === 'partition'));
      projects.push({ id, dataVersion: versions.reduce((sum, f) => sum + (f.dataVersion ?? 0), 0), stores: versions.length, cut: consistent ? 'consistent' : 'per-file' });
    }

    // 3. Everything else at the top: the key files, anything a later pcg keeps there.
    const top = walk(src, src, (rel) => rel === CATALOG || rel === 'projects');
    (await copyLoose(src, top, work, undefined, (rel) => ((KEY_FILES as readonly string[]).includes(rel) ? 'key' : 'file'))).forEach(note);

    const pcg = packageVersion();
    const manifest: Manifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      ...(pcg ? { pcg } : {}),
      startedAt,
      finishedAt: new Date().toISOString(),
      dataDir: src,
      projects,
      leftOut,
      files,
    };
    const manifestPath = join(work, MANIFEST);
    writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    const fd = openSync(manifestPath, 'r+');
    fsyncSync(fd);
    closeSync(fd);
    for (const d of new Set(files.map((f) => dirname(join(work, f.path))))) syncDir(d);
    finish(work, dest, staged, exists);
    return { out: dest, manifest, bytes: files.reduce((s, f) => s + f.bytes, 0), seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    discard(work, staged);
    throw error;
  }
}

/** Reads and checks a backup's manifest. */
export function readManifest(from: string): Manifest {
  const file = join(resolve(from), MANIFEST);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT') throw new BackupError('backup_incomplete', `${file} is missing: ${from} is not a pcg backup, or the backup did not finish`);
    throw new BackupError('backup_unreadable', `cannot read ${file} (${code})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new BackupError('backup_invalid', `${file} is not JSON (${(error as Error).message})`);
  }
  const version = (json as { format?: unknown; version?: unknown } | null)?.version;
  if ((json as { format?: unknown } | null)?.format === BACKUP_FORMAT && typeof version === 'number' && version > BACKUP_VERSION) {
    throw new BackupError('backup_too_new', `the backup's format version ${version} is newer than this pcg knows (${BACKUP_VERSION}); run a newer pcg`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BackupError('backup_invalid', `${file} is not a pcg backup manifest (${issue.path.join('.') || 'top'}: ${issue.message})`);
  }
  const seen = new Set<string>();
  for (const f of parsed.data.files) {
    if (seen.has(f.path) || f.path === MANIFEST) throw new BackupError('backup_invalid', `${file} lists ${f.path} twice`);
    seen.add(f.path);
  }
  return parsed.data;
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
      const copied = copyFile(from, to, f.mode & 0o777);
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
