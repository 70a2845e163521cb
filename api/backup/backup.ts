import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';
import { BackupError } from './errors.js';
import { syncDir } from './files.js';
import { CATALOG, isSqlite, KEY_FILES, PART_FILE, PROJECT_ID, walk } from './layout.js';
import { BACKUP_FORMAT, BACKUP_VERSION, MANIFEST, type FileKind, type Manifest, type ManifestFile } from './manifest.js';
import { copyGroup, copyLoose, copyPinned, pin } from './snapshot.js';
import { discard, finish, freshTarget } from './staging.js';

/**
 * Taking a backup (`pcg backup`): the catalog, then each project the catalog
 * copy lists, then the other files of the data directory, and the manifest
 * last.
 */

export interface BackupResult {
  out: string;
  manifest: Manifest;
  bytes: number;
  seconds: number;
}

function packageVersion(): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: string }).version;
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
