/**
 * Isolation benchmark: while one project's graph document builds (2,000
 * distinct activities, the shape that froze the server), how long does
 * another client's ping take? The server runs in its own process
 * (`pcg serve`); pings go every 20 ms during the builds and, as the baseline
 * measured in the same run, while nothing builds. Then: how long an ingestion
 * takes to be acknowledged, alone and with a graph stream subscriber that
 * asks for every new document (`include=document`).
 *
 *   node --import tsx test/bench/isolation.ts [--builds 5] [--threads 1]
 *
 * --threads sets PCG_BUILD_THREADS (document builds on worker threads; 0
 * builds on the event loop, as before, for the comparison).
 */
import { parseArgs } from 'node:util';
import { startServer } from './server.js';

const { values } = parseArgs({ options: { builds: { type: 'string', default: '5' }, threads: { type: 'string', default: '1' } } });
const builds = Number(values.builds);
const server = await startServer({ PCG_BUILD_THREADS: values.threads! });
const { base, api } = server;

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
  const { key, path: p } = await server.project('heavy');
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
  // Ingestion acknowledgements, first alone, then with a graph stream subscriber that wants every new document.
  const ingestAcks = async (n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await api('POST', `${p}/events`, key, [{ caseId: `s${out.length}-${Math.random()}`, activity: 'Activity 2', timestamp: Date.UTC(2025, 1, 1) + i, eventId: `s${Math.random()}` }]);
      out.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 100));
    }
    return out;
  };
  const ackAlone = await ingestAcks(20);
  const stream = new AbortController();
  const subscribed = fetch(`${base}${p}/graph/stream?include=document`, { headers: { authorization: `Bearer ${key}` }, signal: stream.signal }).then(async (r) => {
    for await (const _chunk of r.body!) void _chunk;
  }).catch(() => undefined);
  const ackWithStream = await ingestAcks(20);
  stream.abort();
  await subscribed;
  const result = {
    threads: Number(values.threads),
    builds,
    buildMsMedian: Math.round([...buildMs].sort((a, b) => a - b)[Math.floor(buildMs.length / 2)]!),
    pingIdle: stats(baseline),
    pingDuringBuilds: stats(during),
    ingestAckAlone: stats(ackAlone),
    ingestAckWithDocumentStream: stats(ackWithStream),
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  await server.stop();
}
