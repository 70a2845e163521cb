import { gunzipSync } from 'node:zlib';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Catalog } from '../../api/catalog/index.js';
import { migrations } from '../../api/catalog/migrations.js';
import { GraphVersions } from '../../api/catalog/records.js';

describe('catalog', () => {
  let dir: string;
  let c: Catalog;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pcg-catalog-'));
    c = Catalog.open(join(dir, 'catalog.sqlite'));
  });
  afterEach(() => {
    c.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is migrated, WAL, with STRICT tables and foreign keys on', () => {
    expect(c.db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(c.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(c.db.pragma('foreign_keys', { simple: true })).toBe(1);
    const tables = c.db.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all();
    expect(tables.map((t) => t.name).sort()).toEqual(['api_key', 'block', 'dashboard', 'dataset', 'global_key', 'graph_version', 'investigation', 'kafka_cluster', 'kafka_grant', 'kafka_topic', 'membership', 'notebook', 'project', 'source', 'source_status', 'tenant', 'user']);
    for (const t of tables) expect(t.sql, t.name).toMatch(/STRICT$/);
  });

  it("lists a project's kept graph versions from an index, never reading the documents", () => {
    const plan = c.db
      .prepare<[string], { detail: string }>('EXPLAIN QUERY PLAN SELECT data_version AS dataVersion, created_at AS createdAt FROM graph_version WHERE project_id = ? ORDER BY data_version')
      .all('p');
    expect(plan.map((r) => r.detail)).toEqual(['SEARCH graph_version USING COVERING INDEX graph_version_listed (project_id=?)']);
  });

  it('keeps keys as hashes, finds them in constant time, and records their use', () => {
    const tenant = c.identity.createTenant({ name: 't' });
    const user = c.identity.createUser({ email: 'u@example.com' })!;
    c.identity.putMembership(tenant.id, user.id, ['read']);
    const { info, key } = c.keys.createTenantKey({ tenantId: tenant.id, userId: user.id, name: 'k', permissions: ['read'] });
    expect(info.lastUsedAt).toBeNull();
    const stored = c.db.prepare<[], { hash: Buffer; prefix: string }>('SELECT hash, prefix FROM api_key').get()!;
    expect(stored.hash).toHaveLength(32);
    expect(key.startsWith(stored.prefix)).toBe(true);
    expect(key.length).toBeGreaterThan(40);
    expect(c.keys.verifyTenant(key)?.id).toBe(info.id);
    expect(c.keys.verifyTenant(`${key}x`)).toBeUndefined();
    expect(c.keys.verifyTenant(`${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
    expect(c.keys.tenantKey(tenant.id, info.id)?.lastUsedAt).not.toBeNull();
    expect(c.keys.revokeTenantKey(tenant.id, info.id)).toBe(true);
    expect(c.keys.verifyTenant(key)).toBeUndefined();
  });

  it('keeps only the newest graph versions of a project', () => {
    const tenant = c.identity.createTenant({ name: 't' });
    const p = c.projects.create(tenant.id, { name: 'p' });
    const versions = new GraphVersions(c.db, 3);
    for (let v = 1; v <= 6; v++) versions.put(p.id, v, `{"v":${v}}`);
    expect(versions.list(p.id).map((x) => x.dataVersion)).toEqual([4, 5, 6]);
    // Kept gzip-compressed.
    expect(gunzipSync(versions.get(p.id, 5)!.gzip!).toString()).toBe('{"v":5}');
    expect(versions.get(p.id, 1)).toBeUndefined();
    // A row kept as text before documents were compressed is still answered, as text.
    c.db.prepare("INSERT INTO graph_version (project_id, data_version, document, created_at) VALUES (?, 7, '{\"v\":7}', '2026-01-01T00:00:00.000Z')").run(p.id);
    expect(versions.get(p.id, 7)).toEqual({ json: '{"v":7}' });
  });

  it('keeps a project\'s graph versions within a byte budget of stored (compressed) bytes too, the oldest pruned first', () => {
    const tenant = c.identity.createTenant({ name: 't' });
    const [p, q] = [c.projects.create(tenant.id, { name: 'p' }), c.projects.create(tenant.id, { name: 'q' })];
    // The stored form given as is: `bytes` of it.
    const packed = (bytes: number) => new Uint8Array(bytes).fill(7);
    const versions = new GraphVersions(c.db, 100, 2500);
    for (let v = 1; v <= 4; v++) expect(versions.put(p.id, v, '{}', packed(1000))).toBe(true);
    // 4 × 1000 bytes in a budget of 2500: the newest two stay.
    expect(versions.list(p.id).map((x) => x.dataVersion)).toEqual([3, 4]);
    expect(versions.bytes(p.id)).toBe(2000);
    // A text row kept before compression counts its text's bytes, not characters: 400 three-byte characters are 1200.
    c.db.prepare("INSERT INTO graph_version (project_id, data_version, document, created_at) VALUES (?, 5, ?, '2026-01-01T00:00:00.000Z')").run(p.id, `"${'€'.repeat(400)}"`);
    expect(versions.bytes(p.id)).toBe(3202);
    // The next put prunes: 1 + 1202 + 1000 fit, the 1000 before do not.
    expect(versions.put(p.id, 6, '{}', packed(1))).toBe(true);
    expect(versions.list(p.id).map((x) => x.dataVersion)).toEqual([4, 5, 6]);
    expect(versions.bytes(p.id)).toBe(2203);
    // A document larger than the whole budget is not kept (it was served), and the kept ones stay.
    expect(versions.put(p.id, 7, '{}', packed(2501))).toBe(false);
    expect(versions.get(p.id, 7)).toBeUndefined();
    expect(versions.list(p.id).map((x) => x.dataVersion)).toEqual([4, 5, 6]);
    // Exactly the budget fits, alone.
    expect(versions.put(p.id, 8, '{}', packed(2500))).toBe(true);
    expect(versions.list(p.id).map((x) => x.dataVersion)).toEqual([8]);
    // What a document packs to is what counts: 100 kB of one repeated name stores in well under the budget.
    expect(versions.put(p.id, 9, JSON.stringify({ names: Array(5000).fill('W_Completeren aanvraag') }))).toBe(true);
    expect(versions.list(p.id).map((x) => x.dataVersion)).toEqual([9]);
    // Each project has its own budget; the count still holds.
    const few = new GraphVersions(c.db, 2, 10_000);
    for (let v = 1; v <= 3; v++) few.put(q.id, v, '{}', packed(100));
    expect(few.list(q.id).map((x) => x.dataVersion)).toEqual([2, 3]);
    // The same version again: still kept. A project deleted while its document was built keeps nothing, and nothing fails.
    expect(few.put(q.id, 3, '{}', packed(100))).toBe(true);
    c.projects.delete(tenant.id, q.id);
    expect(few.put(q.id, 4, '{}', packed(100))).toBe(false);
    expect(few.list(q.id)).toEqual([]);
    expect(versions.list(p.id).map((x) => x.dataVersion)).toEqual([9]);
    // The defaults: 500 versions, 256 MiB.
    expect([c.graphVersions.keep, c.graphVersions.maxBytes]).toEqual([500, 256 * 1024 * 1024]);
  });

  it('cascades a tenant delete to every record', () => {
    const tenant = c.identity.createTenant({ name: 't' });
    const p = c.projects.create(tenant.id, { name: 'p' });
    const inv = c.investigations.create(tenant.id, p.id, null, 'i', {});
    const nb = c.notebooks.create(tenant.id, p.id, inv.id, 'n', {});
    c.blocks.create(tenant.id, p.id, nb.id, 'b', {});
    c.blocks.create(tenant.id, p.id, nb.id, 'b2', {});
    expect(c.blocks.list(tenant.id, p.id, nb.id).map((b) => b.position)).toEqual([0, 1]);
    c.graphVersions.put(p.id, 1, '{}');
    c.identity.deleteTenant(tenant.id);
    for (const table of ['project', 'investigation', 'notebook', 'block', 'graph_version']) {
      expect(c.db.prepare(`SELECT count(*) AS n FROM ${table}`).get(), table).toEqual({ n: 0 });
    }
  });
});
