/**
 * Soak (issue 14): `pcg serve` in a child process under N minutes of mixed
 * load from several tenants at once, one of them sending pathological input.
 * What must stay flat: the server's RSS, its open file descriptors, and the
 * well-behaved tenants' p99 latency of reads and ingests.
 *
 *   node --import tsx test/bench/soak.ts [--minutes 10] [--sample-seconds 10] [--pathological on|off] [--stream-cases 10000000]
 *
 * Tenants (each with its own user and key):
 * - three well-behaved ones (order-to-cash, claims, helpdesk), each with a
 *   `stream` project fed simulated wire events over HTTP once a second (JSON
 *   array or NDJSON, with late and duplicate events) and a `files` project
 *   that gets a small dataset upload (CSV, NDJSON, XES or gzip) every 15 s,
 *   its older datasets deleted; two readers each (graph GETs, with and without
 *   If-None-Match, `?version=`, listings of projects, datasets, versions), and
 *   two graph stream (SSE) subscribers, one with `include=document`,
 *   reconnecting about once a minute;
 * - one pathological tenant: a project fed a new distinct activity with every
 *   event (deleted and made again at 2,000 activities), events with attribute
 *   values, attribute counts and ids just under the limits, requests over the
 *   limits (events over each limit, more events than a request may carry, a
 *   body over the body limit, an upload over the upload limit, projects over
 *   the tenant's limit, a burst over the rate limit), malformed bodies and
 *   uploads, project churn up to the tenant's limit, key churn (issue, use,
 *   revoke, use again) and graph streams opened and dropped, some on a key
 *   that is revoked while the stream is open.
 *
 * Every `--sample-seconds` the runner reads the server's RSS
 * (/proc/<pid>/status), its open descriptors (/proc/<pid>/fd, by kind), its
 * `/metrics` (heap, event-loop lag, open stores) and the data directory's
 * size, and the well-behaved tenants' latencies of that window. At the end it
 * prints a table by minute and a verdict on flatness (the last third of the
 * run against the first), stops the server with SIGTERM (it must exit 0) and
 * removes the data directory. Exit code 1 when any response was a 5xx, a
 * well-behaved request failed, or the server died; the run is bounded: a
 * hard stop kills everything after minutes + 1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setMaxListeners } from 'node:events';
import { gzipSync } from 'node:zlib';
import type { WireEvent } from '../../engine/index.js';
import { simulate, writeSimulation, type LogFormat } from '../../connectors/simulator/index.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    'sample-seconds': { type: 'string', default: '10' },
    pathological: { type: 'string', default: 'on' },
    'stream-cases': { type: 'string', default: '10000000' },
  },
});
/**
 * The simulated window each stream is drawn from: with 10M cases nearly every case is still open
 * when the run ends and a third of the events start a new case (the per-case memory of a store
 * grows all run long); 20,000 keeps about a thousand cases in flight.
 */
const streamCases = Number(values['stream-cases']);
const minutes = Number(values.minutes);
const sampleSeconds = Number(values['sample-seconds']);
const pathological = values.pathological !== 'off';
if (!(minutes > 0) || !(sampleSeconds >= 1)) throw new Error('--minutes must be > 0 and --sample-seconds >= 1');
const durationMs = minutes * 60_000;

const GLOBAL = 'soak-global-key-0123456789abcdef';
const METRICS = 'soak-metrics-token-0123456789';
/** Lowered from the defaults so that the pathological tenant reaches them within the run. */
const PROJECT_LIMIT = 40;
const UPLOAD_LIMIT = 4 * 1024 * 1024;
const BODY_LIMIT = 16 * 1024 * 1024; // the default
const LIMITS = { id: 512, activity: 1024, attributeValue: 65536, attributes: 1000, eventsPerRequest: 100_000 }; // the defaults

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => (clearTimeout(t), resolve());
    const t = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
const jitter = (ms: number) => ms * (0.8 + Math.random() * 0.4);

