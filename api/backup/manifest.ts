import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { BackupError, errno } from './errors.js';

/**
 * The backup's format: `manifest.json` (written last: a backup without one is
 * incomplete) lists every file with its size, sha256 and mode, and the
 * stores' data versions; its schema, and its reading and checking.
 */

export const MANIFEST = 'manifest.json';
export const BACKUP_FORMAT = 'pcg-backup';
export const BACKUP_VERSION = 1;

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
