import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importLog } from '../../connectors/files/index.js';
import { buildDocument } from '../../engine/document/index.js';
import { ProjectStore } from '../../engine/index.js';
import { manifestLogs, optionsFor } from './manifest.js';

/**
 * Writes every (default-tier) shared log's document to a folder, to compare the claims of two versions of the
 * reading: PCG_REAL_LOGS=… node --import tsx test/real-logs/dump-docs.ts OUT_DIR [substring …]
 */
const [out, ...only] = process.argv.slice(2);
mkdirSync(out!, { recursive: true });
for (const row of manifestLogs()) {
  if (only.length && !only.some((s) => row.file.includes(s))) continue;
  const work = mkdtempSync(join(tmpdir(), 'pcg-dump-'));
  try {
    const store = ProjectStore.open(join(work, 'state.sqlite'));
    try {
      await importLog(store, join(process.env.PCG_REAL_LOGS!, row.file), optionsFor(row.file));
      writeFileSync(join(out!, `${row.file.replace(/[^A-Za-z0-9.]+/g, '_')}.json`), JSON.stringify(buildDocument(store.snapshot()), null, 1));
      console.log('done', row.file);
    } finally {
      store.close();
    }
  } catch (err) {
    console.log('failed', row.file, err instanceof Error ? err.message : String(err));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
