import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { errno, failed } from './errors.js';
import { copyPlain, digestFile } from './files.js';
import { isSqlite } from './layout.js';
import type { FileKind, ManifestFile } from './manifest.js';
import { ownerOnly } from '../file-modes.js';

/**
 * The online copy of SQLite files through SQLite's backup API, from
 * connections that hold a read transaction for the whole copy (writers go on,
 * never blocked), with the files of one project pinned at one moment.
 */

/** Pages per backup step: ~100 MB at 4 KiB pages (the read is pinned, so the step size only trades progress reports for speed). */
const PAGES_PER_STEP = 25_600;
/** Tries to pin a project's files at one moment before settling for each file at its own. */
const CUT_ATTEMPTS = 50;

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
export async function pin(files: { rel: string; file: string; kind: FileKind }[]): Promise<{ pinned: Pinned[]; consistent: boolean }> {
  const pinned: Pinned[] = [];
  const probes: Database.Database[] = [];
  try {
    for (const f of files) {
      try {
        const db = openReader(f.file);
        pinned.push({ ...f, db, mode: ownerOnly(statSync(f.file).mode), at: '' });
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
export async function copyPinned(p: Pinned, work: string, project: string | undefined): Promise<ManifestFile> {
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

export async function copyGroup(files: { rel: string; file: string; kind: FileKind }[], work: string, project: string | undefined) {
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

/** Copies single files: SQLite ones through the backup API (each at its own moment), others as bytes. */
export async function copyLoose(root: string, rels: string[], work: string, project: string | undefined, kindOf: (rel: string) => FileKind): Promise<ManifestFile[]> {
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
