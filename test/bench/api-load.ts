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
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startServer } from './server.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '20' }, connections: { type: 'string', default: '10' }, cases: { type: 'string', default: '2000' } } });
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const cases = Number(values.cases);
const server = await startServer();
const { base, api } = server;

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
  const { key, path: p } = await server.project('bench');
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
  await server.stop();
}
