import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type PcgApp } from '../../api/app.js';
import { MANIFEST, readManifest, type Manifest } from '../../api/backup/index.js';
import { main } from '../../api/cli/main.js';
import { readConfig } from '../../api/config.js';
import { ensureDemo } from '../../api/demo.js';
import { buildDocument } from '../../engine/document/index.js';
import { ProjectRegistry } from '../../engine/projects/index.js';
import { call, events, GLOBAL, makeTenant, openCluster, testApp, type TestApp } from '../api/helpers.js';

/**
 * `pcg backup` as an operator runs it: a child process of api/bin.mjs copying
 * a data directory while this process keeps ingesting into it through the
 * API (and into partition states through the registry); then `pcg restore`
 * into a new directory and an app on that directory, whose documents must
 * equal the ones the source served at the backup's data versions.
 */
const BIN = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));

const dirs: string[] = [];
const apps: { close(): Promise<void> }[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'pcg-backup-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const a of apps) await a.close().catch(() => {});
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A cluster whose ACLs decide, so a source carries a sealed password of its tenant's. */
const CLUSTERS = openCluster(['127.0.0.1:9'], 'tenant');

function source(): TestApp {
  const a = testApp({ kafkaClusters: CLUSTERS });
  apps.push(a);
  return a;
}

/** An app over a restored directory, configured with no global key: the keys must come from the restored catalog and key file. */
function restoredApp(dataDir: string): PcgApp {
  const config = readConfig({}, { dataDir, logLevel: 'silent', rateLimitBurst: 0, kafkaClusters: CLUSTERS });
  const made = createApp({ config, runSources: false });
  apps.push({ close: () => made.app.close() });
  return made;
}

function capture() {
  let out = '';
  let err = '';
  return { io: { out: (t: string) => void (out += t), err: (t: string) => void (err += t) }, out: () => out, err: () => err };
}

/** `node api/bin.mjs …` as a child process. */
function pcg(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

/** Round r of a project's events: fresh cases, one day later than round r-1. */
function round(r: number, label: string, cases = 12): { caseId: string; eventId: string }[] {
  return (events(cases, Date.UTC(2024, 0, 1) + r * 86_400_000) as { caseId: string; eventId: string }[]).map((e) => ({
    ...e,
    caseId: `${label}-${r}-${e.caseId}`,
    eventId: `${label}-${r}-${e.eventId}`,
  }));
}

interface Target {
  tenantId: string;
  projectId: string;
  key: string;
}

/** Serves the project's graph, so the source keeps the document of its current version (`?version=` answers it later). */
async function serveGraph(app: FastifyInstance, t: Target): Promise<void> {
  const g = await call(app, 'GET', `/api/${t.tenantId}/project/${t.projectId}/graph`, t.key);
  expect(g.status).toBe(200);
}

async function ingest(app: FastifyInstance, t: Target, r: number): Promise<void> {
  const res = await call(app, 'POST', `/api/${t.tenantId}/project/${t.projectId}/events`, t.key, round(r, t.projectId.slice(0, 8)));
  expect(res.status, res.text).toBeLessThan(300);
  expect(res.body.accepted).toBeGreaterThan(0);
  await serveGraph(app, t);
}

/**
 * Runs `pcg backup` in a child process while `write(r)` runs round after
 * round here; returns the manifest and how many rounds ran while the backup did.
 */
async function backupWhile(dataDir: string, out: string, write: (r: number) => Promise<void>, firstRound: number): Promise<{ manifest: Manifest; rounds: number; stdout: string }> {
  let done = false;
  const run = pcg(['backup', '--data-dir', dataDir, '--out', out]).finally(() => (done = true));
  let r = firstRound;
  // Bounded: the source keeps the newest 500 served versions per project, and ?version= must still find the backup's.
  while (!done && r < firstRound + 400) await write(r++);
  const result = await run;
  expect(result.err).toBe('');
  expect(result.code).toBe(0);
  return { manifest: readManifest(out), rounds: r - firstRound, stdout: result.out };
}

/** The document built from a data directory's files alone (no version the catalog kept). */
function builtFrom(dataDir: string, projectId: string): unknown {
  const registry = new ProjectRegistry(dataDir);
  try {
    return JSON.parse(JSON.stringify(buildDocument(registry.state(projectId).snapshot())));
  } finally {
    registry.close();
  }
}

/** The restored project serves, and builds from its files, the document the source served at the backup's version. */
async function expectSameDocument(src: FastifyInstance, dst: FastifyInstance, restoredDir: string, t: Target, version: number): Promise<void> {
  const then = await call(src, 'GET', `/api/${t.tenantId}/project/${t.projectId}/graph?version=${version}`, t.key);
  expect(then.status, `version ${version} of ${t.projectId} was served by the source`).toBe(200);
  const restored = await call(dst, 'GET', `/api/${t.tenantId}/project/${t.projectId}/graph`, t.key);
  expect(restored.status).toBe(200);
  expect(restored.body.source.data_version).toBe(String(version));
  for (const field of ['log_digest', 'cases', 'events', 'period_start', 'period_end']) expect(restored.body.source[field]).toEqual(then.body.source[field]);
  expect(restored.body).toEqual(then.body);
  expect(builtFrom(restoredDir, t.projectId)).toEqual(then.body);
}

describe('pcg backup and pcg restore', () => {
  it('a backup taken while projects ingest restores, keys and all, to the documents the source served at the backup data versions', async () => {
    const src = source();
    const a = await makeTenant(src.app, 'a');
    const b = await makeTenant(src.app, 'b');
    const second = await call(src.app, 'POST', `/api/${a.tenantId}/project`, a.admin, { name: 'second' });
    const targets: Target[] = [
      { tenantId: a.tenantId, projectId: a.projectId, key: a.admin },
      { tenantId: a.tenantId, projectId: second.body.id, key: a.admin },
      { tenantId: b.tenantId, projectId: b.projectId, key: b.admin },
    ];

    // Key files: a global key kept in the key file (as an operator would), the demo's key file, and a source's sealed password (source-secret-key).
    const fileKey = await call(src.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'file key' });
    expect(fileKey.status).toBe(201);
    writeFileSync(join(src.dir, 'global-api-key'), `${fileKey.body.key}\n`, { mode: 0o600 });
    const demo = ensureDemo(src.context);
    const kafka = await call(src.app, 'POST', `/api/${b.tenantId}/project/${b.projectId}/source`, b.admin, {
      cluster: 'local',
      topic: 'events',
      format: 'pcg',
      sasl: { mechanism: 'plain', username: 'pcg', password: 'sealed-password' },
    });
    expect(kafka.status, kafka.text).toBe(201);
    // A dataset file.
    const ndjson = round(0, 'upload').map((e) => JSON.stringify(e)).join('\n');
    const upload = await call(src.app, 'POST', `/api/${a.tenantId}/project/${a.projectId}/dataset?name=upload.ndjson`, a.admin, Buffer.from(ndjson), {
      'content-type': 'application/octet-stream',
    });
    expect(upload.status, upload.text).toBe(201);
    await serveGraph(src.app, targets[0]!);

    for (let r = 1; r <= 3; r++) for (const t of targets) await ingest(src.app, t, r);
    const before = targets.map((t) => src.context.states.state(t.projectId).dataVersion);

    // As a running pcg serve would hold it: never copied.
    writeFileSync(join(src.dir, 'serve.lock'), JSON.stringify({ pid: process.pid, hostname: 'here', startedAt: new Date().toISOString(), token: 'x' }));
    const out = join(tempDir(), 'backup');
    const { manifest, rounds, stdout } = await backupWhile(src.dir, out, async (r) => {
      for (const t of targets) await ingest(src.app, t, r);
    }, 4);
    expect(rounds).toBeGreaterThan(0);
    expect(stdout).toMatch(/^pcg backup: \d+ files, 4 projects/);
    // The source goes on past the backup.
    for (let r = 1000; r < 1002; r++) for (const t of targets) await ingest(src.app, t, r);

    // The manifest: every project at a version between the start and the end of the backup, the key files, no transient file.
    const versions = targets.map((t) => manifest.projects.find((p) => p.id === t.projectId)!.dataVersion);
    targets.forEach((t, i) => {
      expect(versions[i]).toBeGreaterThanOrEqual(before[i]!);
      expect(versions[i]).toBeLessThan(src.context.states.state(t.projectId).dataVersion);
    });
    expect(versions.some((v, i) => v > before[i]!), 'the backup ran while the projects ingested').toBe(true);
    const paths = manifest.files.map((f) => f.path);
    expect(paths).toContain('catalog.sqlite');
    for (const key of ['global-api-key', 'source-secret-key', 'demo-api-key']) {
      const entry = manifest.files.find((f) => f.path === key);
      expect(entry?.kind).toBe('key');
      expect(entry?.mode).toBe(0o600);
    }
    const datasetFiles = readdirSync(join(src.dir, 'projects', a.projectId, 'datasets'));
    expect(datasetFiles.length).toBeGreaterThan(0);
    for (const name of datasetFiles) expect(paths).toContain(`projects/${a.projectId}/datasets/${name}`);
    expect(paths.filter((p) => /-(wal|shm|journal)$|serve\.lock$/.test(p))).toEqual([]);
    for (const [i, t] of targets.entries()) {
      const store = manifest.files.find((f) => f.path === `projects/${t.projectId}/state.sqlite`)!;
      expect(store.kind).toBe('project');
      expect(store.dataVersion).toBe(versions[i]);
    }
    expect(statSync(out).mode & 0o777).toBe(0o700);

    // Restore into a new directory, then serve it.
    const restoredDir = join(tempDir(), 'restored');
    const c = capture();
    expect(await main(['restore', '--from', out, '--data-dir', restoredDir], c.io)).toBe(0);
    expect(c.out()).toMatch(/^pcg restore: \d+ files, 4 projects/);
    for (const f of manifest.files) expect(existsSync(join(restoredDir, f.path))).toBe(true);
    const dst = restoredApp(restoredDir);
    for (const [i, t] of targets.entries()) await expectSameDocument(src.app, dst.app, restoredDir, t, versions[i]!);

    // Keys work on the restored directory: tenant keys (admin and read-only), both global keys, the demo key file, the sealed source secret.
    for (const reader of [a, b]) {
      const r = await call(dst.app, 'GET', `/api/${reader.tenantId}/project/${reader.projectId}/graph`, reader.reader);
      expect(r.status).toBe(200);
    }
    expect((await call(dst.app, 'GET', '/api/tenant', GLOBAL)).status).toBe(200);
    expect((await call(dst.app, 'GET', '/api/tenant', fileKey.body.key)).status).toBe(200);
    expect(dst.globalKey.source).toBe('file');
    const demoAgain = ensureDemo(dst.context);
    expect(demoAgain.created).toBe(false);
    expect(demoAgain.key).toBe(demo.key);
    const active = dst.context.catalog.sources.active().find((s) => s.id === kafka.body.id);
    expect(active?.sasl?.password).toBe('sealed-password');
  });

  it('restores a project with partition states written during the backup, merged as the source merged them', async () => {
    const src = source();
    const w = await makeTenant(src.app, 'parts');
    const t: Target = { tenantId: w.tenantId, projectId: w.projectId, key: w.admin };
    const offsets = [0, 0];
    const writePart = (partition: number, r: number) => {
      const result = src.context.states.ingestPart(t.projectId, { records: round(r, `k${partition}`) }, { source: 'orders', partition, offset: offsets[partition]!++ });
      expect(result.accepted).toBeGreaterThan(0);
    };
    await ingest(src.app, t, 0);
    writePart(0, 0);
    writePart(1, 0);
    await serveGraph(src.app, t);
    const before = src.context.states.state(t.projectId).dataVersion;

    const out = join(tempDir(), 'backup');
    const { manifest, rounds } = await backupWhile(src.dir, out, async (r) => {
      // Each write makes a version the source serves: own store, partition 0, partition 1 in turn.
      if (r % 3 === 0) await ingest(src.app, t, r);
      else {
        writePart(r % 3 === 1 ? 0 : 1, r);
        await serveGraph(src.app, t);
      }
    }, 1);
    expect(rounds).toBeGreaterThan(0);
    writePart(0, 999);

    const entry = manifest.projects.find((p) => p.id === t.projectId)!;
    expect(entry.stores).toBe(3);
    expect(entry.cut).toBe('consistent');
    expect(entry.dataVersion).toBeGreaterThanOrEqual(before);
    const parts = manifest.files.filter((f) => f.project === t.projectId && f.kind === 'partition').map((f) => f.path);
    expect(parts).toEqual([`projects/${t.projectId}/parts/orders.0.sqlite`, `projects/${t.projectId}/parts/orders.1.sqlite`]);

    const restoredDir = join(tempDir(), 'restored');
    const c = capture();
    expect(await main(['restore', '--from', out, '--data-dir', restoredDir], c.io)).toBe(0);
    const dst = restoredApp(restoredDir);
    await expectSameDocument(src.app, dst.app, restoredDir, t, entry.dataVersion);
    // Each partition state resumes from its own stored offset: one batch per offset, so the offset is its version - 1.
    const registry = new ProjectRegistry(restoredDir);
    try {
      for (const { partition, store } of registry.partsOf(t.projectId, 'orders')) {
        const listed = manifest.files.find((f) => f.path.endsWith(`orders.${partition}.sqlite`))!;
        expect(store.dataVersion).toBe(listed.dataVersion);
        expect(store.position('orders', partition)).toBe(store.dataVersion - 1);
      }
    } finally {
      registry.close();
    }
  });

  it('refuses what it must: usage, no data directory, an occupied --out, a restore into a used, locked or non-empty directory, a tampered backup', async () => {
    const src = source();
    const w = await makeTenant(src.app, 'refusals');
    const t: Target = { tenantId: w.tenantId, projectId: w.projectId, key: w.admin };
    await ingest(src.app, t, 0);
    const base = tempDir();
    const run = async (args: string[]) => {
      const c = capture();
      const code = await main(args, c.io);
      return { code, out: c.out(), err: c.err() };
    };

    expect((await run(['backup', '--data-dir', src.dir])).code).toBe(2);
    expect((await run(['restore', '--from', base])).code).toBe(2);
    const empty = join(base, 'empty-data');
    mkdirSync(empty);
    expect(await run(['backup', '--data-dir', empty, '--out', join(base, 'x')])).toMatchObject({ code: 1, err: expect.stringContaining('not_a_data_dir') });
    expect(await run(['backup', '--data-dir', src.dir, '--out', join(src.dir, 'inside')])).toMatchObject({ code: 1, err: expect.stringContaining('backup_inside_data_dir') });
    const occupied = join(base, 'occupied');
    mkdirSync(occupied);
    writeFileSync(join(occupied, 'something'), 'x');
    expect(await run(['backup', '--data-dir', src.dir, '--out', occupied])).toMatchObject({ code: 1, err: expect.stringContaining('backup_out_exists') });

    // In process too, into an existing empty directory.
    const out = join(base, 'backup');
    mkdirSync(out);
    expect((await run(['backup', '--data-dir', src.dir, '--out', out, '--quiet'])).code).toBe(0);
    expect(existsSync(join(out, MANIFEST))).toBe(true);
    expect(readdirSync(base).filter((n) => n.includes('.partial-'))).toEqual([]);

    // The restore target: non-empty, locked, then a good restore and a second one into the same place.
    const notEmpty = join(base, 'not-empty');
    mkdirSync(notEmpty);
    writeFileSync(join(notEmpty, 'x'), 'x');
    expect(await run(['restore', '--from', out, '--data-dir', notEmpty])).toMatchObject({ code: 1, err: expect.stringContaining('restore_target_not_empty') });
    const locked = join(base, 'locked');
    mkdirSync(locked);
    writeFileSync(join(locked, 'serve.lock'), JSON.stringify({ pid: process.pid, hostname: 'h', startedAt: new Date().toISOString(), token: 't' }));
    const refusedLock = await run(['restore', '--from', out, '--data-dir', locked]);
    expect(refusedLock).toMatchObject({ code: 1, err: expect.stringContaining('restore_target_in_use') });
    expect(refusedLock.err).toContain('serve.lock');
    const good = join(base, 'good');
    expect((await run(['restore', '--from', out, '--data-dir', good])).code).toBe(0);
    expect(await run(['restore', '--from', out, '--data-dir', good])).toMatchObject({ code: 1, err: expect.stringContaining('restore_target_not_empty') });

    // A backup whose file changed after it was written: refused, nothing left behind.
    const manifest = readManifest(out);
    const store = manifest.files.find((f) => f.kind === 'project')!;
    appendFileSync(join(out, store.path), Buffer.from([0]));
    const tampered = join(base, 'tampered');
    const refused = await run(['restore', '--from', out, '--data-dir', tampered]);
    expect(refused).toMatchObject({ code: 1, err: expect.stringContaining('checksum_mismatch') });
    expect(refused.err).toContain(store.path);
    expect(existsSync(tampered)).toBe(false);
    expect(readdirSync(base).filter((n) => n.includes('.partial-'))).toEqual([]);
    // Into an existing empty directory: emptied again.
    const emptyTarget = join(base, 'empty-target');
    mkdirSync(emptyTarget);
    expect((await run(['restore', '--from', out, '--data-dir', emptyTarget])).code).toBe(1);
    expect(readdirSync(emptyTarget)).toEqual([]);

    // No manifest: an unfinished backup or no backup at all; a manifest pointing outside its directory.
    rmSync(join(out, MANIFEST));
    expect(await run(['restore', '--from', out, '--data-dir', join(base, 'none')])).toMatchObject({ code: 1, err: expect.stringContaining('backup_incomplete') });
    writeFileSync(join(out, MANIFEST), JSON.stringify({ ...manifest, files: [{ ...manifest.files[0]!, path: '../escape' }] }));
    expect(await run(['restore', '--from', out, '--data-dir', join(base, 'none')])).toMatchObject({ code: 1, err: expect.stringContaining('backup_invalid') });
    writeFileSync(join(out, MANIFEST), JSON.stringify({ ...manifest, version: 99 }));
    expect(await run(['restore', '--from', out, '--data-dir', join(base, 'none')])).toMatchObject({ code: 1, err: expect.stringContaining('backup_too_new') });
    expect(existsSync(join(base, 'none'))).toBe(false);
    expect(readFileSync(join(good, 'catalog.sqlite')).subarray(0, 15).toString()).toBe('SQLite format 3');

    // A damaged store stops the backup, named, and leaves nothing behind.
    const other = await call(src.app, 'POST', `/api/${t.tenantId}/project`, t.key, { name: 'damaged' });
    // Its store closed first (the registry opened it): with the writer's WAL beside it the file would still read fine.
    src.context.states.close();
    mkdirSync(join(src.dir, 'projects', other.body.id), { recursive: true });
    writeFileSync(join(src.dir, 'projects', other.body.id, 'state.sqlite'), Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(4096, 7)]));
    const damaged = await run(['backup', '--data-dir', src.dir, '--out', join(base, 'damaged')]);
    expect(damaged).toMatchObject({ code: 1, err: expect.stringContaining('copy_failed') });
    expect(damaged.err).toContain(`projects/${other.body.id}/state.sqlite`);
    expect(existsSync(join(base, 'damaged'))).toBe(false);
    expect(readdirSync(base).filter((n) => n.includes('.partial-'))).toEqual([]);
  });
});
