import { oneLine } from '../../engine/render/safe-text.js';
import { UsageError, type Command } from './command.js';

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

export const command: Command = {
  keepsData: true,
  summary: 'Rebuild a data directory from a pcg backup, checking every file',
  usage: `Usage: pcg restore --from <backup dir> --data-dir <dir>

Rebuilds a data directory from a directory pcg backup wrote: every file listed
in its manifest.json is copied and checked against the size and sha256 there.
The data directory must be new or empty; one holding serve.lock (a pcg serve
runs on it) is refused. A missing one is built under a hidden name beside it
and renamed when complete; on any mismatch nothing is left behind. Then start
pcg serve --data-dir <dir>: every project serves the document of the data
version it had in the backup, and stream sources resume from the offsets stored
in the restored partition states.

Options:
  --from <dir>       the backup (the directory holding manifest.json)
  --data-dir <dir>   the data directory to create
  --quiet            print nothing but errors
  -h, --help         this text
`,
  options: {
    from: { type: 'string' },
    'data-dir': { type: 'string' },
    quiet: { type: 'boolean' },
  },
  async run(values, positionals, io) {
    if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const from = values.from as string | undefined;
    const dataDir = values['data-dir'] as string | undefined;
    if (!from) throw new UsageError('--from is required');
    if (!dataDir) throw new UsageError('--data-dir is required');
    const { restoreDataDir, BackupError } = await import('../backup/index.js');
    try {
      const result = restoreDataDir(from, dataDir);
      if (!values.quiet) {
        const { manifest } = result;
        const lines = [
          `pcg restore: ${result.files} files, ${manifest.projects.length} projects, ${mb(result.bytes)} checked and restored in ${result.seconds.toFixed(1)} s into ${result.dataDir}`,
          `  backup of ${manifest.dataDir} taken ${manifest.startedAt} .. ${manifest.finishedAt}`,
        ];
        for (const p of manifest.projects) lines.push(`  project ${p.id}: data_version ${p.dataVersion}`);
        // Paths are the user's (and the backup's manifest): each line shown on one line, controls escaped.
        io.out(`${lines.map(oneLine).join('\n')}\n`);
      }
      return 0;
    } catch (error) {
      if (error instanceof BackupError) {
        io.err(`pcg restore: ${error.code}: ${error.message}\n`);
        return error.exit;
      }
      throw error;
    }
  },
};