// ---------------------------------------------------------------- the server

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'pcg-soak-'));
const filesDir = mkdtempSync(join(tmpdir(), 'pcg-soak-files-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const bin = fileURLToPath(new URL('../../api/bin.mjs', import.meta.url));
const server: ChildProcess = spawn(process.execPath, [bin, 'serve', '--data-dir', dataDir, '--host', '127.0.0.1', '--port', String(port), '--log-level', 'warn'], {
  env: {
    ...process.env,
    PCG_GLOBAL_API_KEY: GLOBAL,
    PCG_METRICS_TOKEN: METRICS,
    PCG_LIMIT_PROJECTS_PER_TENANT: String(PROJECT_LIMIT),
    PCG_UPLOAD_LIMIT_BYTES: String(UPLOAD_LIMIT),
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const pid = server.pid!;
let stopping = false;
let died: string | undefined;
const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
void exited.then(({ code, signal }) => {
  if (!stopping) {
    died = `the server exited during the run (code ${code}, signal ${signal})`;
    console.error(`\n!! ${died}`);
    load.abort();
  }
});

/** The server's log lines (pino JSON at warn and above), counted by level; a few kept. */
const logs = { warn: 0, error: 0, other: 0, samples: [] as string[] };
for (const stream of [server.stdout!, server.stderr!]) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (!line.trim()) continue;
      const level = /"level":(\d+)/.exec(line)?.[1];
      if (level === '40') logs.warn++;
      else if (level !== undefined && Number(level) >= 50) logs.error++;
      else logs.other++;
      const short = line.length > 600 ? `${line.slice(0, 600)}…` : line;
      if (logs.samples.length < 200) logs.samples.push(short);
    }
  });
}

const load = new AbortController();
// Every loop's pause listens on it: dozens at once, none left behind.
setMaxListeners(0, load.signal);
const cleanup = () => {
  try {
    server.kill('SIGKILL');
  } catch {
    /* gone */
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(filesDir, { recursive: true, force: true });
};
// Bounded: whatever happens, everything stops after minutes + 1.
const hardStop = setTimeout(() => {
  console.error(`\n!! hard stop after ${minutes + 1} minutes: killing the server`);
  cleanup();
  process.exit(3);
}, (minutes + 1) * 60_000);
hardStop.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n!! ${signal}: killing the server`);
    cleanup();
    process.exit(130);
  });
}

// ---------------------------------------------------------------- requests and what they took

type Kind = 'read' | 'ingest' | 'upload' | 'other';
interface Rec {
  t: number;
  tenant: string;
  kind: Kind;
  label: string;
  ms: number;
  status: number;
}
/** Every request of a well-behaved tenant (status 0: no response). */
const recs: Rec[] = [];
/** Per tenant and label: statuses counted (all tenants). */
const statuses = new Map<string, Map<string, number>>();
const fiveHundreds: string[] = [];
const failures: string[] = [];
let t0 = 0;
const now = () => performance.now() - t0;

function count(tenant: string, label: string, status: number | string) {
  let m = statuses.get(tenant);
  if (!m) statuses.set(tenant, (m = new Map()));
  const k = `${label} ${status}`;
  m.set(k, (m.get(k) ?? 0) + 1);
}

interface Who {
  name: string;
  good: boolean;
}
interface CallOptions {
  key?: string;
  body?: string | Buffer | Uint8Array;
  type?: string;
  headers?: Record<string, string>;
  kind?: Kind;
  timeoutMs?: number;
  /** Statuses this call expects: anything else is counted as unexpected (5xx always is). */
  expect?: number[];
}
interface Answer {
  status: number;
  text: string;
  headers: Headers;
  ms: number;
}
const unexpected: string[] = [];
/** When each of the chaos tenant's requests started. */
const chaosTimes: number[] = [];

async function call(who: Who, label: string, method: string, path: string, o: CallOptions = {}): Promise<Answer | undefined> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.key !== undefined) headers.authorization = `Bearer ${o.key}`;
  if (o.body !== undefined) headers['content-type'] = o.type ?? 'application/json';
  const started = performance.now();
  const at = now();
  if (who.name === 'chaos') chaosTimes.push(at);
  try {
    const r = await fetch(base + path, { method, headers, body: o.body, signal: AbortSignal.timeout(o.timeoutMs ?? 60_000) });
    const text = await r.text();
    const ms = performance.now() - started;
    if (who.good) recs.push({ t: at, tenant: who.name, kind: o.kind ?? 'other', label, ms, status: r.status });
    count(who.name, label, r.status);
    if (r.status >= 500) fiveHundreds.push(`${who.name} ${method} ${label} ${r.status} at ${(at / 1000).toFixed(0)} s: ${text.slice(0, 300)}`);
    else if (o.expect && !o.expect.includes(r.status)) {
      if (unexpected.length < 100) unexpected.push(`${who.name} ${method} ${label} ${r.status} (expected ${o.expect.join('/')}): ${text.slice(0, 200)}`);
    }
    return { status: r.status, text, headers: r.headers, ms };
  } catch (error) {
    const ms = performance.now() - started;
    const reason = (error as Error).name === 'TimeoutError' ? 'timeout' : `${(error as Error).message}${(error as { cause?: Error }).cause ? `: ${(error as { cause?: Error }).cause!.message}` : ''}`;
    if (who.good) {
      recs.push({ t: at, tenant: who.name, kind: o.kind ?? 'other', label, ms, status: 0 });
      if (!load.signal.aborted) failures.push(`${who.name} ${method} ${label} at ${(at / 1000).toFixed(0)} s: ${reason}`);
    }
    count(who.name, label, 'network error');
    return undefined;
  }
}

/** A graph stream subscriber: counts `version` events until aborted or the stream ends. */
async function subscribe(who: Who, label: string, path: string, key: string, signal: AbortSignal, onEvent?: (e: string) => void): Promise<'ended' | 'aborted' | number> {
  try {
    const r = await fetch(base + path, { headers: { authorization: `Bearer ${key}` }, signal });
    count(who.name, label, r.status);
    if (r.status !== 200) {
      await r.text();
      if (r.status >= 500) fiveHundreds.push(`${who.name} GET ${label} ${r.status}`);
      return r.status;
    }
    const decoder = new TextDecoder();
    let rest = '';
    for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
      rest += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = rest.indexOf('\n\n')) >= 0) {
        const block = rest.slice(0, end);
        rest = rest.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        if (event) {
          sseEvents.set(`${who.name} ${event}`, (sseEvents.get(`${who.name} ${event}`) ?? 0) + 1);
          onEvent?.(event);
        }
      }
    }
    return 'ended';
  } catch (error) {
    if (signal.aborted) return 'aborted';
    count(who.name, label, 'stream error');
    if (who.good && !load.signal.aborted) failures.push(`${who.name} ${label}: ${(error as Error).message}`);
    return 'ended';
  }
}
const sseEvents = new Map<string, number>();

// ---------------------------------------------------------------- set-up

const admin: Who = { name: 'setup', good: false };
async function must(method: string, path: string, key: string, body?: unknown): Promise<any> {
  const a = await call(admin, path, method, path, { key, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (!a || a.status >= 300) throw new Error(`${method} ${path}: ${a?.status} ${a?.text}`);
  return a.text ? JSON.parse(a.text) : undefined;
}

for (let i = 0; ; i++) {
  try {
    const r = await fetch(`${base}/health/ready`);
    if (r.ok) break;
  } catch {
    /* not yet */
  }
  if (died || i > 200) {
    cleanup();
    throw new Error(`the server did not start: ${died ?? 'not ready after 20 s'}\n${logs.samples.join('\n')}`);
  }
  await sleep(100);
}

interface Tenant {
  name: string;
  id: string;
  userId: string;
  key: string;
  projects: Record<string, string>;
}
async function tenant(name: string, permissions: string[], projects: string[]): Promise<Tenant> {
  const t = await must('POST', '/api/tenant', GLOBAL, { name });
  const user = await must('POST', '/api/user', GLOBAL, { email: `${name}@example.com` });
  await must('POST', `/api/tenant/${t.id}/user`, GLOBAL, { userId: user.id, permissions });
  const { key } = await must('POST', `/api/tenant/${t.id}/apikey`, GLOBAL, { userId: user.id, name: `${name}-main` });
  const ids: Record<string, string> = {};
  for (const p of projects) ids[p] = (await must('POST', `/api/${t.id}/project`, key, { name: p })).id;
  return { name, id: t.id, userId: user.id, key, projects: ids };
}

const MODELS = ['order-to-cash', 'claims', 'helpdesk'];
const good = await Promise.all(MODELS.map((m, i) => tenant(['acme', 'globex', 'initech'][i]!, ['read', 'write'], ['stream', 'files'])));
const chaos = pathological ? await tenant('chaos', ['read', 'write', 'admin'], ['huge']) : undefined;

/** Small logs to upload: per tenant, six of 60-150 cases in the four formats. */
const formats: { format: LogFormat; gz: boolean; ext: string }[] = [
  { format: 'csv', gz: false, ext: 'csv' },
  { format: 'ndjson', gz: false, ext: 'ndjson' },
  { format: 'xes', gz: false, ext: 'xes' },
  { format: 'ndjson', gz: true, ext: 'ndjson.gz' },
];
const uploads = new Map<string, { name: string; bytes: Buffer }[]>();
for (const [i, t] of good.entries()) {
  const pool: { name: string; bytes: Buffer }[] = [];
  for (let j = 0; j < 6; j++) {
    const f = formats[j % formats.length]!;
    const path = join(filesDir, `${t.name}-${j}.${f.format}`);
    await writeSimulation({ model: MODELS[i]!, cases: 60 + 18 * j, seed: 1000 * i + j }, f.format, path);
    const raw = readFileSync(path);
    pool.push({ name: `${t.name}-${j}.${f.ext}`, bytes: f.gz ? gzipSync(raw) : raw });
  }
  uploads.set(t.name, pool);
}
const uploadBytes = [...uploads.values()].flat().map((u) => u.bytes.length);

// ---------------------------------------------------------------- the well-behaved tenants

async function ingester(t: Tenant) {
  const who: Who = { name: t.name, good: true };
  const events = simulate({ model: MODELS[good.indexOf(t)]!, cases: streamCases, seed: 7 + good.indexOf(t), lateShare: 0.02, duplicateShare: 0.02 });
  const path = `/api/${t.id}/project/${t.projects.stream}/events`;
  for (let n = 0; !load.signal.aborted; n++) {
    const started = performance.now();
    const batch: WireEvent[] = [];
    for (let i = 0; i < 150; i++) batch.push(events.next().value as WireEvent);
    totals.goodEvents += batch.length;
    const ndjson = n % 4 === 3;
    const body = ndjson ? batch.map((e) => JSON.stringify(e)).join('\n') : JSON.stringify(batch);
    await call(who, 'POST events', 'POST', path, { key: t.key, body, type: ndjson ? 'application/x-ndjson' : 'application/json', kind: 'ingest', expect: [200] });
    await sleep(Math.max(0, 1000 - (performance.now() - started)), load.signal);
  }
}

async function reader(t: Tenant, offset: number) {
  const who: Who = { name: t.name, good: true };
  const stream = `/api/${t.id}/project/${t.projects.stream}`;
  const files = `/api/${t.id}/project/${t.projects.files}`;
  let streamTag = '';
  let filesTag = '';
  let versions: number[] = [];
  const ops: (() => Promise<unknown>)[] = [
    async () => {
      const a = await call(who, 'GET graph', 'GET', `${stream}/graph`, { key: t.key, kind: 'read', expect: [200] });
      streamTag = a?.headers.get('etag') ?? streamTag;
    },
    () => call(who, 'GET graph If-None-Match', 'GET', `${stream}/graph`, { key: t.key, kind: 'read', headers: streamTag ? { 'if-none-match': streamTag } : {}, expect: [200, 304] }),
    async () => {
      const a = await call(who, 'GET graph If-None-Match', 'GET', `${files}/graph`, { key: t.key, kind: 'read', headers: filesTag ? { 'if-none-match': filesTag } : {}, expect: [200, 304] });
      filesTag = a?.headers.get('etag') ?? filesTag;
    },
    () => call(who, 'GET projects', 'GET', `/api/${t.id}/project`, { key: t.key, kind: 'read', expect: [200] }),
    () => call(who, 'GET datasets', 'GET', `${files}/dataset`, { key: t.key, kind: 'read', expect: [200] }),
    async () => {
      const a = await call(who, 'GET graph/versions', 'GET', `${stream}/graph/versions`, { key: t.key, kind: 'read', expect: [200] });
      if (a?.status === 200) versions = (JSON.parse(a.text).items as { dataVersion: number }[]).map((v) => v.dataVersion);
    },
    () => call(who, 'GET project', 'GET', stream, { key: t.key, kind: 'read', expect: [200] }),
    async () => {
      if (!versions.length) return;
      const v = versions[Math.floor(Math.random() * versions.length)]!;
      // A kept version may have been dropped since the list was read (at most 500 are kept): 404 is fine.
      await call(who, 'GET graph?version', 'GET', `${stream}/graph?version=${v}`, { key: t.key, kind: 'read', expect: [200, 404] });
    },
  ];
  for (let i = offset * 4; !load.signal.aborted; i++) {
    await ops[i % ops.length]!();
    await sleep(jitter(300), load.signal);
  }
}

async function uploader(t: Tenant) {
  const who: Who = { name: t.name, good: true };
  const files = `/api/${t.id}/project/${t.projects.files}`;
  const pool = uploads.get(t.name)!;
  const kept: string[] = [];
  await sleep(Math.random() * 5000, load.signal);
  for (let i = 0; !load.signal.aborted; i++) {
    const u = pool[i % pool.length]!;
    const a = await call(who, 'POST dataset', 'POST', `${files}/dataset?name=${encodeURIComponent(u.name)}`, { key: t.key, body: u.bytes, type: 'application/octet-stream', kind: 'upload', expect: [201] });
    if (a?.status === 201) {
      kept.push(JSON.parse(a.text).id);
      totals.uploads++;
      await call(who, 'GET dataset', 'GET', `${files}/dataset/${kept[kept.length - 1]}`, { key: t.key, kind: 'read', expect: [200] });
    }
    while (kept.length > 3) {
      const id = kept.shift()!;
      const d = await call(who, 'DELETE dataset', 'DELETE', `${files}/dataset/${id}`, { key: t.key, kind: 'upload', expect: [204] });
      if (d?.status === 204) totals.deletes++;
    }
    await sleep(jitter(15_000), load.signal);
  }
}

async function subscriber(t: Tenant, project: 'stream' | 'files', document: boolean) {
  const who: Who = { name: t.name, good: true };
  const path = `/api/${t.id}/project/${t.projects[project]}/graph/stream${document ? '?include=document' : ''}`;
  while (!load.signal.aborted) {
    const stop = new AbortController();
    const both = AbortSignal.any([stop.signal, load.signal]);
    const timer = setTimeout(() => stop.abort(), jitter(60_000));
    const outcome = await subscribe(who, `SSE ${project}${document ? ' +document' : ''}`, path, t.key, both);
    clearTimeout(timer);
    totals.sseConnects++;
    if (outcome !== 'aborted' && !load.signal.aborted) {
      failures.push(`${t.name} SSE ${project}: the stream ended by itself (${outcome})`);
      await sleep(1000, load.signal);
    }
  }
}

// ---------------------------------------------------------------- the pathological tenant

const bad: Who = { name: 'chaos', good: false };
const longText = (n: number, seed: number) => {
  const unit = `${seed.toString(36)}-lorem-ipsum-dolor-sit-amet-`;
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
};
const t2025 = Date.UTC(2025, 0, 1);

/** A project fed one new distinct activity per event (and new attribute names), re-made at 2,000 activities. */
async function wide(c: Tenant) {
  let project = '';
  let activities = 0;
  let made = 0;
  for (let n = 0; !load.signal.aborted; n++) {
    if (!project || activities >= 2000) {
      if (project) await call(bad, 'DELETE project (wide)', 'DELETE', `/api/${c.id}/project/${project}`, { key: c.key, expect: [204] });
      const a = await call(bad, 'POST project (wide)', 'POST', `/api/${c.id}/project`, { key: c.key, body: JSON.stringify({ name: `wide-${made++}` }), expect: [201, 422] });
      if (a?.status !== 201) {
        project = '';
        await sleep(2000, load.signal);
        continue;
      }
      project = JSON.parse(a.text).id;
      activities = 0;
    }
    const events = Array.from({ length: 25 }, (_, i) => {
      const k = activities++;
      // Every fifth name is just under the activity limit; some are multi-byte.
      const activity = k % 5 === 0 ? `${longText(LIMITS.activity - 24, k)}-${String(k).padStart(8, '0')}` : k % 7 === 0 ? `Äktivität ✓ ${k}` : `step ${k}`;
      return { caseId: `w-${(n * 25 + i) % 300}`, activity, timestamp: t2025 + (n * 25 + i) * 1000, eventId: `w-${made}-${k}`, attributes: { [`attr_${k % 500}`]: `v${k % 13}`, amount: k % 1000 } };
    });
    const path = `/api/${c.id}/project/${project}`;
    const a = await call(bad, 'POST events (wide)', 'POST', `${path}/events`, { key: c.key, body: JSON.stringify(events), expect: [200, 404] });
    if (a?.status === 200) totals.badEvents += 25;
    if (n % 10 === 9) {
      const g = await call(bad, 'GET graph (wide)', 'GET', `${path}/graph`, { key: c.key, expect: [200, 404] });
      if (g?.status === 200) wideBuilds.push({ activities, ms: g.ms });
    }
    await sleep(1000, load.signal);
  }
}
const wideBuilds: { activities: number; ms: number }[] = [];

/** Events just under every per-event limit: 60 KiB attribute values, 990 attributes, 500-byte ids, 1,000-byte activities. */
async function huge(c: Tenant) {
  const path = `/api/${c.id}/project/${c.projects.huge}`;
  for (let n = 0; !load.signal.aborted; n++) {
    const id = (s: string) => `${s}-${n}-`.padEnd(LIMITS.id - 12, 'x');
    const ts = t2025 + n * 60_000;
    const events = [
      {
        caseId: id(`case-${n % 50}`).slice(0, 200) + `-${n % 50}`,
        activity: `${longText(LIMITS.activity - 40, n % 4)}-big-values-${n % 4}`,
        timestamp: ts,
        eventId: id('big'),
        resource: id('res'),
        attributes: { note: longText(LIMITS.attributeValue - 1024, n), memo: longText(LIMITS.attributeValue - 100, n + 1), tag: longText(60_000, n + 2) },
      },
      {
        caseId: `case-${n % 50}`,
        activity: `many-attributes-${n % 3}`,
        timestamp: ts + 1000,
        eventId: id('many'),
        attributes: Object.fromEntries(Array.from({ length: LIMITS.attributes - 10 }, (_, i) => [`a${i}`, i % 2 ? `${n}-${i}` : n * i])),
      },
    ];
    const a = await call(bad, 'POST events (huge)', 'POST', `${path}/events`, { key: c.key, body: JSON.stringify(events), expect: [200] });
    if (a?.status === 200) totals.badEvents += JSON.parse(a.text).accepted;
    if (n % 5 === 4) await call(bad, 'GET graph (huge)', 'GET', `${path}/graph`, { key: c.key, expect: [200] });
    await sleep(3000, load.signal);
  }
}

/** Requests over a limit, in turn. */
async function overLimit(c: Tenant) {
  const path = `/api/${c.id}/project/${c.projects.huge}`;
  const cases: (() => Promise<unknown>)[] = [
    // One event over each per-event limit, and one good one: 200 with four rejections.
    () =>
      call(bad, 'POST events over limits', 'POST', `${path}/events`, {
        key: c.key,
        expect: [200],
        body: JSON.stringify([
          { caseId: 'ol', activity: 'A'.repeat(LIMITS.activity + 1), timestamp: t2025 },
          { caseId: 'ol', activity: 'B', timestamp: t2025, attributes: { v: 'x'.repeat(LIMITS.attributeValue + 10) } },
          { caseId: 'ol', activity: 'C', timestamp: t2025, attributes: Object.fromEntries(Array.from({ length: LIMITS.attributes + 1 }, (_, i) => [`k${i}`, i])) },
          { caseId: 'c'.repeat(LIMITS.id + 1), activity: 'D', timestamp: t2025 },
          { caseId: 'ol', activity: 'E', timestamp: t2025 + 1 },
        ]),
      }),
    // More events than a request may carry: 413.
    () => call(bad, 'POST events over count', 'POST', `${path}/events`, { key: c.key, type: 'application/x-ndjson', body: '{}\n'.repeat(LIMITS.eventsPerRequest + 1), expect: [413] }),
    // A body over the body limit: 413 (or the connection closed on it).
    () => call(bad, 'POST events over body limit', 'POST', `${path}/events`, { key: c.key, body: `[${'"x",'.repeat(BODY_LIMIT / 4)}"x"]`, expect: [413] }),
    // An upload over the upload limit: 413, nothing staged left behind.
    () => call(bad, 'POST dataset over upload limit', 'POST', `${path}/dataset`, { key: c.key, type: 'application/octet-stream', body: Buffer.alloc(UPLOAD_LIMIT + 65536, 'case,activity,time\n'), expect: [413] }),
    // Too many events in a JSON array (zod's .max on the body).
    () => call(bad, 'POST events over count (json)', 'POST', `${path}/events`, { key: c.key, body: `[${'{},'.repeat(LIMITS.eventsPerRequest)}{}]`, expect: [413, 400] }),
  ];
  for (let n = 0; !load.signal.aborted; n++) {
    await cases[n % cases.length]!();
    await sleep(jitter(4000), load.signal);
  }
}

/** Malformed requests, in turn. */
async function malformed(c: Tenant) {
  const path = `/api/${c.id}/project/${c.projects.huge}`;
  const nested = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
  const deepObject = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
  const gz = gzipSync(Buffer.from(Array.from({ length: 2000 }, (_, i) => JSON.stringify({ caseId: `g${i % 40}`, activity: `x${i % 5}`, timestamp: t2025 + i })).join('\n') + '\n'));
  const cases: [string, () => Promise<unknown>][] = [
    ['broken JSON', () => call(bad, 'malformed: broken JSON', 'POST', `${path}/events`, { key: c.key, body: '[{"caseId": "a", "activity": ', expect: [400] })],
    ['NDJSON half bad', () => call(bad, 'malformed: NDJSON half bad', 'POST', `${path}/events`, { key: c.key, type: 'application/x-ndjson', body: '{"caseId":"n","activity":"a","timestamp":1}\nnot json\n{"caseId":\n{"caseId":"n","activity":"b","timestamp":"yesterday"}\n', expect: [200] })],
    ['a number', () => call(bad, 'malformed: a number', 'POST', `${path}/events`, { key: c.key, body: '42', expect: [400] })],
    ['text/plain', () => call(bad, 'malformed: text/plain', 'POST', `${path}/events`, { key: c.key, type: 'text/plain', body: 'hello', expect: [400, 415] })],
    ['deep array', () => call(bad, 'malformed: 20k-deep array', 'POST', `${path}/events`, { key: c.key, body: nested, expect: [200, 400] })],
    ['deep object', () => call(bad, 'malformed: 5k-deep object', 'POST', `${path}/events`, { key: c.key, body: deepObject, expect: [200, 400] })],
    ['odd fields', () => call(bad, 'malformed: odd fields', 'POST', `${path}/events`, { key: c.key, expect: [200], body: '[{"caseId":"o","activity":"a\\u0000b","timestamp":"2025-13-45T99:00:00Z"},{"caseId":"\\ud800","activity":"q","timestamp":1},{"caseId":"o","caseId":"dup","activity":"r","timestamp":-1e300},{"caseId":null,"activity":[],"timestamp":{}},{"caseId":"o","activity":"s","timestamp":1,"attributes":{"n":1e309,"o":{"deep":[1]}}}]' })],
    ['__proto__', () => call(bad, 'malformed: __proto__ key', 'POST', `${path}/events`, { key: c.key, expect: [400], body: '[{"__proto__":{"x":1},"caseId":"o","activity":"p","timestamp":1}]' })],
    ['binary upload', () => call(bad, 'malformed: binary upload', 'POST', `${path}/dataset`, { key: c.key, type: 'application/octet-stream', body: Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7919 + 13) & 255)), expect: [400] })],
    ['cut gzip', () => call(bad, 'malformed: cut gzip', 'POST', `${path}/dataset`, { key: c.key, type: 'application/octet-stream', body: gz.subarray(0, Math.floor(gz.length / 2)), expect: [400] })],
    ['cut XES', () => call(bad, 'malformed: cut XES', 'POST', `${path}/dataset`, { key: c.key, type: 'application/octet-stream', body: '<?xml version="1.0"?><log xes.version="1.0"><trace><string key="concept:name" value="t1"/><event><string key="concept:name" value="a"/><date key="time:timestamp" value="2025-01-01T00:00:00Z"/></event><event><string key="conc', expect: [400] })],
    ['CSV no columns', () => call(bad, 'malformed: CSV without columns', 'POST', `${path}/dataset`, { key: c.key, type: 'application/octet-stream', body: 'foo;bar\n1;2\n3;4\n', expect: [400] })],
    ['bad query', () => call(bad, 'malformed: unknown upload option', 'POST', `${path}/dataset?bogus=1`, { key: c.key, type: 'application/octet-stream', body: 'a,b\n', expect: [400] })],
    ['bad version', () => call(bad, 'malformed: ?version=abc', 'GET', `${path}/graph?version=abc`, { key: c.key, expect: [400] })],
    ['bad guid', () => call(bad, 'malformed: bad GUID', 'GET', `/api/${c.id}/project/not-a-guid/graph`, { key: c.key, expect: [400, 404] })],
    ['long segment', () => call(bad, 'malformed: 300-char segment', 'GET', `/api/${c.id}/project/${'z'.repeat(300)}`, { key: c.key, expect: [400, 404, 414] })],
    ['bad encoding', () => call(bad, 'malformed: bad URL encoding', 'GET', `/api/${c.id}/project/%E0%A4%A`, { key: c.key, expect: [400, 404] })],
    ['unknown route', () => call(bad, 'malformed: unknown route', 'GET', `/api/${c.id}/nothing/here`, { key: c.key, expect: [404] })],
    ['wrong method', () => call(bad, 'malformed: wrong method', 'PATCH', `${path}/graph`, { key: c.key, expect: [405, 404] })],
    ['big header', () => call(bad, 'malformed: 40 KB header', 'GET', `${path}/graph`, { key: c.key, headers: { 'x-junk': 'j'.repeat(40_000) }, expect: [431] })],
    ['other tenant', () => call(bad, 'malformed: another tenant\'s project', 'GET', `/api/${good[0]!.id}/project/${good[0]!.projects.stream}/graph`, { key: c.key, expect: [403, 404] })],
    ['bad json project', () => call(bad, 'malformed: project body', 'POST', `/api/${c.id}/project`, { key: c.key, body: JSON.stringify({ name: '', extra: true }), expect: [400] })],
    ['zero events', () => call(bad, 'malformed: empty array', 'POST', `${path}/events`, { key: c.key, body: '[]', expect: [200] })],
  ];
  for (let n = 0; !load.signal.aborted; n++) {
    await cases[n % cases.length]![1]();
    await sleep(jitter(1500), load.signal);
  }
}

/** Projects made, fed, read and deleted; creation up to the tenant's limit (422), then the oldest go. */
async function churn(c: Tenant) {
  const mine: string[] = [];
  for (let n = 0; !load.signal.aborted; n++) {
    const a = await call(bad, 'POST project (churn)', 'POST', `/api/${c.id}/project`, { key: c.key, body: JSON.stringify({ name: `churn-${n}`, description: 'd'.repeat(1999) }), expect: [201, 422] });
    if (a?.status === 422) {
      totals.projectLimitHits++;
      for (const id of mine.splice(0, 5)) {
        await call(bad, 'DELETE project (churn)', 'DELETE', `/api/${c.id}/project/${id}`, { key: c.key, expect: [204] });
        totals.projectsDeleted++;
      }
      // A project already gone: 404.
      await call(bad, 'DELETE project (gone)', 'DELETE', `/api/${c.id}/project/00000000-0000-4000-8000-000000000000`, { key: c.key, expect: [404] });
    } else if (a?.status === 201) {
      const id = JSON.parse(a.text).id as string;
      mine.push(id);
      totals.projectsMade++;
      const events = Array.from({ length: 30 }, (_, i) => ({ caseId: `k${i % 6}`, activity: ['a', 'b', 'c', 'd'][i % 4]!, timestamp: t2025 + i * 1000 }));
      await call(bad, 'POST events (churn)', 'POST', `/api/${c.id}/project/${id}/events`, { key: c.key, body: JSON.stringify(events), expect: [200] });
      await call(bad, 'GET graph (churn)', 'GET', `/api/${c.id}/project/${id}/graph`, { key: c.key, expect: [200] });
      churned.push(id);
      if (churned.length > 20) churned.shift();
    }
    if (n % 5 === 0) await call(bad, 'GET projects', 'GET', `/api/${c.id}/project`, { key: c.key, expect: [200] });
    await sleep(jitter(1500), load.signal);
  }
}
const churned: string[] = [];

/** Keys issued, used once, revoked, used again; unknown keys; now and then a burst over the rate limit. */
async function keyChurn(c: Tenant) {
  for (let n = 0; !load.signal.aborted; n++) {
    const viaGlobal = n % 5 === 0;
    const issued = viaGlobal
      ? await call(bad, 'POST apikey (global)', 'POST', `/api/tenant/${c.id}/apikey`, { key: GLOBAL, body: JSON.stringify({ userId: c.userId, name: `churn-${n}`, permissions: ['read'] }), expect: [201] })
      : await call(bad, 'POST apikey', 'POST', `/api/${c.id}/apikey`, { key: c.key, body: JSON.stringify({ userId: c.userId, name: `churn-${n}`, permissions: ['read', 'write'], ...(n % 3 === 0 ? { expiresAt: new Date(Date.now() + 3_600_000).toISOString() } : {}) }), expect: [201] });
    if (issued?.status === 201) {
      const { id, key } = JSON.parse(issued.text) as { id: string; key: string };
      totals.keysIssued++;
      if (n % 40 === 39) {
        // A burst over the rate limit (600 at once, 100/s): about a hundred 429s.
        let next = 0;
        await Promise.all(
          Array.from({ length: 20 }, async () => {
            while (next < 700 && !load.signal.aborted) {
              next++;
              await call(bad, 'rate-limit burst', 'GET', `/api/${c.id}/project`, { key, expect: [200, 429] });
            }
          }),
        );
      } else {
        await call(bad, 'GET projects (new key)', 'GET', `/api/${c.id}/project`, { key, expect: [200] });
      }
      if (viaGlobal) await call(bad, 'DELETE apikey (global)', 'DELETE', `/api/tenant/${c.id}/apikey/${id}`, { key: GLOBAL, expect: [204] });
      else await call(bad, 'DELETE apikey', 'DELETE', `/api/${c.id}/apikey/${id}`, { key: c.key, expect: [204] });
      await call(bad, 'GET projects (revoked key)', 'GET', `/api/${c.id}/project`, { key, expect: [401] });
    }
    await call(bad, 'GET projects (unknown key)', 'GET', `/api/${c.id}/project`, { key: `pcg_${Math.random().toString(36).slice(2)}${'q'.repeat(30)}`, expect: [401] });
    if (n % 20 === 0) await call(bad, 'GET apikeys', 'GET', `/api/${c.id}/apikey`, { key: c.key, expect: [200] });
    await sleep(jitter(500), load.signal);
  }
}

/** Graph streams opened and dropped; one in three on a key revoked while it is open (it must end). */
async function streamChurn(c: Tenant) {
  for (let n = 0; !load.signal.aborted; n++) {
    const project = churned[Math.floor(Math.random() * churned.length)] ?? c.projects.huge!;
    const path = `/api/${c.id}/project/${project}/graph/stream${n % 2 ? '?include=document' : ''}`;
    if (n % 3 === 0) {
      const issued = await call(bad, 'POST apikey (stream)', 'POST', `/api/${c.id}/apikey`, { key: c.key, body: JSON.stringify({ userId: c.userId, name: `stream-${n}`, permissions: ['read'] }), expect: [201] });
      if (issued?.status !== 201) continue;
      const { id, key } = JSON.parse(issued.text) as { id: string; key: string };
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), 10_000);
      const done = subscribe(bad, 'SSE (revoked)', path, key, AbortSignal.any([stop.signal, load.signal]));
      await sleep(500 + Math.random() * 1000, load.signal);
      await call(bad, 'DELETE apikey (stream)', 'DELETE', `/api/${c.id}/apikey/${id}`, { key: c.key, expect: [204] });
      const outcome = await done;
      clearTimeout(timer);
      if (outcome === 'ended' || outcome === 404) totals.revokedStreamsEnded++;
      else if (outcome === 'aborted' && !load.signal.aborted) totals.revokedStreamsLeftOpen++;
    } else {
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), Math.random() * 2000);
      await subscribe(bad, 'SSE (dropped)', path, c.key, AbortSignal.any([stop.signal, load.signal]));
      clearTimeout(timer);
    }
    totals.badStreams++;
    await sleep(jitter(2000), load.signal);
  }
}

// ---------------------------------------------------------------- sampling

const totals = { goodEvents: 0, badEvents: 0, uploads: 0, deletes: 0, sseConnects: 0, projectsMade: 0, projectsDeleted: 0, projectLimitHits: 0, keysIssued: 0, badStreams: 0, revokedStreamsEnded: 0, revokedStreamsLeftOpen: 0 };

interface Sample {
  t: number;
  /** The server's CPU time so far (user + system), seconds. */
  cpuSeconds: number;
  rssMiB: number;
  hwmMiB: number;
  threads: number;
  fds: number;
  sockets: number;
  dbFiles: number;
  heapMiB: number;
  externalMiB: number;
  openStores: number;
  loopP99ms: number;
  dataDirMiB: number;
  serverFiveHundreds: number;
  load1: number;
  clientLoopP99ms: number;
}
const samples: Sample[] = [];
const clientLoop = monitorEventLoopDelay({ resolution: 10 });

function dirBytes(dir: string): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    try {
      if (e.isDirectory()) total += dirBytes(p);
      else total += statSync(p).size;
    } catch {
      /* removed meanwhile */
    }
  }
  return total;
}

/** The server's own count of 5xx answers, by method, route and status (from /metrics). */
const serverFiveHundredRoutes = new Map<string, number>();
async function metrics(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  try {
    const r = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS}` }, signal: AbortSignal.timeout(10_000) });
    const text = await r.text();
    for (const line of text.split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)/.exec(line);
      if (!m) continue;
      const [, name, labels, value] = m;
      // /health/ready is 503 while the server starts (the runner's own polling): not an error of the run.
      if (name === 'pcg_http_request_duration_seconds_count' && /status="5\d\d"/.test(labels ?? '') && !labels!.includes('/health/ready')) {
        out.set('5xx', (out.get('5xx') ?? 0) + Number(value));
        serverFiveHundredRoutes.set(labels!, Number(value));
      }
      if (!labels) out.set(name!, Number(value));
    }
  } catch {
    /* a missed scrape */
  }
  return out;
}

