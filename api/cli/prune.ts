import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { oneLine } from '../../engine/render/safe-text.js';
import { UsageError, type Command } from './command.js';

export const command: Command = {
  keepsData: true,
  summary: 'Run one retention pass: prune raw events beyond the window and old dead letters',
  usage: `Usage: pcg prune --data-dir <dir> [options]
       pcg prune --project-dir <dir> [options]

Runs one retention pass, as pcg serve does every PCG_RETENTION_INTERVAL_S:
the raw events of cases whose every event is more than the window older than
the project's newest event are deleted (their counts stay: the document does
not change), and dead letters received more than PCG_DEAD_LETTER_DAYS (30) ago
or past PCG_DEAD_LETTER_MAX (100000) per project, oldest first. Safe beside a
running pcg serve or pcg worker: each step is one short transaction.

Options:
  --data-dir <dir>         every project of a data directory (PCG_DATA_DIR, default
                           ./data), each with its own retentionDays, else
                           PCG_RETENTION_DAYS
  --project-dir <dir>      one project folder (state.sqlite and parts/), as pcg
                           import writes it
  --retention-days <n>     days of raw events kept, for every project pruned
                           (default: the project's setting, else PCG_RETENTION_DAYS;
                           with neither, raw events are kept)
  --quiet                  print nothing but errors
  -h, --help               this text
`,
  options: {
    'data-dir': { type: 'string' },
    'project-dir': { type: 'string' },
    'retention-days': { type: 'string' },
    quiet: { type: 'boolean' },
  },
  async run(values, positionals, io) {
    if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const projectDir = values['project-dir'] as string | undefined;
    if (projectDir !== undefined && values['data-dir'] !== undefined) throw new UsageError('give --data-dir or --project-dir, not both');
    const days = values['retention-days'] as string | undefined;
    if (days !== undefined && !/^[1-9]\d{0,4}$/.test(days)) throw new UsageError(`--retention-days: expected a whole number of days from 1 to 36500, not ${days}`);
    const { ConfigError, dataDirOf, readRetentionConfig, retentionDaysOf } = await import('../config.js');
    let config;
    try {
      config = { ...readRetentionConfig(process.env), ...(days !== undefined ? { retentionDays: Number(days) } : {}) };
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(error.message);
      throw error;
    }
    const policyOf = (retention: number | null) => ({
      retentionDays: days !== undefined ? Number(days) : retentionDaysOf(config, retention),
      deadLetterDays: config.deadLetterDays,
      deadLetterMax: config.deadLetterMax,
    });
    const breathe = () => new Promise<void>((done) => setImmediate(done));
    // Folder names are the user's: shown on one line, controls escaped.
    const said = (what: string, r: { cases: number; events: number; deadLetters: number }, window: number | null) =>
      `${oneLine(`pcg prune: ${what}: ${r.events} events of ${r.cases} cases pruned (${window === null ? 'every event kept' : `window ${window} days`}), ${r.deadLetters} dead letters`)}\n`;

    if (projectDir !== undefined) {
      const dir = resolve(projectDir);
      if (!existsSync(dir)) {
        io.err(`pcg prune: no project folder ${dir}\n`);
        return 1;
      }
      const { ProjectStore } = await import('../../engine/store/project-store.js');
      const { prunePass } = await import('../../engine/projects/retention.js');
      const parts = join(dir, 'parts');
      const files = [join(dir, 'state.sqlite'), ...(existsSync(parts) ? readdirSync(parts).filter((f) => /^[A-Za-z0-9_-]+\.\d+\.sqlite$/.test(f)).sort().map((f) => join(parts, f)) : [])].filter((f) => existsSync(f));
      const stores = files.map((f) => ProjectStore.open(f));
      try {
        const policy = policyOf(null);
        const result = await prunePass(stores.map((s) => () => s), policy, { pause: breathe });
        if (!values.quiet) io.out(said(dir, result, policy.retentionDays));
      } finally {
        for (const s of stores) s.close();
      }
      return 0;
    }

    const dataDir = dataDirOf(values['data-dir'] as string | undefined);
    const catalogFile = join(dataDir, 'catalog.sqlite');
    if (!existsSync(catalogFile)) {
      io.err(`pcg prune: ${dataDir} has no catalog (catalog.sqlite): not a pcg data directory\n`);
      return 1;
    }
    const { Catalog } = await import('../catalog/index.js');
    const { ProjectRegistry } = await import('../../engine/projects/registry.js');
    const catalog = Catalog.open(catalogFile);
    const registry = new ProjectRegistry(dataDir, { maxOpen: 64 });
    try {
      const total = { cases: 0, events: 0, deadLetters: 0 };
      for (const { id, retention } of catalog.projects.retentionSettings()) {
        const policy = policyOf(retention);
        const result = await registry.prune(id, policy, { pause: breathe });
        total.cases += result.cases;
        total.events += result.events;
        total.deadLetters += result.deadLetters;
        if (!values.quiet) io.out(said(`project ${id}`, result, policy.retentionDays));
      }
      if (!values.quiet) io.out(`pcg prune: ${total.events} events of ${total.cases} cases and ${total.deadLetters} dead letters pruned in ${oneLine(dataDir)}\n`);
    } finally {
      registry.close();
      catalog.close();
    }
    return 0;
  },
};
