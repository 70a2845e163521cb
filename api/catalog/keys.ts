import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { now, type Db } from './database.js';
import { normalizePermissions, type Permission } from './identity.js';

/**
 * API keys: 32 random bytes, shown once, stored only as their SHA-256. A key
 * is found by its (non-secret) prefix and then compared in constant time.
 */
const PREFIX_LEN = 12;

export function newSecret(kind: 'g' | 't'): string {
  return `pcg${kind}_${randomBytes(32).toString('base64url')}`;
}
const hashOf = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();
const prefixOf = (key: string): string => key.slice(0, PREFIX_LEN);

export interface GlobalKeyInfo {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
export interface TenantKeyInfo extends GlobalKeyInfo {
  tenantId: string;
  userId: string;
  permissions: Permission[];
  /** Null: every project of the tenant. */
  projectIds: string[] | null;
}

type TenantKeyRow = Omit<TenantKeyInfo, 'permissions' | 'projectIds'> & { permissions: string; projectIds: string | null; hash: Buffer };
const tenantKey = ({ hash: _hash, ...r }: TenantKeyRow): TenantKeyInfo => ({
  ...r,
  permissions: JSON.parse(r.permissions) as Permission[],
  projectIds: r.projectIds === null ? null : (JSON.parse(r.projectIds) as string[]),
});

const keyCols = 'id, name, hash, created_at AS createdAt, last_used_at AS lastUsedAt, revoked_at AS revokedAt';
const tenantKeyCols = `${keyCols}, tenant_id AS tenantId, user_id AS userId, permissions, project_ids AS projectIds`;

function matching<T extends { hash: Buffer }>(rows: T[], key: string): T | undefined {
  const h = hashOf(key);
  let found: T | undefined;
  // Compare against every candidate so timing does not depend on which one matched.
  for (const r of rows) if (r.hash.length === h.length && timingSafeEqual(r.hash, h)) found = r;
  return found;
}

export class Keys {
  private readonly q;
  constructor(db: Db) {
    this.q = {
      insertGlobal: db.prepare('INSERT INTO global_key (id, name, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?)'),
      globalByPrefix: db.prepare<[string], GlobalKeyInfo & { hash: Buffer }>(`SELECT ${keyCols} FROM global_key WHERE prefix = ? AND revoked_at IS NULL`),
      activeGlobals: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM global_key WHERE revoked_at IS NULL'),
      touchGlobal: db.prepare('UPDATE global_key SET last_used_at = ? WHERE id = ?'),
      insertTenant: db.prepare(
        'INSERT INTO api_key (id, tenant_id, user_id, name, prefix, hash, permissions, project_ids, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      tenantByPrefix: db.prepare<[string], TenantKeyRow>(`SELECT ${tenantKeyCols} FROM api_key WHERE prefix = ? AND revoked_at IS NULL`),
      tenantKey: db.prepare<[string, string], TenantKeyRow>(`SELECT ${tenantKeyCols} FROM api_key WHERE tenant_id = ? AND id = ?`),
      tenantKeys: db.prepare<[string], TenantKeyRow>(`SELECT ${tenantKeyCols} FROM api_key WHERE tenant_id = ? ORDER BY created_at, id`),
      touchTenant: db.prepare('UPDATE api_key SET last_used_at = ? WHERE id = ?'),
      revokeTenant: db.prepare('UPDATE api_key SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL'),
    };
  }

  /** Registers a global key (from configuration, or freshly generated); idempotent. */
  addGlobal(key: string, name: string): void {
    if (matching(this.q.globalByPrefix.all(prefixOf(key)), key)) return;
    this.q.insertGlobal.run(randomUUID(), name, prefixOf(key), hashOf(key), now());
  }
  hasActiveGlobal(): boolean {
    return this.q.activeGlobals.get()!.n > 0;
  }
  verifyGlobal(key: string): GlobalKeyInfo | undefined {
    const row = matching(this.q.globalByPrefix.all(prefixOf(key)), key);
    if (!row) return undefined;
    this.q.touchGlobal.run(now(), row.id);
    const { hash: _hash, ...info } = row;
    return info;
  }

  createTenantKey(input: { tenantId: string; userId: string; name: string; permissions: Permission[]; projectIds?: string[] | null | undefined }): {
    info: TenantKeyInfo;
    key: string;
  } {
    const key = newSecret('t');
    const id = randomUUID();
    const projects = input.projectIds ? JSON.stringify([...new Set(input.projectIds)]) : null;
    this.q.insertTenant.run(id, input.tenantId, input.userId, input.name, prefixOf(key), hashOf(key), JSON.stringify(normalizePermissions(input.permissions)), projects, now());
    return { info: this.tenantKey(input.tenantId, id)!, key };
  }
  verifyTenant(key: string): TenantKeyInfo | undefined {
    const row = matching(this.q.tenantByPrefix.all(prefixOf(key)), key);
    if (!row) return undefined;
    this.q.touchTenant.run(now(), row.id);
    return tenantKey(row);
  }
  tenantKey(tenantId: string, id: string): TenantKeyInfo | undefined {
    const row = this.q.tenantKey.get(tenantId, id);
    return row && tenantKey(row);
  }
  tenantKeys(tenantId: string): TenantKeyInfo[] {
    return this.q.tenantKeys.all(tenantId).map(tenantKey);
  }
  revokeTenantKey(tenantId: string, id: string): boolean {
    return this.q.revokeTenant.run(now(), tenantId, id).changes > 0;
  }
}