async function sample(): Promise<Sample> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  const fdDir = `/proc/${pid}/fd`;
  let sockets = 0;
  let dbFiles = 0;
  const fds = readdirSync(fdDir);
  for (const fd of fds) {
    try {
      const target = readlinkSync(join(fdDir, fd));
      if (target.startsWith('socket:')) sockets++;
      else if (target.startsWith(dataDir)) dbFiles++;
    } catch {
      /* closed meanwhile */
    }
  }
  // utime + stime, in clock ticks (100 a second on Linux).
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const cpuSeconds = (Number(stat[11]) + Number(stat[12])) / 100;
  const m = await metrics();
  const s: Sample = {
    t: now(),
    cpuSeconds,
    rssMiB: kb('VmRSS') / 1024,
    hwmMiB: kb('VmHWM') / 1024,
    threads: Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? NaN),
    fds: fds.length,
    sockets,
    dbFiles,
    heapMiB: (m.get('nodejs_heap_size_used_bytes') ?? NaN) / 2 ** 20,
    externalMiB: (m.get('nodejs_external_memory_bytes') ?? NaN) / 2 ** 20,
    openStores: m.get('pcg_open_project_stores') ?? NaN,
    loopP99ms: (m.get('nodejs_eventloop_lag_p99_seconds') ?? NaN) * 1000,
    dataDirMiB: dirBytes(dataDir) / 2 ** 20,
    serverFiveHundreds: m.get('5xx') ?? 0,
    load1: loadavg()[0]!,
    clientLoopP99ms: clientLoop.percentile(99) / 1e6,
  };
  clientLoop.reset();
  return s;
}

