import type { WireEvent } from '../../../engine/index.js';
import { simulate } from '../../../connectors/simulator/index.js';
import { jitter, sleep } from './clock.js';
import { MODELS, type Tenant, type Upload } from './tenants.js';
import type { Load, Who } from './traffic.js';

/**
 * A well-behaved tenant's clients: what a steady production tenant does, and
 * whose latency must not suffer from the pathological one. Every request
 * expects its status: any failure of these fails the run.
 */
export interface GoodLoad extends Load {
  /** The simulated window each stream is drawn from (--stream-cases). */
  streamCases: number;
}

/** All of one tenant's clients, running until the load stops: `index` picks its model. */
export function wellBehaved(load: GoodLoad, t: Tenant, index: number, uploads: Upload[]): Promise<unknown>[] {
  return [ingester(load, t, index), reader(load, t, 0), reader(load, t, 1), uploader(load, t, uploads), subscriber(load, t, 'stream', true), subscriber(load, t, 'files', false)];
}

/** 150 simulated wire events a second (2 % late, 2 % duplicates), every fourth batch NDJSON. */
async function ingester({ traffic, signal, streamCases }: GoodLoad, t: Tenant, index: number) {
  const who: Who = { name: t.name, good: true };
  const events = simulate({ model: MODELS[index]!, cases: streamCases, seed: 7 + index, lateShare: 0.02, duplicateShare: 0.02 });
  const path = `/api/${t.id}/project/${t.projects.stream}/events`;
  for (let n = 0; !signal.aborted; n++) {
    const started = performance.now();
    const batch: WireEvent[] = [];
    for (let i = 0; i < 150; i++) batch.push(events.next().value as WireEvent);
    traffic.totals.goodEvents += batch.length;
    const ndjson = n % 4 === 3;
    const body = ndjson ? batch.map((e) => JSON.stringify(e)).join('\n') : JSON.stringify(batch);
    await traffic.call(who, 'POST events', 'POST', path, { key: t.key, body, type: ndjson ? 'application/x-ndjson' : 'application/json', kind: 'ingest', expect: [200] });
    await sleep(Math.max(0, 1000 - (performance.now() - started)), signal);
  }
}

/** A request every ~300 ms, in turn: graph GETs (plain, If-None-Match, ?version=) and listings. `offset` staggers the tenant's two readers. */
async function reader({ traffic, signal }: GoodLoad, t: Tenant, offset: number) {
  const who: Who = { name: t.name, good: true };
  const call = traffic.call.bind(traffic);
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
  for (let i = offset * 4; !signal.aborted; i++) {
    await ops[i % ops.length]!();
    await sleep(jitter(300), signal);
  }
}

/** A small upload every ~15 s (read back once), all but the newest three deleted: datasets come and go. */
async function uploader({ traffic, signal }: GoodLoad, t: Tenant, pool: Upload[]) {
  const who: Who = { name: t.name, good: true };
  const files = `/api/${t.id}/project/${t.projects.files}`;
  const kept: string[] = [];
  await sleep(Math.random() * 5000, signal);
  for (let i = 0; !signal.aborted; i++) {
    const u = pool[i % pool.length]!;
    const a = await traffic.call(who, 'POST dataset', 'POST', `${files}/dataset?name=${encodeURIComponent(u.name)}`, { key: t.key, body: u.bytes, type: 'application/octet-stream', kind: 'upload', expect: [201] });
    if (a?.status === 201) {
      kept.push(JSON.parse(a.text).id);
      traffic.totals.uploads++;
      await traffic.call(who, 'GET dataset', 'GET', `${files}/dataset/${kept[kept.length - 1]}`, { key: t.key, kind: 'read', expect: [200] });
    }
    while (kept.length > 3) {
      const id = kept.shift()!;
      const d = await traffic.call(who, 'DELETE dataset', 'DELETE', `${files}/dataset/${id}`, { key: t.key, kind: 'upload', expect: [204] });
      if (d?.status === 204) traffic.totals.deletes++;
    }
    await sleep(jitter(15_000), signal);
  }
}

/** A graph stream held about a minute, then reconnected; a stream that ends by itself is a failure. */
async function subscriber({ traffic, signal }: GoodLoad, t: Tenant, project: 'stream' | 'files', document: boolean) {
  const who: Who = { name: t.name, good: true };
  const path = `/api/${t.id}/project/${t.projects[project]}/graph/stream${document ? '?include=document' : ''}`;
  while (!signal.aborted) {
    const stop = new AbortController();
    const both = AbortSignal.any([stop.signal, signal]);
    const timer = setTimeout(() => stop.abort(), jitter(60_000));
    const outcome = await traffic.subscribe(who, `SSE ${project}${document ? ' +document' : ''}`, path, t.key, both);
    clearTimeout(timer);
    traffic.totals.sseConnects++;
    if (outcome !== 'aborted' && !signal.aborted) {
      traffic.failures.push(`${t.name} SSE ${project}: the stream ended by itself (${outcome})`);
      await sleep(1000, signal);
    }
  }
}
