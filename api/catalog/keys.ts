import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { now, type Db } from './database.js';
import { normalizePermissions, type Permission } from './identity.js';

/**
 * API keys: 32 random bytes, shown once, stored only as their SHA-256. A key
 * is found by its (non-secret) prefix and then compared in constant time.
 * A key may carry an expiry; a revoked key never comes back.
 */
const PREFIX_LEN = 12;
/** last_used_at is written at most this often per key. */
export const TOUCH_INTERVAL_MS = 60_000;

export function newSecret(kind: 'g' | 't'): string {
  return `pcg${kind}_${randomBytes(32).toString('base64url')}`;
}
const hashOf = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();
const prefixOf = (key: string): string => key.slice(0, PREFIX_LEN);

interface KeyInfo {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Null: never expires. */
  expiresAt: string | null;
  /** The key that issued it (a global or a tenant key); null: made by the server itself, or before pcg recorded issuers. */
  issuedByKeyId: string | null;
}
/** Where a global key came from: PCG_GLOBAL_API_KEY, the key file, or /admin/global-api-keys. */
export type GlobalKeyOrigin = 'config' | 'file' | 'api';
export interface GlobalKeyInfo extends KeyInfo {
  origin: GlobalKeyOrigin;
}
export interface TenantKeyInfo extends KeyInfo {
  tenantId: string;
  userId: string;
  /** The user who held the issuing key, when a tenant key issued it. */
  issuedByUserId: string | null;
  permissions: Permission[];
  /** Null: every project of the tenant. */
  projectIds: string[] | null;
}

/** True when the key has an expiry and it has passed. */
export function isExpired(info: { expiresAt: string | null }, at: number = Date.now()): boolean {
  return info.expiresAt !== null && Date.parse(info.expiresAt) <= at;
}

type GlobalKeyRow = GlobalKeyInfo & { hash: Buffer };
type TenantKeyRow = Omit<TenantKeyInfo, 'permissions' | 'projectIds'> & { permissions: string; projectIds: string | null; hash: Buffer };
const globalKey = ({ hash: _hash, ...r }: GlobalKeyRow): GlobalKeyInfo => r;
const tenantKey = ({ hash: _hash, ...r }: TenantKeyRow): TenantKeyInfo => ({
  ...r,
  permissions: JSON.parse(r.permissions) as Permission[],
  projectIds: r.projectIds === null ? null : (JSON.parse(r.projectIds) as string[]),
});

const keyCols = 'id, name, hash, created_at AS createdAt, last_used_at AS lastUsedAt, revoked_at AS revokedAt, expires_at AS expiresAt, issued_by_key AS issuedByKeyId';
const globalKeyCols = `${keyCols}, origin`;
const tenantKeyCols = `${keyCols}, tenant_id AS tenantId, user_id AS userId, permissions, project_ids AS projectIds, issued_by_user AS issuedByUserId`;

/** Who issues a key: the issuing key (global or tenant) and, for a tenant key, its user and expiry. */
export interface Issuer {
  keyId: string;
  userId: string | null;
  expiresAt: string | null;
}

/**
 * The keys `ids` issued, their own issued keys, and so on down, the `ids` themselves included: every key that
 * must go when one of them goes. Keys of both kinds issue keys (a global key issues tenant keys too).
 */
const LINEAGE = `WITH RECURSIVE lineage(id) AS (
  SELECT value FROM json_each(?)
  UNION SELECT k.id FROM api_key k JOIN lineage l ON k.issued_by_key = l.id
  UNION SELECT g.id FROM global_key g JOIN lineage l ON g.issued_by_key = l.id
)`;

/** The later of two expiries never wins: a key issued by an expiring key expires with it at the latest. */
export function cappedExpiry(wanted: string | null | undefined, issuer: Issuer | undefined): string | null | 'later' {
  const mine = wanted ? new Date(wanted).toISOString() : null;
  if (!issuer?.expiresAt) return mine;
  if (mine === null) return issuer.expiresAt;
  return Date.parse(mine) > Date.parse(issuer.expiresAt) ? 'later' : mine;
}

function matching<T extends { hash: Buffer }>(rows: T[], key: string): T | undefined {
  const h = hashOf(key);
  let found: T | undefined;
  // Compare against every candidate so timing does not depend on which one matched.
  for (const r of rows) if (r.hash.length === h.length && timingSafeEqual(r.hash, h)) found = r;
  return found;
}

export class Keys {
  /**
   * 'change' after any key is revoked (or the configured global key replaced):
   * open streams re-check the key they were opened with.
   */
  readonly changes = new EventEmitter().setMaxListeners(0);
  private readonly q;
  private readonly db: Db;
  /**
   * When each key's last_used_at was last written (ms), to write it at most once a minute. Entries older than
   * that decide nothing, so they are swept: a key that goes without being revoked (its tenant or user deleted,
   * expired, just never used again) would otherwise stay here for the life of the process.
   */
  private readonly touched = new Map<string, number>();
  private swept = 0;