const pct = (xs: number[], q: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '-');
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const lat = (xs: number[]) => `${f0(pct(xs, 0.5))}/${f0(pct(xs, 0.99))}`;
const between = (from: number, to: number, kind: Kind, tenant?: string) => recs.filter((r) => r.t >= from && r.t < to && r.kind === kind && r.status > 0 && (!tenant || r.tenant === tenant)).map((r) => r.ms);

async function sampler() {
  let last = 0;
  while (!load.signal.aborted) {
    await sleep(t0 + last + sampleSeconds * 1000 - performance.now(), load.signal);
    if (load.signal.aborted || died) break;
    const s = await sample().catch(() => undefined);
    if (!s) continue;
    samples.push(s);
    const from = last;
    last += sampleSeconds * 1000;
    const perTenant = good.map((t) => `${t.name} r ${lat(between(from, last, 'read', t.name))} i ${lat(between(from, last, 'ingest', t.name))}`).join(' | ');
    console.error(
      `[${f0(s.t / 1000).padStart(4)} s] rss ${f0(s.rssMiB)} MiB heap ${f0(s.heapMiB)} fds ${s.fds} (sock ${s.sockets}, data ${s.dbFiles}) stores ${s.openStores} loop p99 ${f1(s.loopP99ms)} ms data ${f0(s.dataDirMiB)} MiB load ${s.load1.toFixed(2)} 5xx ${fiveHundreds.length} | p50/p99 ms ${perTenant}`,
    );
  }
}

