import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { writeSimulation } from '../../connectors/simulator/index.js';
import { Rng } from '../../connectors/simulator/random.js';
import { keptKeys, storedOffset, api, project as makeProject } from './crash-helpers.js';

/**
 * A dataset upload in a real `pcg serve` child killed with SIGKILL, then a
 * new serve on the same data directory: the dataset ends ready with the
 * file's events counted once (the document `pcg graph FILE` prints), and a
 * kill while the body is still arriving leaves no record, no file, no event;
 * killed again and again at seeded random moments while the restarted serves
 * resume it, each kill leaves whole batches only and it still ends ready.
 */
const BIN = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));
const GLOBAL = 'dataset-crash-global-key-0123456789';

const dirs: string[] = [];
const children = new Set<ChildProcess>();
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'pcg-crash-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  url: Promise<string>;
  exit: Promise<unknown>;
  out: () => string;
}

function pcg(args: string[]): Run {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, PCG_GLOBAL_API_KEY: GLOBAL, PCG_LOG_LEVEL: 'warn', PCG_RATE_LIMIT_BURST: '0', PCG_SOURCES: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise((resolve) => child.once('exit', resolve));
  const url = (async () => {
    for (;;) {
      const m = /pcg listening on (http:\/\/\S+)/.exec(out);
      if (m) return m[1]!;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited: ${out}`);
      await sleep(20);
    }
  })();
  url.catch(() => {});
  return { child, url, exit, out: () => out };
}

const serve = (dir: string) => pcg(['serve', '--data-dir', dir, '--port', '0']);


const project = (base: string) => makeProject(base, GLOBAL, 'crash');

/** A raw upload sent with node:http: the first `part` bytes now, the rest when `finish` is called (or never). */
function upload(base: string, path: string, key: string, body: Buffer, part = body.length) {
  const u = new URL(base + path);
  const req = request({
    host: u.hostname,
    port: u.port,
    path: u.pathname + u.search,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-length': body.length },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
  });
  answer.catch(() => {});
  req.write(body.subarray(0, part));
  if (part === body.length) req.end();
  return { answer, finish: () => req.end(body.subarray(part)) };
}

const withoutVersion = (d: any) => JSON.stringify({ ...d, source: { ...d.source, data_version: undefined } });

describe('a dataset upload through a killed pcg serve', () => {
  it('SIGKILL while its batches are applied: the next serve resumes it, every event counted once', async () => {
    const dir = tempDir();
    const file = join(dir, 'o2c.csv');
    await writeSimulation({ model: 'order-to-cash', cases: 6000, seed: 14 }, 'csv', file);
    const bytes = readFileSync(file);
    const rows = bytes.toString('utf8').trimEnd().split('\n').length - 1;

    const a = serve(dir);
    const base = await a.url;
    const p = await project(base);
    upload(base, `${p.path}/dataset?name=o2c.csv`, p.key, bytes);
    // Killed once the dataset is importing and part of the file is applied.
    let seen: any;
    for (let i = 0; i < 3000; i++) {
      const [items, proj] = await Promise.all([api(base, 'GET', `${p.path}/dataset`, p.key), api(base, 'GET', p.path, p.key)]);
      seen = { items: items.items, version: proj.dataVersion };
      if (seen.items.length === 1 && seen.items[0].state === 'importing' && seen.version >= 2) break;
      await sleep(5);
    }
    a.child.kill('SIGKILL');
    await a.exit;
    expect(seen.items[0].state).toBe('importing');
    // What the killed process left: a record still importing, part of the events.
    const catalog = new Database(join(dir, 'catalog.sqlite'), { readonly: true });
    const left = catalog.prepare('SELECT id, body FROM dataset').all() as { id: string; body: string }[];
    catalog.close();
    expect(left).toHaveLength(1);
    expect(JSON.parse(left[0]!.body).state).toBe('importing');
    const state = new Database(join(dir, 'projects', p.id, 'state.sqlite'), { readonly: true });
    const kept = (state.prepare('SELECT count(*) AS n FROM event').get() as { n: number }).n;
    state.close();
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(rows);

    const b = serve(dir);
    const base2 = await b.url;
    let dataset: any;
    for (let i = 0; i < 3000; i++) {
      dataset = await api(base2, 'GET', `${p.path}/dataset/${left[0]!.id}`, p.key);
      if (dataset.state === 'ready') break;
      await sleep(20);
    }
    expect(dataset).toMatchObject({ state: 'ready', name: 'o2c.csv', bytes: bytes.length, summary: { accepted: rows, duplicates: 0, rejected: 0, events: rows } });
    const served = await api(base2, 'GET', `${p.path}/graph`, p.key);

    // pcg graph FILE: the same file read once, in memory.
    const g = pcg(['graph', file]);
    await g.exit;
    const printed = JSON.parse(g.out());
    expect(served.source.events).toBe(rows);
    expect(withoutVersion(served)).toBe(withoutVersion(printed));
    // Each batch was applied once, before or after the kill: the same number of versions too.
    expect(served.source.data_version).toBe(printed.source.data_version);
    b.child.kill('SIGTERM');
    await b.exit;
  }, 120_000);

  it('SIGKILL at seeded random moments, restart after restart while it resumes: whole batches only, then ready with every event once', async () => {
    const SEED = 14_003;
    const KILLS = 6;
    const rng = new Rng(SEED);
    const dir = tempDir();
    const file = join(dir, 'o2c.csv');
    await writeSimulation({ model: 'order-to-cash', cases: 6000, seed: SEED }, 'csv', file);
    const bytes = readFileSync(file);
    const rows = bytes.toString('utf8').trimEnd().split('\n').length - 1;

    let run = serve(dir);
    let base = await run.url;
    const p = await project(base);
    const state = join(dir, 'projects', p.id, 'state.sqlite');
    upload(base, `${p.path}/dataset?name=o2c.csv`, p.key, bytes);
    let id: string | undefined;
    for (let i = 0; i < 3000 && !id; i++) {
      const items = (await api(base, 'GET', `${p.path}/dataset`, p.key)).items;
      if (items.length === 1 && items[0].state === 'importing') id = items[0].id;
      else await sleep(5);
    }
    expect(id).toBeDefined();

    const kills: { kill: number; phase: string; delay: number; before: number; after: number; ready: boolean }[] = [];
    for (let k = 0; k < KILLS; k++) {
      const before = storedOffset(state);
      // From the spawn (while it starts and resumes the import), or once it is seen applying batches of its own.
      const phase = k === 0 ? 'applying' : rng.chance(0.3) ? 'start-up' : 'applying';
      const delay = phase === 'start-up' ? rng.int(0, 2500) : rng.int(0, 300);
      if (k > 0) run = serve(dir);
      const alive = () => run.child.exitCode === null && run.child.signalCode === null;
      if (phase === 'applying') while (alive() && storedOffset(state) <= before && before < rows) await sleep(5);
      await sleep(delay);
      run.child.kill('SIGKILL');
      await run.exit;
      const catalog = new Database(join(dir, 'catalog.sqlite'), { readonly: true });
      const body = JSON.parse((catalog.prepare('SELECT body FROM dataset WHERE id = ?').get(id) as { body: string }).body);
      catalog.close();
      const after = storedOffset(state);
      kills.push({ kill: k, phase, delay, before, after, ready: body.state === 'ready' });
      const story = JSON.stringify(kills);
      // Whole batches of 5000 rows (each row its own event), never fewer than before, none kept twice.
      expect(after, story).toBeGreaterThanOrEqual(before);
      if (after >= 0) expect(after % 5000 === 0 || after === rows, story).toBe(true);
      const kept = keptKeys(state);
      expect(kept.rows, story).toBe(kept.keys.size);
      expect(kept.rows, story).toBe(Math.max(0, after));
      if (body.state === 'ready') break;
      expect(body.state, story).toBe('importing');
    }
    const story = JSON.stringify(kills);
    expect(kills.filter((k) => k.after > 0 && k.after < rows).length, story).toBeGreaterThanOrEqual(2);

    run = serve(dir);
    base = await run.url;
    let dataset: any;
    for (let i = 0; i < 3000; i++) {
      dataset = await api(base, 'GET', `${p.path}/dataset/${id}`, p.key);
      if (dataset.state === 'ready') break;
      await sleep(20);
    }
    expect(dataset, story).toMatchObject({ state: 'ready', name: 'o2c.csv', bytes: bytes.length, summary: { accepted: rows, duplicates: 0, rejected: 0, events: rows } });
    const served = await api(base, 'GET', `${p.path}/graph`, p.key);
    const g = pcg(['graph', file]);
    await g.exit;
    const printed = JSON.parse(g.out());
    expect(served.source.events).toBe(rows);
    expect(withoutVersion(served)).toBe(withoutVersion(printed));
    expect(served.source.data_version, story).toBe(printed.source.data_version);
    run.child.kill('SIGTERM');
    await run.exit;
  }, 120_000);

  it('SIGKILL while the body is still arriving: no record, no file, no event after the restart', async () => {
    const dir = tempDir();
    const file = join(dir, 'small.csv');
    await writeSimulation({ model: 'helpdesk', cases: 300, seed: 3 }, 'csv', file);
    const bytes = readFileSync(file);
    const a = serve(dir);
    const base = await a.url;
    const p = await project(base);
    upload(base, `${p.path}/dataset?name=small.csv`, p.key, bytes, bytes.length >> 1);
    const datasets = join(dir, 'projects', p.id, 'datasets');
    while (!(existsSync(datasets) && readdirSync(datasets).length > 0)) await sleep(10);
    expect(readdirSync(datasets)[0]).toMatch(/^\.upload-/);
    a.child.kill('SIGKILL');
    await a.exit;

    const b = serve(dir);
    const base2 = await b.url;
    expect((await api(base2, 'GET', `${p.path}/dataset`, p.key)).items).toEqual([]);
    expect((await api(base2, 'GET', p.path, p.key)).dataVersion).toBe(0);
    while (readdirSync(datasets).length > 0) await sleep(20);
    expect(readdirSync(datasets)).toEqual([]);
    // And the file uploads whole now.
    const r = await upload(base2, `${p.path}/dataset?name=small.csv`, p.key, bytes).answer;
    expect(r.status, r.body).toBe(201);
    b.child.kill('SIGTERM');
    await b.exit;
  }, 60_000);
});
