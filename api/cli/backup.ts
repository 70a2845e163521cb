import { oneLine } from '../../engine/render/safe-text.js';
import { UsageError, type Command } from './command.js';

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

export const command: Command = {
  keepsData: true,
  summary: 'Copy a data directory (catalog, project states, datasets, keys) while it runs',
  usage: `Usage: pcg backup --data-dir <dir> --out <dir>

Takes an online backup of a data directory while pcg serve and pcg worker keep
ingesting: the catalog and every project's state files (its own store and its
partition stores) through SQLite's backup API, each store as it was at one
moment (a project's stores at the same moment), then the dataset files and the
key files. Writers are never blocked. The backup is a directory with the data
directory's layout and a manifest.json listing every file with its size,
sha256 and mode, and each store's data_version; it is written under a hidden
name beside --out and renamed when complete.

The backup holds secrets (global-api-key, source-secret-key, demo-api-key and
the catalog's sealed source secrets): keep it as you keep the data directory.

Options:
  --data-dir <dir>   the data directory to copy (PCG_DATA_DIR, default ./data)
  --out <dir>        a new (or empty) directory for the backup, outside the data directory
  --quiet            print nothing but errors
  -h, --help         this text

Restore with pcg restore --from <dir> --data-dir <new dir>.
`,
  options: {
    'data-dir': { type: 'string' },
    out: { type: 'string' },
    quiet: { type: 'boolean' },
  },
  async run(values, positionals, io) {
    if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const out = values.out as string | undefined;
    if (!out) throw new UsageError('--out is required');
    const { dataDirOf } = await import('../config.js');
    const dataDir = dataDirOf(values['data-dir'] as string | undefined);
    const { backupDataDir, BackupError } = await import('../backup/index.js');
    try {
      const result = await backupDataDir(dataDir, out);
      if (!values.quiet) {
        const { manifest } = result;
        const lines = [
          `pcg backup: ${manifest.files.length} files, ${manifest.projects.length} projects, ${mb(result.bytes)} in ${result.seconds.toFixed(1)} s into ${result.out}`,
        ];
        for (const p of manifest.projects) {
          lines.push(`  project ${p.id}: data_version ${p.dataVersion}, ${p.stores} store${p.stores === 1 ? '' : 's'}${p.cut === 'per-file' ? ' (each store at its own moment: writes never paused long enough)' : ''}`);
        }
        if (manifest.leftOut.length) lines.push(`  left out (not in the catalog): ${manifest.leftOut.join(', ')}`);
        lines.push('  the backup holds the data directory\'s secrets (key files, sealed source secrets): keep it safe');
        // Paths are the user's: each line shown on one line, controls escaped.
        io.out(`${lines.map(oneLine).join('\n')}\n`);
      }
      return 0;
    } catch (error) {
      if (error instanceof BackupError) {
        io.err(`pcg backup: ${error.code}: ${error.message}\n`);
        return error.exit;
      }
      throw error;
    }
  },
};