// ---------------------------------------------------------------- the run

const loadStart = loadavg();
const startedAt = new Date();
console.error(`soak: pcg serve pid ${pid} on ${base}, data dir ${dataDir}, ${minutes} min, samples every ${sampleSeconds} s, pathological tenant ${pathological ? 'on' : 'off'}, load average ${loadStart.map((x) => x.toFixed(2)).join(' ')}`);
samples.push(await sample()); // the idle baseline, before any load
t0 = performance.now();
samples[0]!.t = 0;
clientLoop.enable();
const stopTimer = setTimeout(() => load.abort(), durationMs);
const workers: Promise<unknown>[] = [sampler()];
for (const t of good) workers.push(ingester(t), reader(t, 0), reader(t, 1), uploader(t), subscriber(t, 'stream', true), subscriber(t, 'files', false));
if (chaos) workers.push(wide(chaos), huge(chaos), overLimit(chaos), malformed(chaos), churn(chaos), keyChurn(chaos), streamChurn(chaos));
await Promise.race([Promise.all(workers), new Promise((r) => load.signal.addEventListener('abort', r, { once: true }))]);
clearTimeout(stopTimer);
load.abort();
const loadMs = now();
// Requests in flight finish (or time out) before the last sample.
await Promise.race([Promise.allSettled(workers), sleep(30_000)]);
const loadEnd = loadavg();
const final = died ? undefined : await sample().catch(() => undefined);
const elapsedMs = now();

