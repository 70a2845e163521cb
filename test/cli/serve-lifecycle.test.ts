import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { api, project as makeProject } from './crash-helpers.js';
import { afterAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../api/catalog/index.js';

/**
 * `pcg serve` as operators run it: real child processes of api/bin.mjs on a
 * free port (--port 0, URL read from what it prints), real files in the data
 * directory, real signals.
 */
const BIN = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));
const GLOBAL = 'lifecycle-global-key-0123456789';

const dirs: string[] = [];
const children = new Set<ChildProcess>();
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'pcg-life-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  /** Resolves with the URL once it prints it; rejects if it exits first. */
  url: Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stdout contains `text`. */
  printed(text: string | RegExp): Promise<void>;
}

function pcg(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, PCG_GLOBAL_API_KEY: GLOBAL, PCG_LOG_LEVEL: 'warn', PCG_RATE_LIMIT_BURST: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  let err = '';
  const waiters: (() => void)[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of waiters.splice(0)) w();
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const printed = (text: string | RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (typeof text === 'string' ? out.includes(text) : text.test(out)) return resolve();
        if (child.exitCode !== null || child.signalCode !== null) return reject(new Error(`exited before printing ${text}: ${out}${err}`));
        waiters.push(check);
      };
      void exit.then(() => setImmediate(check));
      check();
    });
  const url = printed(/pcg listening on (http:\/\/\S+)/).then(() => /pcg listening on (http:\/\/\S+)/.exec(out)![1]!);
  // Runs that are meant to fail never print it: not an unhandled rejection.
  url.catch(() => {});
  return { child, out: () => out, err: () => err, url, exit, printed };
}

const serve = (dir: string, env: Record<string, string> = {}) => pcg(['serve', '--data-dir', dir, '--port', '0'], env);

/** A failed start: exit 1, one line on stderr, no stack, never listening, no lock left behind by it. */
async function refused(run: Run, message: RegExp): Promise<string> {
  const { code } = await run.exit;
  expect(code, run.out() + run.err()).toBe(1);
  expect(run.out()).not.toContain('listening');
  const err = run.err().trimEnd();
  expect(err.split('\n'), err).toHaveLength(1);
  expect(err).toMatch(/^pcg serve: /);
  expect(err).toMatch(message);
  expect(err).not.toMatch(/\n\s+at |Error:/);
  return err;
}


const project = (base: string) => makeProject(base, GLOBAL, 'life');

function events(n: number): object[] {
  return Array.from({ length: n }, (_, i) => ({ caseId: `c${i % 10}`, activity: `a${i % 4}`, timestamp: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(), eventId: `e${i}` }));
}

/** A POST whose body is sent in two parts: the request is in flight until `finish` is called. */
function slowPost(base: string, path: string, key: string, body: string) {
  const u = new URL(base + path);
  const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
  });
  const half = Math.floor(body.length / 2);
  req.write(body.slice(0, half));
  return { answer, finish: () => req.end(body.slice(half)) };
}

const lockOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'serve.lock'), 'utf8')) as { pid: number; startedAt: string; hostname: string };

describe('one pcg serve per data directory', () => {
  it('a second serve on the same directory refuses to start; a pcg worker may run beside it; the lock goes at shutdown', async () => {
    const dir = tempDir();
    const a = serve(dir);
    const base = await a.url;
    expect(lockOf(dir).pid).toBe(a.child.pid);

    const b = serve(dir);
    const err = await refused(b, new RegExp(`in use by another pcg serve \\(pid ${a.child.pid}, started `));
    expect(err).toContain(join(dir, 'serve.lock'));
    // The first one is untouched: ready once its source thread runs.
    let ready = await fetch(`${base}/health/ready`);
    while (ready.status !== 200) {
      expect(((await ready.json()) as any).checks.sources.message).toBe('the source thread is starting');
      await sleep(100);
      ready = await fetch(`${base}/health/ready`);
    }
    expect(await ready.json()).toEqual({ status: 'ok', checks: { catalog: { status: 'ok' }, disk: { status: 'ok' }, sources: { status: 'ok' }, shutdown: { status: 'ok' } } });
    expect(lockOf(dir).pid).toBe(a.child.pid);

    // Workers write only partition files: they run beside the serve.
    const worker = pcg(['worker', '--data-dir', dir]);
    await worker.printed('consuming the sources of');
    // pcg worker prints its line just before it listens for signals: give it that moment.
    await sleep(300);
    worker.child.kill('SIGTERM');
    expect(await worker.exit, worker.out() + worker.err()).toEqual({ code: 0, signal: null });

    a.child.kill('SIGINT');
    expect(await a.exit).toEqual({ code: 0, signal: null });
    expect(a.out()).toMatch(/SIGINT: shutting down[\s\S]*stopped/);
    expect(existsSync(join(dir, 'serve.lock'))).toBe(false);

    // Free again.
    const c = serve(dir);
    await c.url;
    c.child.kill('SIGTERM');
    expect((await c.exit).code).toBe(0);
  });

  it('takes over a lock left by a killed serve, or one that is not a lock', async () => {
    const dir = tempDir();
    const a = serve(dir);
    await a.url;
    a.child.kill('SIGKILL');
    await a.exit;
    expect(lockOf(dir).pid).toBe(a.child.pid);

    const b = serve(dir);
    await b.url;
    expect(lockOf(dir).pid).toBe(b.child.pid);
    b.child.kill('SIGTERM');
    expect((await b.exit).code).toBe(0);

    writeFileSync(join(dir, 'serve.lock'), 'not json');
    const c = serve(dir);
    await c.url;
    expect(lockOf(dir).pid).toBe(c.child.pid);
    c.child.kill('SIGTERM');
    expect((await c.exit).code).toBe(0);
    expect(existsSync(join(dir, 'serve.lock'))).toBe(false);
  });
});

