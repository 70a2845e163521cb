import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../api/cli/main.js';
import { buildDocument } from '../../engine/document/index.js';
import { ProjectStore } from '../../engine/index.js';
import { call, GLOBAL, makeTenant, testApp } from '../api/helpers.js';

/**
 * Retention run by the command line: a real `pcg serve` child pruning on its
 * own every PCG_RETENTION_INTERVAL_S, and `pcg prune` over a data directory
 * and over one project folder.
 */
const BIN = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));
const DAY = 86_400_000;
const T0 = Date.UTC(2025, 0, 1);
const METRICS = 'prune-metrics-token-0123456789ab';

const dirs: string[] = [];
const children = new Set<ChildProcess>();
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'pcg-prune-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Cases a → b, one a day for `days` days from T0. */
function daily(days: number): object[] {
  const out: object[] = [];
  for (let d = 0; d < days; d++) {
    out.push({ caseId: `c${d}`, activity: 'a', timestamp: T0 + d * DAY, eventId: `c${d}-a` });
    out.push({ caseId: `c${d}`, activity: 'b', timestamp: T0 + d * DAY + 3_600_000, eventId: `c${d}-b` });
  }
  return out;
}

function capture() {
  let out = '';
  let err = '';
  return { io: { out: (t: string) => void (out += t), err: (t: string) => void (err += t) }, out: () => out, err: () => err };
}