// A graceful stop under load's aftermath: SIGTERM must exit 0.
stopping = true;
let stopped = 'already gone';
if (!died) {
  server.kill('SIGTERM');
  const how = await Promise.race([exited, sleep(20_000).then(() => undefined)]);
  if (!how) {
    server.kill('SIGKILL');
    stopped = 'did not exit within 20 s of SIGTERM (killed)';
  } else stopped = how.code === 0 ? 'exit 0' : `exit ${how.code} signal ${how.signal}`;
}
const dataDirMiB = final?.dataDirMiB ?? NaN;
rmSync(dataDir, { recursive: true, force: true });
rmSync(filesDir, { recursive: true, force: true });
clearTimeout(hardStop);

// ---------------------------------------------------------------- report

const loaded = samples.slice(1);
const minutesRun = Math.ceil(elapsedMs / 60_000 - 0.01);
const rows: string[] = [];
rows.push('| minute | RSS MiB (end / max) | heap MiB | fds (end / max) | sockets | data-dir fds | open stores | server loop p99 ms | read p50 / p99 ms | worst tenant read p99 | ingest p50 / p99 ms | worst tenant ingest p99 | upload p50 ms | good reqs | chaos reqs | server CPU % | load avg 1m |');
rows.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
const base0 = samples[0]!;
rows.push(`| idle | ${f0(base0.rssMiB)} | ${f0(base0.heapMiB)} | ${base0.fds} | ${base0.sockets} | ${base0.dbFiles} | ${base0.openStores} | ${f1(base0.loopP99ms)} | | | | | | | | | ${base0.load1.toFixed(2)} |`);
const chaosCount = (from: number, to: number) => chaosTimes.filter((t) => t >= from && t < to).length;
for (let m = 0; m < minutesRun; m++) {
  const from = m * 60_000;
  const to = from + 60_000;
  const ss = loaded.filter((s) => s.t > from && s.t <= to + 1);
  if (!ss.length) continue;
  const end = ss[ss.length - 1]!;
  const before = [...samples].reverse().find((s) => s.t <= from + 1) ?? samples[0]!;
  const cpu = ((end.cpuSeconds - before.cpuSeconds) / ((end.t - before.t) / 1000)) * 100;
  const reads = between(from, to, 'read');
  const ingests = between(from, to, 'ingest');
  const worst = (kind: Kind) => Math.max(...good.map((t) => pct(between(from, to, kind, t.name), 0.99)).filter(Number.isFinite));
  rows.push(
    `| ${m + 1} | ${f0(end.rssMiB)} / ${f0(Math.max(...ss.map((s) => s.rssMiB)))} | ${f0(end.heapMiB)} | ${end.fds} / ${Math.max(...ss.map((s) => s.fds))} | ${end.sockets} | ${end.dbFiles} | ${end.openStores} | ${f1(Math.max(...ss.map((s) => s.loopP99ms)))} | ${lat(reads)} | ${f0(worst('read'))} | ${lat(ingests)} | ${f0(worst('ingest'))} | ${f0(pct(between(from, to, 'upload'), 0.5))} | ${recs.filter((r) => r.t >= from && r.t < to).length} | ${chaosCount(from, to) || '-'} | ${f0(cpu)} | ${end.load1.toFixed(2)} |`,
  );
}