describe('start-up checks', () => {
  it('refuses a catalog that is not a SQLite file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'catalog.sqlite'), 'this is not a database\n'.repeat(50));
    await refused(serve(dir), /the catalog .*catalog\.sqlite is not a SQLite database/);
    expect(existsSync(join(dir, 'serve.lock'))).toBe(false);
    // Nothing was written over it.
    expect(readFileSync(join(dir, 'catalog.sqlite'), 'utf8')).toBe('this is not a database\n'.repeat(50));
  });

  it('refuses a damaged catalog (PRAGMA quick_check)', async () => {
    const dir = tempDir();
    const file = join(dir, 'catalog.sqlite');
    const catalog = Catalog.open(file);
    for (let i = 0; i < 2000; i++) catalog.identity.createTenant({ name: `tenant ${i}`, description: 'x'.repeat(50) });
    catalog.db.pragma('wal_checkpoint(TRUNCATE)');
    catalog.close();
    // Pages 10 to 13 overwritten: the header and schema stay readable, the b-trees do not.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4 * 4096, 0x5a), 0, 4 * 4096, 9 * 4096);
    closeSync(fd);
    await refused(serve(dir), /the catalog .*catalog\.sqlite is damaged \((quick_check: |SQLITE_CORRUPT)/);
    expect(existsSync(join(dir, 'serve.lock'))).toBe(false);
  });

  it('refuses a catalog written by a newer pcg', async () => {
    const dir = tempDir();
    const file = join(dir, 'catalog.sqlite');
    Catalog.open(file).close();
    const db = new Database(file);
    db.pragma('user_version = 999');
    db.close();
    await refused(serve(dir), /written by a newer pcg \(schema version 999; this pcg knows up to \d+\); run a newer pcg/);
    // Left as it was: no migration ran over it.
    const check = new Database(file);
    expect(check.pragma('user_version', { simple: true })).toBe(999);
    check.close();
  });

  it('refuses a data directory that is a file, or lies under one', async () => {
    const file = join(tempDir(), 'plain-file');
    writeFileSync(file, 'x');
    await refused(serve(file), /the data directory .*plain-file is not a directory/);
    await refused(serve(join(file, 'sub')), /cannot create the data directory .*plain-file\/sub \(ENOTDIR\)/);
  });

  // The tests run as root, whom chmod does not stop; sysfs refuses new files even to root. (Running the serve as another user
  // instead would need that user to read the checkout, which a clone under a 0700 temp folder does not allow.)
  it.skipIf(!existsSync('/sys/kernel'))('refuses a data directory it cannot write (sysfs: EACCES even for root)', async () => {
    await refused(serve('/sys/kernel'), /the data directory \/sys\/kernel is not writable \(EACCES\)/);
  });
});

