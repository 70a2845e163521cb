import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newSecret, type Catalog } from './catalog/index.js';
import type { Config } from './config.js';

export interface GlobalKeySource {
  /** `config`: PCG_GLOBAL_API_KEY; `file`: read from the key file; `generated`: written now. */
  source: 'config' | 'file' | 'generated';
  /** The key file, when the key lives in one. */
  file?: string;
  /** The given key was revoked before (at /admin/global-api-keys): it stays revoked. */
  revoked?: boolean;
  /** How many rows of earlier configured keys this start revoked (PCG_GLOBAL_API_KEY changed). */
  replaced?: number;
  /** The keys those earlier configured keys issued, which stay valid (a rotation is not a revocation). */
  keptIssued?: number;
}

export const globalKeyFile = (dataDir: string): string => join(dataDir, 'global-api-key');

/**
 * The server's own global key, one row among the global keys:
 * - the configured one (PCG_GLOBAL_API_KEY): registered on first sight; when
 *   it changes between starts, the row of the previous configured key is
 *   revoked, so the old key answers 401. Left unset, earlier configured keys
 *   stay as they are (revoke them at /admin/global-api-keys).
 * - else the key file's, generated on first start and written once (mode
 *   0600, never overwritten) to <dataDir>/global-api-key, unless some global
 *   key is usable already.
 * A key revoked at /admin/global-api-keys never comes back, from
 * configuration or file (and, configured, replaces nothing): configure a new one.
 */
export function ensureGlobalKey(config: Config, catalog: Catalog): GlobalKeySource {
  if (config.globalApiKey) {
    const row = catalog.keys.addGlobal(config.globalApiKey, 'configured', 'config');
    // A revoked key replaces nothing: the keys that work now keep working.
    if (row.revokedAt !== null) return { source: 'config', revoked: true };
    const { revoked, kept } = catalog.keys.revokeConfiguredExcept(row.id);
    return { source: 'config', ...(revoked > 0 ? { replaced: revoked, keptIssued: kept } : {}) };
  }
  const file = globalKeyFile(config.dataDir);
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    const row = key ? catalog.keys.addGlobal(key, 'key file', 'file') : undefined;
    return { source: 'file', file, ...(row && row.revokedAt !== null ? { revoked: true } : {}) };
  }
  if (catalog.keys.hasActiveGlobal()) return { source: 'file' };
  const key = newSecret('g');
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  catalog.keys.addGlobal(key, 'generated', 'file');
  return { source: 'generated', file };
}