// Flatness: after a warm-up (the first minute, a fifth of shorter runs: JIT, caches and the
// pathological tenant's projects filling up to its limit), the last third of the rest against the first.
const warmMs = Math.min(60_000, loadMs / 5);
const third = (loadMs - warmMs) / 3;
const firstFrom = warmMs;
const firstTo = warmMs + third;
const lastFrom = warmMs + 2 * third;
const inFirst = loaded.filter((s) => s.t > firstFrom && s.t <= firstTo + 1);
const inLast = loaded.filter((s) => s.t > lastFrom);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const slope = (pts: { x: number; y: number }[]) => {
  const mx = mean(pts.map((p) => p.x));
  const my = mean(pts.map((p) => p.y));
  const num = pts.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const den = pts.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return den ? num / den : NaN;
};
interface Check {
  what: string;
  first: number;
  last: number;
  ratio: number;
  flat: boolean;
  note: string;
}
const checks: Check[] = [];
const check = (what: string, first: number, last: number, limit: number, slack: number, note = '') => {
  const ratio = last / first;
  checks.push({ what, first, last, ratio, flat: last <= first * limit + slack, note });
};
const afterWarmup = loaded.filter((s) => s.t > firstTo);
const rssSlope = slope(afterWarmup.map((s) => ({ x: s.t / 60_000, y: s.rssMiB })));
const heapSlope = slope(afterWarmup.map((s) => ({ x: s.t / 60_000, y: s.heapMiB })));
check('RSS MiB (mean of samples)', mean(inFirst.map((s) => s.rssMiB)), mean(inLast.map((s) => s.rssMiB)), 1.2, 0, `slope over the last two thirds ${f1(rssSlope)} MiB/min`);
check('V8 heap used MiB (mean)', mean(inFirst.map((s) => s.heapMiB)), mean(inLast.map((s) => s.heapMiB)), 1.2, 0, `slope ${f1(heapSlope)} MiB/min`);
check('open fds (mean)', mean(inFirst.map((s) => s.fds)), mean(inLast.map((s) => s.fds)), 1.2, 8);
check('open fds (max)', Math.max(...inFirst.map((s) => s.fds)), Math.max(...inLast.map((s) => s.fds)), 1.2, 8);
check('good tenants read p99 ms', pct(between(firstFrom, firstTo, 'read'), 0.99), pct(between(lastFrom, Infinity, 'read'), 0.99), 1.5, 5);
check('good tenants ingest p99 ms', pct(between(firstFrom, firstTo, 'ingest'), 0.99), pct(between(lastFrom, Infinity, 'ingest'), 0.99), 1.5, 5);
for (const t of good) {
  check(`${t.name} read p99 ms`, pct(between(firstFrom, firstTo, 'read', t.name), 0.99), pct(between(lastFrom, Infinity, 'read', t.name), 0.99), 1.5, 5);
  check(`${t.name} ingest p99 ms`, pct(between(firstFrom, firstTo, 'ingest', t.name), 0.99), pct(between(lastFrom, Infinity, 'ingest', t.name), 0.99), 1.5, 5);
}
check('good tenants read p50 ms', pct(between(firstFrom, firstTo, 'read'), 0.5), pct(between(lastFrom, Infinity, 'read'), 0.5), 1.5, 2);
check('good tenants ingest p50 ms', pct(between(firstFrom, firstTo, 'ingest'), 0.5), pct(between(lastFrom, Infinity, 'ingest'), 0.5), 1.5, 2);
check('load average 1 min (machine)', mean(inFirst.map((s) => s.load1)), mean(inLast.map((s) => s.load1)), Infinity, 0, 'context only');