describe('graceful shutdown', () => {
  it('on SIGTERM stops accepting, answers the request in flight, closes a graph stream, exits 0; the events are there after a restart', async () => {
    const dir = tempDir();
    const a = serve(dir);
    const base = await a.url;
    const { key, path } = await project(base);
    // A graph stream stays open until the app closes it: it must not hold the shutdown.
    const stream = await fetch(`${base}${path}/graph/stream`, { headers: { authorization: `Bearer ${key}` } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const body = JSON.stringify(events(200));
    const post = slowPost(base, `${path}/events`, key, body);
    await sleep(200);

    a.child.kill('SIGTERM');
    await a.printed('SIGTERM: shutting down');
    // No new connections once it is shutting down.
    await expect(fetch(`${base}/api/Action/ping`)).rejects.toThrow();
    await sleep(200);
    expect(a.child.exitCode).toBeNull();
    post.finish();
    const answer = await post.answer;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ accepted: 200, rejected: 0 });
    // The stream is ended by the close.
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) break;
    expect(await a.exit).toEqual({ code: 0, signal: null });
    expect(a.out()).toMatch(/stopped \(\d+ ms\)/);
    expect(existsSync(join(dir, 'serve.lock'))).toBe(false);

    const b = serve(dir);
    const again = await b.url;
    const p = await api(again, 'GET', path, key);
    expect(p.dataVersion).toBeGreaterThan(0);
    const graph = await api(again, 'GET', `${path}/graph`, key);
    expect(graph.source.events).toBe(200);
    b.child.kill('SIGTERM');
    expect((await b.exit).code).toBe(0);
  });

  it('exits once it has stopped, even when a handle it does not know keeps the process alive (named on stderr)', async () => {
    // A timer the server never made, standing for a socket or thread left open during a shutdown.
    const run = pcg(['serve', '--data-dir', tempDir(), '--port', '0'], { NODE_OPTIONS: '--import=data:text/javascript,setInterval(()=>{},60000)' });
    await run.url;
    run.child.kill('SIGTERM');
    expect(await run.exit).toEqual({ code: 0, signal: null });
    expect(run.out()).toMatch(/pcg serve: stopped/);
    expect(run.err()).toMatch(/pcg serve: still running 2 s after it stopped \(.+\): exiting/);
  });

  it('a second signal forces the exit (code 130) while a request still holds the shutdown', async () => {
    const dir = tempDir();
    const a = serve(dir, { PCG_SHUTDOWN_GRACE_MS: '60000' });
    const base = await a.url;
    const { key, path } = await project(base);
    const post = slowPost(base, `${path}/events`, key, JSON.stringify(events(10)));
    post.answer.catch(() => {});
    await sleep(200);
    a.child.kill('SIGTERM');
    await a.printed('SIGTERM: shutting down');
    await sleep(500);
    // Still waiting for the request in flight (60 s of grace).
    expect(a.child.exitCode).toBeNull();
    const t0 = Date.now();
    a.child.kill('SIGTERM');
    expect(await a.exit).toEqual({ code: 130, signal: null });
    // Not the 60 s of grace: half of it tells the two apart on a machine however busy (the exit code and the message
    // above say it already).
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(a.err()).toContain('SIGTERM again: exiting now');
    expect(existsSync(join(dir, 'serve.lock'))).toBe(false);
  });
});

/** Every entry below `dir` (itself included) whose permissions let anyone but the owner in: [path, mode]. */
function notPrivate(dir: string): [string, string][] {
  const out: [string, string][] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) out.push([p.slice(dir.length) || '/', (st.mode & 0o777).toString(8)]);
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
  };
  walk(dir);
  return out;
}

describe('the data directory is its owner’s alone (issue 30, L7)', () => {
  it('pcg serve makes an older, world-readable directory private, and everything it writes is 0600 in 0700 folders', async () => {
    const dir = tempDir();
    // As an older pcg (or another umask) left it.
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'projects', 'old'), { recursive: true, mode: 0o755 });
    writeFileSync(join(dir, 'projects', 'old', 'state.sqlite'), '', { mode: 0o644 });
    // The shell's umask would make files world-readable: pcg's own mask is what counts.
    const run = pcg(['serve', '--data-dir', dir, '--port', '0'], { PCG_DATA_DIR: dir });
    const base = await run.url;
    expect(run.err()).toMatch(/made \d+ file\(s\) and folder\(s\) of .* readable by their owner only \(0600\/0700\)/);
    const { key, path } = await project(base);
    await api(base, 'POST', `${path}/events`, key, events(50));
    await api(base, 'GET', `${path}/graph`, key);
    run.child.kill('SIGTERM');
    expect((await run.exit).code).toBe(0);
    expect(notPrivate(dir)).toEqual([]);
    // And a backup of it, taken under the same rule.
    const backup = join(tempDir(), 'b');
    const taken = pcg(['backup', '--data-dir', dir, '--out', backup]);
    expect((await taken.exit).code, taken.err()).toBe(0);
    expect(notPrivate(backup)).toEqual([]);
  });

  it('warns when the configured global key was revoked', async () => {
    const dir = tempDir();
    const first = serve(dir);
    const base = await first.url;
    const spare = await api(base, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'spare' });
    const keys = await api(base, 'GET', '/admin/global-api-keys', GLOBAL);
    const configured = keys.items.find((k: { origin: string }) => k.origin === 'config');
    expect((await fetch(`${base}/admin/global-api-keys/${configured.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${spare.key}` } })).status).toBe(204);
    first.child.kill('SIGTERM');
    await first.exit;
    const again = serve(dir);
    await again.url;
    expect(again.err()).toMatch(/warning: the configured global API key \(PCG_GLOBAL_API_KEY \/ --global-api-key\) was revoked at \/admin\/global-api-keys and answers 401/);
    again.child.kill('SIGTERM');
    await again.exit;
  });
});
