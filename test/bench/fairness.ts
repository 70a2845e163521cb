/**
 * Fairness between tenants (issue 32): what a good tenant sees while a hostile
 * one loads the server as fast as its rate limit lets it, against the same
 * good tenant alone, measured in the same run. The server runs in its own
 * process (`pcg serve`, rate limits on: 600 burst, 100/s per key).
 *
 * - The hostile tenant: `--hostile-clients` loops, each posting 20,000-event
 *   batches over 3,000 activities to its project (one in `--huge-every` a
 *   100,000-event body of 10 MB) and asking for its graph after each; a 429
 *   is waited out for its Retry-After.
 * - The good tenant: an authenticated ping every 50 ms; a small batch (20
 *   events) every 250 ms, and after each, its graph read until the document of
 *   the new version is served (a stale answer is read again 20 ms later):
 *   the time from the batch's acknowledgement to that document is "graph after
 *   a new version".
 *
 *   node --import tsx test/bench/fairness.ts [--alone 20] [--seconds 90] [--hostile-clients 24] [--huge-every 5] [--threads N]
 *
 * Prints p50/p99/max of the good tenant's ping, ingest and graph after a new
 * version, alone and with the hostile tenant, their p99 ratios, and what the
 * hostile tenant got through (batches, 429s, graphs, stale answers).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startServer, type BenchServer } from './server.js';

const { values } = parseArgs({
  options: {
    alone: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '90' },
    'hostile-clients': { type: 'string', default: '24' },
    'huge-every': { type: 'string', default: '5' },
    threads: { type: 'string' },
    // The hostile tenant's own process (started by this script): its load never delays the good tenant's client.
    role: { type: 'string', default: 'main' },
    base: { type: 'string' },
    key: { type: 'string' },
    path: { type: 'string' },
  },
});

const env: Record<string, string> = { PCG_RATE_LIMIT_BURST: '600', PCG_RATE_LIMIT_PER_SECOND: '100' };
if (values.threads !== undefined) env.PCG_BUILD_THREADS = values.threads;
let base = values.base ?? '';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => (s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]! * 10) / 10 : NaN);
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: s.length ? Math.round(s[s.length - 1]! * 10) / 10 : NaN };
};

interface Tenant {
  key: string;
  path: string;
  tenantId: string;
  projectId: string;
}
async function tenant(name: string): Promise<Tenant> {
  const { key, path } = await server.project(name);
  const [, , tenantId, , projectId] = path.split('/');
  return { key, path, tenantId: tenantId!, projectId: projectId! };
}

/** A body of `n` events over `activities` activities, with `@B@` where the batch's number goes (event ids and cases differ per batch). */
function template(n: number, activities: number, casesPer: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const c = i % casesPer;
    parts.push(`{"caseId":"b@B@-${c}","activity":"Activity ${(i * 7919) % activities}","timestamp":${Date.UTC(2024, 0, 1) + i * 1000},"eventId":"@B@-${i}"}`);
  }
  return `[${parts.join(',')}]`;
}