/** Runs `main` with some PCG_* variables set, restoring the environment after. */
async function withEnv<T>(env: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return await run();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('pcg serve', () => {
  it('prunes on its own at start and every PCG_RETENTION_INTERVAL_S', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dir, '--port', '0'], {
      env: { ...process.env, PCG_GLOBAL_API_KEY: GLOBAL, PCG_LOG_LEVEL: 'warn', PCG_RATE_LIMIT_BURST: '0', PCG_RETENTION_INTERVAL_S: '1', PCG_RETENTION_DAYS: '10', PCG_METRICS_TOKEN: METRICS },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    while (!/pcg listening on (http:\/\/\S+)/.test(out)) await sleep(50);
    const url = /pcg listening on (http:\/\/\S+)/.exec(out)![1]!;
    const http = async (method: string, path: string, key: string, body?: unknown) => {
      const r = await fetch(url + path, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
      return { status: r.status, text: await r.text() };
    };
    const tenant = JSON.parse((await http('POST', '/api/tenant', GLOBAL, { name: 't' })).text).id;
    const user = JSON.parse((await http('POST', '/api/user', GLOBAL, { email: 'u@example.com' })).text).id;
    await http('POST', `/api/tenant/${tenant}/user`, GLOBAL, { userId: user, permissions: ['read', 'write'] });
    const key = JSON.parse((await http('POST', `/api/tenant/${tenant}/apikey`, GLOBAL, { userId: user, name: 'k' })).text).key;
    const project = JSON.parse((await http('POST', `/api/${tenant}/project`, key, { name: 'p' })).text);
    expect(project.retentionDays).toBe(10);
    expect((await http('POST', `/api/${tenant}/project/${project.id}/events`, key, daily(40))).status).toBe(200);
    const pruned = async () => Number(/^pcg_events_pruned_total\{project="[^"]+"\} (\d+)$/m.exec((await http('GET', '/metrics', METRICS)).text)?.[1] ?? 0);
    let seen = 0;
    while (seen < 58) {
      await sleep(100);
      seen = await pruned();
    }
    // Days 0..28 are closed more than 10 days before the newest event (day 39).
    expect(seen).toBe(58);
    const doc = JSON.parse((await http('GET', `/api/${tenant}/project/${project.id}/graph`, key)).text);
    expect(doc.source.events).toBe(80);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const store = ProjectStore.open(join(dir, 'projects', project.id, 'state.sqlite'));
    expect(store.eventCount()).toBe(22);
    expect(store.snapshot().tally.events).toBe(80);
    store.close();
  });
});

describe('pcg prune', () => {
  it('runs one pass over every project of a data directory, each with its own window', async () => {
    const app = testApp();
    const dir = app.dir;
    const w = await makeTenant(app.app, 'cli');
    const other = (await call(app.app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: 'no window' })).body.id as string;
    await call(app.app, 'PUT', `/api/${w.tenantId}/project/${w.projectId}`, w.admin, { retentionDays: 10 });
    for (const p of [w.projectId, other]) await call(app.app, 'POST', `/api/${w.tenantId}/project/${p}/events`, w.admin, daily(40));
    const before = buildDocument(app.context.states.state(w.projectId).snapshot());
    await app.app.close();

    const c = capture();
    expect(await withEnv({ PCG_DATA_DIR: '' }, () => main(['prune', '--data-dir', dir], c.io))).toBe(0);
    expect(c.out()).toContain(`project ${w.projectId}: 58 events of 29 cases pruned (window 10 days), 0 dead letters`);
    expect(c.out()).toContain(`project ${other}: 0 events of 0 cases pruned (every event kept), 0 dead letters`);
    expect(c.out()).toMatch(/pcg prune: 58 events of 29 cases and 0 dead letters pruned in /);
    const store = ProjectStore.open(join(dir, 'projects', w.projectId, 'state.sqlite'));
    expect(store.eventCount()).toBe(22);
    expect(JSON.stringify(buildDocument(store.snapshot()))).toBe(JSON.stringify(before));
    store.close();
    // PCG_RETENTION_DAYS reaches the project without a setting of its own; --retention-days overrides both.
    const d = capture();
    expect(await withEnv({ PCG_RETENTION_DAYS: '20' }, () => main(['prune', '--data-dir', dir, '--quiet'], d.io))).toBe(0);
    expect(d.out()).toBe('');
    const e = capture();
    expect(await main(['prune', '--data-dir', dir, '--retention-days', '5'], e.io)).toBe(0);
    expect(e.out()).toContain(`project ${w.projectId}: 10 events of 5 cases pruned (window 5 days)`);
    // The other kept days 19..39 after the pass with PCG_RETENTION_DAYS=20.
    expect(e.out()).toContain(`project ${other}: 30 events of 15 cases pruned (window 5 days)`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('prunes one project folder (pcg import\'s) and refuses what it cannot run', async () => {
    const dir = tempDir();
    const log = join(dir, 'log.ndjson');
    writeFileSync(log, daily(30).map((e) => JSON.stringify(e)).join('\n') + '\n');
    const project = join(dir, 'project');
    expect(await main(['import', log, '--project-dir', project], capture().io)).toBe(0);
    const c = capture();
    expect(await main(['prune', '--project-dir', project, '--retention-days', '3'], c.io)).toBe(0);
    expect(c.out()).toBe(`pcg prune: ${project}: 52 events of 26 cases pruned (window 3 days), 0 dead letters\n`);
    // Imported again: the file's position is kept, so nothing counts twice.
    expect(await main(['import', log, '--project-dir', project], capture().io)).toBe(0);
    const store = ProjectStore.open(join(project, 'state.sqlite'));
    expect([store.eventCount(), store.snapshot().tally.events, store.getMeta('late_unsequenced')]).toEqual([8, 60, undefined]);
    store.close();
    for (const args of [['--data-dir', dir, '--project-dir', project], ['--project-dir', project, '--retention-days', '0'], ['--project-dir', project, '--retention-days', '1.5'], ['--project-dir', project, 'extra']]) {
      expect(await main(['prune', ...args], capture().io), args.join(' ')).toBe(2);
    }
    const bad = capture();
    expect(await withEnv({ PCG_DEAD_LETTER_DAYS: 'never' }, () => main(['prune', '--project-dir', project], bad.io))).toBe(2);
    expect(bad.err()).toContain('PCG_DEAD_LETTER_DAYS');
    const notData = capture();
    expect(await main(['prune', '--data-dir', dir], notData.io)).toBe(1);
    expect(notData.err()).toContain('has no catalog');
    const missing = capture();
    expect(await main(['prune', '--project-dir', join(dir, 'nowhere')], missing.io)).toBe(1);
    expect(missing.err()).toContain('no project folder');
  });
});
