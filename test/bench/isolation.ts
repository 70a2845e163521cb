/**
 * Isolation benchmark: while one project's graph document builds (2,000
 * distinct activities, the shape that froze the server), how long does
 * another client's ping take? The server runs in its own process
 * (`pcg serve`); pings go every 20 ms during the builds and, as the baseline
 * measured in the same run, while nothing builds. Then: how long an ingestion
 * takes to be acknowledged, alone and with a graph stream subscriber that
 * asks for every new document (`include=document`). Then the reads whose cost
 * grows with the project besides builds, each with pings beside it: a notebook
 * block (kpi) over every case of a 200k-event project, MCP tool calls that
 * parse the 2,000-activity document (get_graph's summary and a section page),
 * and uploading then deleting a dataset of 219k events (its batches applied on
 * a work thread; taken back in one transaction).
 *
 *   node --import tsx test/bench/isolation.ts [--builds 5] [--threads 1] [--reads 5]
 *
 * --threads sets PCG_BUILD_THREADS (document builds on worker threads; 0
 * builds on the event loop, as before, for the comparison).
 */
import { parseArgs } from 'node:util';
import { simulate } from '../../connectors/simulator/index.js';
import { startServer } from './server.js';

const { values } = parseArgs({ options: { builds: { type: 'string', default: '5' }, threads: { type: 'string', default: '1' }, reads: { type: 'string', default: '5' } } });
const reads = Number(values.reads);
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

  /** Runs `read` `reads` times, one after another, with pings beside each; their durations and the pings. */
  const timedReads = async (read: () => Promise<unknown>) => {
    const pings: number[] = [];
    const ms: number[] = [];
    for (let i = 0; i < reads; i++) {
      const t = performance.now();
      const done = read().then(() => ms.push(performance.now() - t));
      pings.push(...(await pingWhile(done.catch(() => undefined))));
      await done;
    }
    return { readMsMedian: Math.round([...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]!), ping: stats(pings) };
  };
  // MCP over HTTP on the wide project: each call parses its 2,000-activity document.
  let rpc = 0;
  const tool = (name: string, args: object) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++rpc, method: 'tools/call', params: { name, arguments: args } }),
    }).then(async (r) => {
      const body = (await r.json()) as { result?: { isError?: boolean } };
      if (!r.ok || !body.result || body.result.isError) throw new Error(`${name}: ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
    });
  const projectId = p.split('/').pop()!;
  await api('GET', `${p}/graph`, key);
  const mcpSummary = await timedReads(() => tool('get_graph', { projectId, view: 'summary' }));
  const mcpSection = await timedReads(() => tool('get_graph', { projectId, view: 'edges', limit: 50 }));
  // A block over every case of a 200k-event project.
  const big = [...simulate({ model: 'order-to-cash', cases: 20_000, seed: 1 })];
  for (let i = 0; i < big.length; i += 50_000) await api('POST', `${p}/events`, key, big.slice(i, i + 50_000));
  const inv = await api('POST', `${p}/investigation`, key, { name: 'all' });
  const nb = await api('POST', `${p}/investigation/${inv.id}/notebook`, key, { name: 'nb' });
  const block = await api('POST', `${p}/investigation/${inv.id}/notebook/${nb.id}/block`, key, { spec: { type: 'kpi' } });
  const kpiBlock = await timedReads(() => api('POST', `${p}/investigation/${inv.id}/notebook/${nb.id}/block/${block.id}/execute`, key));
  // A dataset of the same 219k events (other case ids) uploaded, then deleted: its events taken back in one transaction.
  const csv = ['case,activity,time', ...big.map((e) => `d-${e.caseId},${JSON.stringify(e.activity)},${e.timestamp}`)].join('\n');
  // Its import (read on a reader thread; its batches applied on a work thread, or on the loop with --threads 0) beside pings.
  const uploadStarted = performance.now();
  const uploading = fetch(`${base}${p}/dataset?name=big.csv`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, body: csv });
  const datasetUpload = { events: big.length, uploadMs: 0, ping: stats(await pingWhile(uploading.catch(() => undefined))) };
  const uploaded = await uploading;
  datasetUpload.uploadMs = Math.round(performance.now() - uploadStarted);
  if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
  const dataset = (await uploaded.json()) as { id: string };
  const deleteStarted = performance.now();
  const deleted = api('DELETE', `${p}/dataset/${dataset.id}`, key);
  const datasetDelete = { events: big.length, deleteMs: 0, ping: stats(await pingWhile(deleted.catch(() => undefined))) };
  await deleted;
  datasetDelete.deleteMs = Math.round(performance.now() - deleteStarted);
  const result = {
    threads: Number(values.threads),
    builds,
    buildMsMedian: Math.round([...buildMs].sort((a, b) => a - b)[Math.floor(buildMs.length / 2)]!),
    pingIdle: stats(baseline),
    pingDuringBuilds: stats(during),
    ingestAckAlone: stats(ackAlone),
    ingestAckWithDocumentStream: stats(ackWithStream),
    mcpGetGraphSummary: mcpSummary,
    mcpGetGraphSection: mcpSection,
    kpiBlockEvents: big.length + 8000,
    kpiBlock,
    datasetUpload,
    datasetDelete,
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  await server.stop();
}
