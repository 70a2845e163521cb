/**
 * Load benchmark of the graph endpoint: autocannon GETs the current graph
 * document while events are ingested concurrently over HTTP, so most requests
 * see a new data_version and the builder runs under load. The server runs in
 * its own process (`pcg serve`), as in production.
 *
 *   node --import tsx test/bench/api-load.ts [--seconds 20] [--connections 10] [--cases 2000]
 *
 * Prints p50/p99 latency and throughput for three runs: a plain GET while
 * ingesting (each new data_version builds and keeps a document), a plain GET
 * of a quiet project (the kept document), and If-None-Match on the quiet
 * project (304s).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '20' }, connections: { type: 'string', default: '10' }, cases: { type: 'string', default: '2000' } } });
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const cases = Number(values.cases);
const GLOBAL = 'bench-global-key-0123456789';
const port = 20000 + Math.floor(Math.random() * 20000);
const base = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), 'pcg-bench-'));
const bin = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));
const server = spawn(process.execPath, [bin, 'serve', '--data-dir', dir, '--port', String(port), '--log-level', 'warn'], {
  env: { ...process.env, PCG_GLOBAL_API_KEY: GLOBAL, PCG_RATE_LIMIT_BURST: '0' },
  stdio: ['ignore', 'pipe', 'inherit'],
});

async function api(method: string, path: string, key: string, body?: unknown): Promise<any> {
  const r = await fetch(base + path, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.status === 204 ? undefined : r.json();
}

const activities = ['receive', 'check', 'approve', 'ship', 'invoice', 'close'];
function batch(from: number, n: number): object[] {
  const out: object[] = [];
  for (let i = from; i < from + n; i++) {
    const t0 = Date.UTC(2024, 0, 1) + i * 600_000;
    const path = i % 4 === 0 ? activities.filter((a) => a !== 'approve') : i % 7 === 0 ? [...activities.slice(0, 3), 'check', ...activities.slice(3)] : activities;
    path.forEach((activity, j) => out.push({ caseId: `case-${i}`, activity, timestamp: t0 + j * 3_600_000, eventId: `${i}-${j}`, resource: `r${(i + j) % 9}`, attributes: { region: ['north', 'south', 'east'][i % 3]! } }));
  }
  return out;
}

function summary(name: string, r: autocannon.Result) {
  return {
    run: name,
    requests: r.requests.total,
    'req/s': Math.round(r.requests.average),
    'p50 ms': r.latency.p50,
    'p99 ms': r.latency.p99,
    'max ms': r.latency.max,
    errors: r.errors + r.timeouts,
    '2xx': r['2xx'],
    'status 304': r['3xx'],
    '4xx/5xx': r['4xx'] + r['5xx'],
  };
}

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
  const project = await api('POST', `/api/${tenant.id}/project`, key, { name: 'bench' });
  const p = `/api/${tenant.id}/project/${project.id}`;
  for (let i = 0; i < cases; i += 500) await api('POST', `${p}/events`, key, batch(i, Math.min(500, cases - i)));

  const results: ReturnType<typeof summary>[] = [];
  let next = cases;
  let ingested = 0;
  const runWith = async (name: string, headers: Record<string, string>, ingest: boolean) => {
    let stop = false;
    const writer = (async () => {
      while (ingest && !stop) {
        const r = await api('POST', `${p}/events`, key, batch(next, 20));
        next += 20;
        ingested += r.accepted;
        await new Promise((res) => setTimeout(res, 50));
      }
    })();
    const r = await autocannon({ url: `${base}${p}/graph`, connections, duration: seconds, headers: { authorization: `Bearer ${key}`, ...headers } });
    stop = true;
    await writer;
    results.push(summary(name, r));
  };
  await runWith('GET graph while ingesting', {}, true);
  const current = await api('GET', `${p}/graph`, key);
  await runWith('GET graph, quiet project', {}, false);
  await runWith('GET graph + If-None-Match, quiet (304)', { 'if-none-match': `"${current.source.data_version}"` }, false);
  const versions = await api('GET', `${p}/graph/versions`, key);
  console.table(results);
  console.log(JSON.stringify({ seconds, connections, startCases: cases, eventsIngestedDuringRuns: ingested, graphVersionsKept: versions.items.length, results }, null, 2));
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