// Per route: where the good tenants' time went, first and last third.
const labels = [...new Set(recs.map((r) => `${r.kind} ${r.label}`))].sort();
const byLabel = labels.map((l) => {
  const of = (from: number, to: number) => recs.filter((r) => `${r.kind} ${r.label}` === l && r.t >= from && r.t < to && r.status > 0).map((r) => r.ms);
  const first = of(firstFrom, firstTo);
  const last = of(lastFrom, Infinity);
  return `| ${l} | ${recs.filter((r) => `${r.kind} ${r.label}` === l).length} | ${lat(first)} | ${lat(last)} | ${f0(Math.max(...recs.filter((r) => `${r.kind} ${r.label}` === l).map((r) => r.ms)))} |`;
});

const statusLines: string[] = [];
for (const [tenant, m] of statuses) {
  if (tenant === 'setup') continue;
  const entries = [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  statusLines.push(`${tenant}: ${entries.map(([k, v]) => `${k}: ${v}`).join('; ')}`);
}

const serverFiveHundreds = final?.serverFiveHundreds ?? samples[samples.length - 1]!.serverFiveHundreds;
const flat = checks.filter((c) => !c.note.startsWith('context')).every((c) => c.flat);
const failed = died !== undefined || fiveHundreds.length > 0 || serverFiveHundreds > 0 || failures.length > 0 || stopped !== 'exit 0';

const out: string[] = [];
out.push(`## soak: ${startedAt.toISOString()}, ${f1(elapsedMs / 60_000)} min of load${pathological ? ' with the pathological tenant' : ' (pathological tenant off)'}`);
out.push('');
out.push(`command: node --import tsx test/bench/soak.ts --minutes ${minutes} --sample-seconds ${sampleSeconds}${pathological ? '' : ' --pathological off'}${streamCases === 10_000_000 ? '' : ` --stream-cases ${streamCases}`}`);
out.push(`load average at start ${loadStart.map((x) => x.toFixed(2)).join(' / ')}, at end ${loadEnd.map((x) => x.toFixed(2)).join(' / ')} (1 / 5 / 15 min); samples' 1-min load ${f1(Math.min(...loaded.map((s) => s.load1)))}-${f1(Math.max(...loaded.map((s) => s.load1)))}`);
out.push(
  `work: ${totals.goodEvents} events ingested by the good tenants (+${totals.badEvents} accepted from chaos), ${totals.uploads} uploads and ${totals.deletes} dataset deletes, ${totals.sseConnects} good SSE connections (${[...sseEvents.entries()].filter(([k]) => !k.startsWith('chaos')).reduce((a, [, v]) => a + v, 0)} events received); chaos: ${totals.projectsMade} projects made, ${totals.projectsDeleted} deleted, ${totals.projectLimitHits} project-limit 422s, ${totals.keysIssued} keys issued and revoked, ${totals.badStreams} streams opened and dropped (revoked-key streams ended: ${totals.revokedStreamsEnded}, left open: ${totals.revokedStreamsLeftOpen}), wide-project builds ${wideBuilds.length} (up to ${Math.max(0, ...wideBuilds.map((b) => b.activities))} activities, slowest ${f0(Math.max(0, ...wideBuilds.map((b) => b.ms)))} ms)`,
);
out.push(`upload files: ${uploadBytes.length}, ${f0(Math.min(...uploadBytes) / 1024)}-${f0(Math.max(...uploadBytes) / 1024)} KiB; data dir at the end ${f0(dataDirMiB)} MiB; server peak RSS (VmHWM) ${f0(final?.hwmMiB ?? NaN)} MiB, threads ${final?.threads ?? '-'}`);
out.push('');
out.push(rows.join('\n'));
out.push('');
out.push('Latencies are the well-behaved tenants\' (client side, body read included): reads are every GET but streams, ingests `POST …/events` of 150 events; "worst tenant" is the highest of the three tenants\' p99 that minute.');
out.push('');
out.push(`Flatness: the first third after a ${f0(warmMs / 1000)} s warm-up (${f0(firstFrom / 1000)}-${f0(firstTo / 1000)} s) against the last third (${f0(lastFrom / 1000)}-${f0(loadMs / 1000)} s).`);
out.push('');
out.push('| flatness: last third vs first third | first | last | ratio | verdict |');
out.push('|---|---|---|---|---|');
for (const c of checks) out.push(`| ${c.what} | ${f1(c.first)} | ${f1(c.last)} | ${Number.isFinite(c.ratio) ? c.ratio.toFixed(2) : '-'} | ${c.note.startsWith('context') ? c.note : `${c.flat ? 'flat' : '**grows**'}${c.note ? ` (${c.note})` : ''}`} |`);
out.push('');
out.push('| good tenants: route | requests | first third p50 / p99 ms | last third p50 / p99 ms | max ms |');
out.push('|---|---|---|---|---|');
out.push(byLabel.join('\n'));
out.push('');
out.push(`server: ${died ?? 'alive to the end'}; SIGTERM at the end: ${stopped}; log lines at warn ${logs.warn}, error+ ${logs.error}, other ${logs.other}`);
out.push(`5xx seen by the clients: ${fiveHundreds.length}; 5xx counted by the server's /metrics: ${serverFiveHundreds}; failed well-behaved requests (no answer, stream ended): ${failures.length}; unexpected statuses: ${unexpected.length}; runner event-loop p99 max ${f1(Math.max(...loaded.map((s) => s.clientLoopP99ms)))} ms`);
out.push(`verdict: ${flat ? 'FLAT' : 'NOT FLAT'} (RSS and heap within 1.2x, fds within 1.2x + 8, p50/p99 within 1.5x + a few ms, last third against first); ${failed ? 'FAILED' : 'no 5xx, no failures, server alive'}`);
console.log(out.join('\n'));
console.error('\nstatuses by tenant and route:\n' + statusLines.join('\n'));
if (fiveHundreds.length) console.error('\n5xx:\n' + fiveHundreds.slice(0, 50).join('\n'));
if (serverFiveHundredRoutes.size) console.error('\n5xx by route (server /metrics):\n' + [...serverFiveHundredRoutes].map(([k, v]) => `${k}: ${v}`).join('\n'));
if (failures.length) console.error('\nfailed well-behaved requests:\n' + failures.slice(0, 50).join('\n'));
if (unexpected.length) console.error('\nunexpected statuses:\n' + unexpected.slice(0, 50).join('\n'));
if (logs.samples.length) console.error(`\nserver log (first ${Math.min(30, logs.samples.length)} lines):\n` + logs.samples.slice(0, 30).join('\n'));
const dump = join(tmpdir(), `pcg-soak-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
console.error(`\nsamples, statuses and log lines: ${dump}`);
writeFileSync(dump, JSON.stringify({ samples, checks, totals, statuses: Object.fromEntries([...statuses].map(([k, v]) => [k, Object.fromEntries(v)])), fiveHundreds, failures, unexpected, wideBuilds, logs }, null, 1));
process.exit(failed ? 1 : 0);
