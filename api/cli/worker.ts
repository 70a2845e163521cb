import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError, type Command } from './command.js';
import { oneLine } from '../../engine/render/safe-text.js';

export const command: Command = {
  keepsData: true,
  summary: 'Run the stream sources of a data directory (several workers share a topic\'s partitions)',
  usage: `Usage: pcg worker --data-dir <dir> [options]

Consumes every active Kafka source declared in the data directory's catalog
(POST /api/{tenant}/project/{project}/source) into the projects' partition
states, exactly once, until SIGINT or SIGTERM. Workers on the same data
directory join each source's consumer group and share its partitions; when one
stops or dies, the others take its partitions over from their stored offsets.
Run the API with PCG_SOURCES=off when workers consume, or both will.
Messages are held to the event limits of PCG_LIMIT_ID_BYTES,
PCG_LIMIT_ACTIVITY_BYTES, PCG_LIMIT_ATTRIBUTE_VALUE_BYTES and
PCG_LIMIT_ATTRIBUTES_PER_EVENT, as in pcg serve.

Options:
  --data-dir <dir>          the data directory (PCG_DATA_DIR, default ./data)
  --source-secret-key <k>   key that sealed the sources' secrets (PCG_SOURCE_SECRET_KEY)
  --quiet                   print nothing but errors
  -h, --help                this text
`,
  options: {
    'data-dir': { type: 'string' },
    'source-secret-key': { type: 'string' },
    quiet: { type: 'boolean' },
  },
  async run(values, _positionals, io) {
    const { dataDirOf } = await import('../config.js');
    const dataDir = dataDirOf(values['data-dir'] as string | undefined);
    if (!existsSync(join(dataDir, 'catalog.sqlite'))) throw new UsageError(`no catalog in ${dataDir}: start pcg serve on it first, or pass --data-dir`);
    const key = (values['source-secret-key'] as string | undefined) ?? process.env.PCG_SOURCE_SECRET_KEY;
    const quiet = Boolean(values.quiet);
    const [{ hostSources }, { ConfigError, readEventLimits }, { tightenDataDir }] = await Promise.all([import('../source-host.js'), import('../config.js'), import('../data-dir.js')]);
    // The partition states it writes are as private as the rest of the data directory.
    tightenDataDir(dataDir);
    let limits;
    try {
      // The same PCG_LIMIT_* settings as pcg serve: a message over one is a dead letter naming it.
      limits = readEventLimits(process.env);
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(error.message);
      throw error;
    }
    const host = hostSources({
      dataDir,
      sourceSecretKey: key || undefined,
      limits,
      log: (level, message, extra) => {
        // kafkajs names the request in its message and the broker's answer in `error`: both say what went wrong.
        const why = typeof extra.error === 'string' && extra.error ? ` (${extra.error})` : '';
        if (level === 'error' || (!quiet && level === 'warn')) io.err(`pcg worker: ${level}: ${message}${why}\n`);
      },
    });
    // Listening before saying so: a signal sent on reading the line must stop the worker cleanly.
    const stopped = new Promise<void>((done) => {
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    if (!quiet) io.out(`pcg worker ${host.workerId} consuming the sources of ${oneLine(dataDir)}\n`);
    await stopped;
    await host.close();
    return 0;
  },
};
