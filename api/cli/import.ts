import { join } from 'node:path';
import { jsonText } from '../../engine/render/safe-text.js';
import { UsageError, type Command } from './command.js';
import { importOptionsFrom, onePath, readOptions, readOptionsUsage, reportFileError } from './inspect.js';
import { importProgress } from './progress.js';

export const command: Command = {
  keepsData: true,
  summary: 'Load a log file into a project (counted once, resumable)',
  usage: `Usage: pcg import FILE --project-dir DIR [options]

Loads FILE into the project whose state is DIR/state.sqlite (created if
needed), through the same write path streams use. Batches are positioned in
the file, so importing the same file again, or again after an import was
killed, counts every event once. Prints JSON: accepted, duplicates, rejected
(now dead letters, with line or element), already_imported, and the
project's cases and events after the import.

  --project-dir DIR      the project's folder (required)

${readOptionsUsage}`,
  options: { ...readOptions, 'project-dir': { type: 'string' } },
  async run(values, positionals, io) {
    const path = onePath(positionals);
    const dir = values['project-dir'];
    if (typeof dir !== 'string' || !dir) throw new UsageError('--project-dir DIR is required');
    const options = importOptionsFrom(values);
    const [{ importLog }, { ProjectStore }] = await Promise.all([import('../../connectors/files/index.js'), import('../../engine/index.js')]);
    const store = ProjectStore.open(join(dir, 'state.sqlite'));
    // A progress bar on stderr, only when it is a terminal.
    const progress = importProgress('pcg import', path, io);
    try {
      const summary = await importLog(progress.target(store), path, options);
      progress.done();
      io.out(`${jsonText(summary, 2)}\n`);
      return summary.accepted + summary.duplicates + summary.already_imported === 0 && summary.rejected > 0 ? 1 : 0;
    } catch (error) {
      return reportFileError('import', error, io);
    } finally {
      progress.done();
      store.close();
    }
  },
};
