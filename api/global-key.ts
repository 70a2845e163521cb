import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newSecret, type Catalog } from './catalog/index.js';
import type { Config } from './config.js';

export interface GlobalKeySource {
  /** `config`: PCG_GLOBAL_API_KEY; `file`: read from the key file; `generated`: written now. */
  source: 'config' | 'file' | 'generated';
  /** The key file, when the key lives in one. */
  file?: string;
}

export const globalKeyFile = (dataDir: string): string => join(dataDir, 'global-api-key');

/**
 * The first global key: the configured one, or one generated on first start
 * and written once (mode 0600, never overwritten) to <dataDir>/global-api-key.
 */
export function ensureGlobalKey(config: Config, catalog: Catalog): GlobalKeySource {
  if (config.globalApiKey) {
    catalog.keys.addGlobal(config.globalApiKey, 'configured');
    return { source: 'config' };
  }
  const file = globalKeyFile(config.dataDir);
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    if (key) catalog.keys.addGlobal(key, 'key file');
    return { source: 'file', file };
  }
  if (catalog.keys.hasActiveGlobal()) return { source: 'file' };
  const key = newSecret('g');
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  catalog.keys.addGlobal(key, 'generated');
  return { source: 'generated', file };
}