const post = (t: Tenant, body: string | Uint8Array) => fetch(`${base}${t.path}/events`, { method: 'POST', headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' }, body });

/** The good tenant's loops until `stop` aborts: pings, small batches and the graph after each new version. */
async function good(t: Tenant, stop: AbortSignal) {
  const ping: number[] = [];
  const ingest: number[] = [];
  const graph: number[] = [];
  let staleAnswers = 0;
  let refused = 0;
  const pings = (async () => {
    while (!stop.aborted) {
      const started = performance.now();
      const r = await fetch(`${base}/api/Action/ping/authenticated`, { headers: { authorization: `Bearer ${t.key}`, 'x-tenant-id': t.tenantId, 'x-project-id': t.projectId } });
      await r.arrayBuffer();
      if (r.ok) ping.push(performance.now() - started);
      await sleep(50);
    }
  })();
  const writes = (async () => {
    for (let b = 0; !stop.aborted; b++) {
      const events = Array.from({ length: 20 }, (_, i) => ({ caseId: `g${b}-${i % 4}`, activity: ['receive', 'check', 'approve', 'ship', 'close'][i % 5], timestamp: Date.UTC(2024, 1, 1) + b * 60_000 + i * 1000, eventId: `g${b}-${i}-${Math.random()}` }));
      const started = performance.now();
      const r = await post(t, JSON.stringify(events));
      const answer = (await r.json()) as { dataVersion?: number };
      if (!r.ok) {
        refused += 1;
        await sleep(250);
        continue;
      }
      const acked = performance.now();
      ingest.push(acked - started);
      // The graph after the new version: read until the document of (at least) this version is served.
      for (;;) {
        const g = await fetch(`${base}${t.path}/graph`, { headers: { authorization: `Bearer ${t.key}`, 'accept-encoding': 'gzip' } });
        await g.arrayBuffer();
        const version = Number(String(g.headers.get('etag')).replaceAll('"', ''));
        if (g.ok && version >= answer.dataVersion!) break;
        if (g.headers.get('x-pcg-stale')) staleAnswers += 1;
        await sleep(20);
      }
      graph.push(performance.now() - acked);
      await sleep(250);
    }
  })();
  await Promise.all([pings, writes]);
  return { ping: stats(ping), ingest: stats(ingest), graphAfterNewVersion: stats(graph), staleAnswers, refused };
}

/** One hostile client: batches as fast as the rate limit lets it, its graph after each. */
async function hostile(t: Tenant, stop: AbortSignal, client: number, tally: Record<string, number>, bodies: { big: string; huge: string }) {
  const every = Number(values['huge-every']);
  // Encoded once per batch: a refused batch is sent again as the same bytes (the client's CPU is the server's too, on one machine).
  let body: Uint8Array | undefined;
  for (let b = 0; !stop.aborted; ) {
    // Every `every`-th batch of the tenant is 100,000 events, spread over its clients from the first round on.
    const huge = every > 0 && (b + client) % every === every - 1;
    // A refused batch is sent again as it was; a new one only after an acceptance.
    body ??= Buffer.from((huge ? bodies.huge : bodies.big).replaceAll('@B@', `${client}.${b}`));
    const r = await post(t, body).catch(() => undefined);
    if (!r) {
      await sleep(1000);
      continue;
    }
    await r.arrayBuffer().catch(() => undefined);
    if (r.status === 429 || r.status === 503) {
      tally[r.status] = (tally[r.status] ?? 0) + 1;
      await sleep(1000 * Number(r.headers.get('retry-after') ?? '1'));
      continue;
    }
    body = undefined;
    b += 1;
    tally[huge ? 'huge' : 'batches'] = (tally[huge ? 'huge' : 'batches'] ?? 0) + 1;
    const g = await fetch(`${base}${t.path}/graph`, { headers: { authorization: `Bearer ${t.key}`, 'accept-encoding': 'gzip' } }).catch(() => undefined);
    if (!g) continue;
    await g.arrayBuffer();
    const what = g.ok ? (g.headers.get('x-pcg-stale') ? 'staleGraphs' : 'graphs') : `graph${g.status}`;
    tally[what] = (tally[what] ?? 0) + 1;
  }
}

/** The hostile tenant's process: its clients until SIGTERM, then what they got through, as one JSON line. */
async function hostileProcess(): Promise<void> {
  const [, , tenantId, , projectId] = values.path!.split('/');
  const t: Tenant = { key: values.key!, path: values.path!, tenantId: tenantId!, projectId: projectId! };
  const bodies = { big: template(20_000, 3000, 2000), huge: template(100_000, 3000, 10_000) };
  const tally: Record<string, number> = {};
  const stop = new AbortController();
  process.once('SIGTERM', () => stop.abort());
  await Promise.all(Array.from({ length: Number(values['hostile-clients']) }, (_, c) => hostile(t, stop.signal, c, tally, bodies)));
  console.log(JSON.stringify(tally));
}

if (values.role === 'hostile') {
  await hostileProcess();
  process.exit(0);
}
const server: BenchServer = await startServer(env);
base = server.base;
try {
  const goodTenant = await tenant('good');
  const bad = await tenant('hostile');
  // The good project has a document before the runs (its first build is not what is measured).
  await post(goodTenant, JSON.stringify([{ caseId: 'seed', activity: 'receive', timestamp: Date.UTC(2024, 0, 1) }]));
  await fetch(`${base}${goodTenant.path}/graph`, { headers: { authorization: `Bearer ${goodTenant.key}` } }).then((r) => r.arrayBuffer());

  const aloneStop = new AbortController();
  setTimeout(() => aloneStop.abort(), Number(values.alone) * 1000);
  const alone = await good(goodTenant, aloneStop.signal);

  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--role', 'hostile', '--base', base, '--key', bad.key, '--path', bad.path, '--hostile-clients', values['hostile-clients']!, '--huge-every', values['huge-every']!], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((r) => child.once('exit', r));
  // The hostile tenant gets going (its queue full, its builds running) before the good tenant is measured.
  await sleep(5000);
  const goodStop = new AbortController();
  setTimeout(() => goodStop.abort(), Number(values.seconds) * 1000);
  const withHostile = await good(goodTenant, goodStop.signal);
  child.kill('SIGTERM');
  await exited;
  const tally = JSON.parse(out.trim().split('\n').pop() || '{}') as Record<string, number>;
  const ratio = (k: 'ping' | 'ingest' | 'graphAfterNewVersion') => Math.round((withHostile[k].p99 / alone[k].p99) * 10) / 10;
  console.log(
    JSON.stringify(
      {
        threads: values.threads ?? 'default',
        seconds: { alone: Number(values.alone), withHostile: Number(values.seconds) },
        alone,
        withHostile,
        p99Ratio: { ping: ratio('ping'), ingest: ratio('ingest'), graphAfterNewVersion: ratio('graphAfterNewVersion') },
        hostile: tally,
      },
      null,
      2,
    ),
  );
} finally {
  await server.stop();
}