  constructor(db: Db) {
    this.db = db;
    this.q = {
      insertGlobal: db.prepare('INSERT INTO global_key (id, name, prefix, hash, created_at, expires_at, origin, issued_by_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      globalByPrefix: db.prepare<[string], GlobalKeyRow>(`SELECT ${globalKeyCols} FROM global_key WHERE prefix = ? AND revoked_at IS NULL`),
      anyGlobalByPrefix: db.prepare<[string], GlobalKeyRow>(`SELECT ${globalKeyCols} FROM global_key WHERE prefix = ?`),
      globalKey: db.prepare<[string], GlobalKeyRow>(`SELECT ${globalKeyCols} FROM global_key WHERE id = ?`),
      globalKeys: db.prepare<[], GlobalKeyRow>(`SELECT ${globalKeyCols} FROM global_key ORDER BY created_at, id`),
      activeGlobals: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM global_key WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)'),
      activeGlobalsBeyond: db.prepare<[string, string], { n: number }>(
        `${LINEAGE} SELECT count(*) AS n FROM global_key WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) AND id NOT IN (SELECT id FROM lineage)`,
      ),
      revokeLineage: db.prepare<[string, string], { id: string }>(
        `${LINEAGE} UPDATE api_key SET revoked_at = ? WHERE revoked_at IS NULL AND id IN (SELECT id FROM lineage) RETURNING id`,
      ),
      revokeGlobalLineage: db.prepare<[string, string], { id: string }>(
        `${LINEAGE} UPDATE global_key SET revoked_at = ? WHERE revoked_at IS NULL AND id IN (SELECT id FROM lineage) RETURNING id`,
      ),
      issuedByUser: db.prepare<[string, string | null, string | null], { id: string }>(
        'SELECT id FROM api_key WHERE revoked_at IS NULL AND issued_by_user = ? AND (? IS NULL OR tenant_id = ?)',
      ),
      keysOfUser: db.prepare<[string], { id: string }>('SELECT id FROM api_key WHERE user_id = ?'),
      globalIssued: db.prepare<[string], GlobalKeyRow>(`SELECT ${globalKeyCols} FROM global_key WHERE issued_by_key = ? AND revoked_at IS NULL ORDER BY created_at, id`),
      tenantIssued: db.prepare<[string], TenantKeyRow>(`SELECT ${tenantKeyCols} FROM api_key WHERE issued_by_key = ? AND revoked_at IS NULL ORDER BY created_at, id`),
      touchGlobal: db.prepare('UPDATE global_key SET last_used_at = ? WHERE id = ?'),
      revokeGlobal: db.prepare('UPDATE global_key SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      setOrigin: db.prepare('UPDATE global_key SET origin = ? WHERE id = ?'),
      revokeConfigured: db.prepare<[string, string], { id: string }>("UPDATE global_key SET revoked_at = ? WHERE origin = 'config' AND revoked_at IS NULL AND id <> ? RETURNING id"),
      issuedLive: db.prepare<[string, string], { n: number }>(
        'SELECT (SELECT count(*) FROM api_key WHERE revoked_at IS NULL AND issued_by_key IN (SELECT value FROM json_each(?))) + (SELECT count(*) FROM global_key WHERE revoked_at IS NULL AND issued_by_key IN (SELECT value FROM json_each(?))) AS n',
      ),
      insertTenant: db.prepare(
        'INSERT INTO api_key (id, tenant_id, user_id, name, prefix, hash, permissions, project_ids, created_at, expires_at, issued_by_key, issued_by_user) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      tenantByPrefix: db.prepare<[string], TenantKeyRow>(`SELECT ${tenantKeyCols} FROM api_key WHERE prefix = ? AND revoked_at IS NULL`),
      tenantKey: db.prepare<[string, string], TenantKeyRow>(`SELECT ${tenantKeyCols} FROM api_key WHERE tenant_id = ? AND id = ?`),
      tenantKeys: db.prepare<[string], TenantKeyRow>(`SELECT ${tenantKeyCols} FROM api_key WHERE tenant_id = ? ORDER BY created_at, id`),
      touchTenant: db.prepare('UPDATE api_key SET last_used_at = ? WHERE id = ?'),
      revokeTenant: db.prepare('UPDATE api_key SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL'),
    };
  }

  // ---- global keys ----

  /**
   * Registers a global key the server was given (configuration or key file)
   * unless it is known already, revoked or not: a revoked key never comes back.
   * A known usable key given as the configured one becomes the configured row.
   */
  addGlobal(key: string, name: string, origin: Exclude<GlobalKeyOrigin, 'api'> = 'file'): GlobalKeyInfo {
    const known = matching(this.q.anyGlobalByPrefix.all(prefixOf(key)), key);
    if (known) {
      if (origin === 'config' && known.origin !== 'config' && known.revokedAt === null) {
        this.q.setOrigin.run('config', known.id);
        return this.globalKey(known.id)!;
      }
      return globalKey(known);
    }
    const id = randomUUID();
    this.q.insertGlobal.run(id, name, prefixOf(key), hashOf(key), now(), null, origin, null);
    return this.globalKey(id)!;
  }
  /**
   * Revokes every configured key's row but `keep`'s: the configured key changed. Unlike a revocation at
   * /admin/global-api-keys, a rotation keeps the keys the old one issued (rotating the server's key must not
   * revoke every tenant's keys): `kept` says how many, and they name the old key as their issuer.
   */
  revokeConfiguredExcept(keep: string): { revoked: number; kept: number } {
    const ids = this.q.revokeConfigured.all(now(), keep).map((r) => r.id);
    if (ids.length > 0) this.changes.emit('change');
    return { revoked: ids.length, kept: ids.length ? this.q.issuedLive.get(JSON.stringify(ids), JSON.stringify(ids))!.n : 0 };
  }
  /** A key issued by `issuer` (null: by the server) never outlives it: its expiry is at most the issuer's (the caller refuses a later one). */
  createGlobalKey(input: { name: string; expiresAt?: string | null | undefined; issuer?: Issuer | undefined }): { info: GlobalKeyInfo; key: string } {
    const key = newSecret('g');
    const id = randomUUID();
    const expiresAt = cappedExpiry(input.expiresAt, input.issuer);
    if (expiresAt === 'later') throw new Error('a key cannot outlive the key that issues it');
    this.q.insertGlobal.run(id, input.name, prefixOf(key), hashOf(key), now(), expiresAt, 'api', input.issuer?.keyId ?? null);
    return { info: this.globalKey(id)!, key };
  }
  globalKey(id: string): GlobalKeyInfo | undefined {
    const row = this.q.globalKey.get(id);
    return row && globalKey(row);
  }
  globalKeys(): GlobalKeyInfo[] {
    return this.q.globalKeys.all().map(globalKey);
  }
  /** Global keys neither revoked nor expired. */
  activeGlobalCount(): number {
    return this.q.activeGlobals.get(now())!.n;
  }
  hasActiveGlobal(): boolean {
    return this.activeGlobalCount() > 0;
  }
  /**
   * Revokes a global key; with `withIssued`, every key it issued too, down the line. Without it the keys it issued
   * stay: global keys are rotated by making the next one with the current one and then revoking it, and the
   * tenant keys a global key issued are the tenants' working keys. They keep naming it as their issuer
   * (`issuedBy` lists them). 'last' when no usable global key would be left (nothing is changed then).
   */
  revokeGlobalKey(id: string, withIssued = false): 'revoked' | 'not_found' | 'last' {
    const result = this.db
      .transaction((): 'revoked' | 'not_found' | 'last' => {
        const row = this.q.globalKey.get(id);
        if (!row || row.revokedAt !== null) return 'not_found';
        const going = withIssued ? JSON.stringify([id]) : '[]';
        const left = this.q.activeGlobalsBeyond.get(going, now())!.n - (withIssued || isExpired(row) ? 0 : 1);
        if (!isExpired(row) && left <= 0) return 'last';
        if (withIssued) this.revokeLineage([id]);
        else this.q.revokeGlobal.run(now(), id);
        return 'revoked';
      })
      .immediate();
    if (result === 'revoked') {
      this.touched.delete(id);
      this.changes.emit('change');
    }
    return result;
  }

  /** The keys a key issued that are not revoked (one level: what revoking it with `withIssued` starts from). */
  issuedBy(keyId: string): { globalKeys: GlobalKeyInfo[]; tenantKeys: TenantKeyInfo[] } {
    return { globalKeys: this.q.globalIssued.all(keyId).map(globalKey), tenantKeys: this.q.tenantIssued.all(keyId).map(tenantKey) };
  }

  /** The unrevoked global key with this secret, expired or not; last_used_at is not written. */
  matchGlobal(key: string): GlobalKeyInfo | undefined {
    const row = matching(this.q.globalByPrefix.all(prefixOf(key)), key);
    return row && globalKey(row);
  }
  /** The usable (unrevoked, unexpired) global key with this secret; records its use. */
  verifyGlobal(key: string): GlobalKeyInfo | undefined {
    const info = this.matchGlobal(key);
    if (!info || isExpired(info)) return undefined;
    this.touch('global', info.id);
    return info;
  }

  // ---- tenant keys ----

  /** A key issued by `issuer` (null: by the server) never outlives it: its expiry is at most the issuer's (the caller refuses a later one). */
  createTenantKey(input: {
    tenantId: string;
    userId: string;
    name: string;
    permissions: Permission[];
    projectIds?: string[] | null | undefined;
    expiresAt?: string | null | undefined;
    issuer?: Issuer | undefined;
  }): {
    info: TenantKeyInfo;
    key: string;
  } {
    const key = newSecret('t');
    const id = randomUUID();
    const expiresAt = cappedExpiry(input.expiresAt, input.issuer);
    if (expiresAt === 'later') throw new Error('a key cannot outlive the key that issues it');
    const projects = input.projectIds ? JSON.stringify([...new Set(input.projectIds)]) : null;
    this.q.insertTenant.run(
      id,
      input.tenantId,
      input.userId,
      input.name,
      prefixOf(key),
      hashOf(key),
      JSON.stringify(normalizePermissions(input.permissions)),
      projects,
      now(),
      expiresAt,
      input.issuer?.keyId ?? null,
      input.issuer?.userId ?? null,
    );
    return { info: this.tenantKey(input.tenantId, id)!, key };
  }
  /** The unrevoked tenant key with this secret, expired or not; last_used_at is not written. */
  matchTenant(key: string): TenantKeyInfo | undefined {
    const row = matching(this.q.tenantByPrefix.all(prefixOf(key)), key);
    return row && tenantKey(row);
  }
  /** The usable (unrevoked, unexpired) tenant key with this secret; records its use. */
  verifyTenant(key: string): TenantKeyInfo | undefined {
    const info = this.matchTenant(key);
    if (!info || isExpired(info)) return undefined;
    this.touch('tenant', info.id);
    return info;
  }
  tenantKey(tenantId: string, id: string): TenantKeyInfo | undefined {
    const row = this.q.tenantKey.get(tenantId, id);
    return row && tenantKey(row);
  }
  tenantKeys(tenantId: string): TenantKeyInfo[] {
    return this.q.tenantKeys.all(tenantId).map(tenantKey);
  }
  /** Revokes a tenant key with every key it issued, down the line. */
  revokeTenantKey(tenantId: string, id: string): boolean {
    const done = this.db
      .transaction(() => {
        const row = this.q.tenantKey.get(tenantId, id);
        if (!row || row.revokedAt !== null) return false;
        this.revokeLineage([id]);
        return true;
      })
      .immediate();
    if (done) this.changes.emit('change');
    return done;
  }

  /**
   * A user leaves a tenant (tenantId) or pcg (null): the keys they issued go, down the line. Their own keys go
   * with the user's row when the user is deleted; on leaving one tenant they stay, capped to nothing by the
   * membership (auth.ts), and work again if the user is added back.
   */
  revokeIssuedByUser(userId: string, tenantId: string | null): number {
    const issued = this.q.issuedByUser.all(userId, tenantId, tenantId).map((r) => r.id);
    // Deleting the user deletes their own keys' rows: what those keys issued is revoked first.
    const own = tenantId === null ? this.q.keysOfUser.all(userId).map((r) => r.id) : [];
    const n = this.revokeLineage([...issued, ...own]);
    if (n > 0) this.changes.emit('change');
    return n;
  }

  /** Revokes the keys `ids` and every key issued below them; how many were revoked. */
  private revokeLineage(ids: string[]): number {
    if (ids.length === 0) return 0;
    const at = now();
    const list = JSON.stringify(ids);
    const revoked = [...this.q.revokeLineage.all(list, at), ...this.q.revokeGlobalLineage.all(list, at)];
    for (const r of revoked) this.touched.delete(r.id);
    return revoked.length;
  }

  /** Keys whose last write is still recent enough to hold the next one back (for tests). */
  get touchedCount(): number {
    return this.touched.size;
  }

  /** Records a key's use: last_used_at is written at most once a minute per key (per process). */
  touch(kind: 'global' | 'tenant', id: string): void {
    const t = Date.now();
    const last = this.touched.get(id);
    if (last !== undefined && t - last < TOUCH_INTERVAL_MS) return;
    this.touched.set(id, t);
    if (t - this.swept >= TOUCH_INTERVAL_MS) {
      this.swept = t;
      for (const [key, at] of this.touched) if (t - at >= TOUCH_INTERVAL_MS) this.touched.delete(key);
    }
    (kind === 'global' ? this.q.touchGlobal : this.q.touchTenant).run(new Date(t).toISOString(), id);
  }
}
