/**
 * Isolation benchmark: while one project's graph document builds (2,000
 * distinct activities, the shape that froze the server), how long does
 * another client's ping take? The server runs in its own process
 * (`pcg serve`); pings go every 20 ms during the builds and, as the baseline
 * measured in the same run, while nothing builds.
 *
 *   node --import tsx test/bench/isolation.ts [--builds 5] [--threads 1]
 *
 * --threads sets PCG_BUILD_THREADS (document builds on worker threads; 0
 * builds on the event loop, as before, for the comparison).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { builds: { type: 'string', default: '5' }, threads: { type: 'string', default: '1' } } });
const builds = Number(values.builds);
const GLOBAL = 'bench-global-key-0123456789';
const port = 20000 + Math.floor(Math.random() * 20000);
const base = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), 'pcg-bench-'));
const bin = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));
const server = spawn(process.execPath, [bin, 'serve', '--data-dir', dir, '--port', String(port), '--log-level', 'warn'], {
  env: { ...process.env, PCG_GLOBAL_API_KEY: GLOBAL, PCG_RATE_LIMIT_BURST: '0', PCG_BUILD_THREADS: values.threads },
  stdio: ['ignore', 'pipe', 'inherit'],
});

async function api(method: string, path: string, key: string, body?: unknown): Promise<any> {
  const r = await fetch(base + path, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.status === 204 ? undefined : r.json();
}

/** Pings every 20 ms until `done` resolves; their latencies in ms. */
async function pingWhile(done: Promise<unknown>): Promise<number[]> {
  let over = false;
  void done.finally(() => (over = true));
  const out: number[] = [];
  while (!over) {
    const t = performance.now();
    await fetch(`${base}/api/Action/ping`);
    out.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 20));
  }
  return out;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]! * 10) / 10;
  return { pings: s.length, p50: at(0.5), p99: at(0.99), max: Math.round(s[s.length - 1]! * 10) / 10 };
};

try {
  for (let i = 0; ; i++) {
    try {
      await fetch(`${base}/api/Action/ping`);
      break;
    } catch {
      if (i > 100) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const tenant = await api('POST', '/api/tenant', GLOBAL, { name: 'bench' });
  const user = await api('POST', '/api/user', GLOBAL, { email: 'bench@example.com' });
  await api('POST', `/api/tenant/${tenant.id}/user`, GLOBAL, { userId: user.id, permissions: ['read', 'write'] });
  const { key } = await api('POST', `/api/tenant/${tenant.id}/apikey`, GLOBAL, { userId: user.id, name: 'bench' });
  const project = await api('POST', `/api/${tenant.id}/project`, key, { name: 'heavy' });
  const p = `/api/${tenant.id}/project/${project.id}`;
  // 8,000 events over 2,000 distinct activities (about 300 KB), as in the finding.
  const events = Array.from({ length: 8000 }, (_, i) => ({ caseId: `c${i % 1000}`, activity: `Activity ${(i * 7919) % 2000}`, timestamp: Date.UTC(2024, 0, 1) + i * 60_000, eventId: `e${i}` }));
  const baseline = await pingWhile(new Promise((r) => setTimeout(r, 2000)));
  const during: number[] = [];
  const buildMs: number[] = [];
  for (let b = 0; b < builds; b++) {
    // A new event makes a new data version, so every GET builds.
    await api('POST', `${p}/events`, key, b === 0 ? events : [{ caseId: `x${b}`, activity: 'Activity 1', timestamp: Date.UTC(2025, 0, 1) + b, eventId: `x${b}` }]);
    const t = performance.now();
    const built = api('GET', `${p}/graph`, key).then(() => buildMs.push(performance.now() - t));
    during.push(...(await pingWhile(built)));
  }
  const result = { threads: Number(values.threads), builds, buildMsMedian: Math.round([...buildMs].sort((a, b) => a - b)[Math.floor(buildMs.length / 2)]!), pingIdle: stats(baseline), pingDuringBuilds: stats(during) };
  console.log(JSON.stringify(result, null, 2));
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
