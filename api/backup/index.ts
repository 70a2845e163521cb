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

export { backupDataDir, type BackupResult } from './backup.js';
export { BackupError, type BackupErrorCode } from './errors.js';
export { KEY_FILES } from './layout.js';
export { BACKUP_FORMAT, BACKUP_VERSION, MANIFEST, manifestSchema, readManifest, type FileKind, type Manifest, type ManifestFile } from './manifest.js';
export { restoreDataDir, type RestoreResult } from './restore.js';
