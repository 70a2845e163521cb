/**
 * The changelog per source (issue 35, first slice), on a real broker started for the run:
 *
 * - throughput: events/s from a pre-filled 4-partition topic of N simulated events into one project through one
 *   `pcg worker`, with the source's changelog off and on, interleaved `--runs` times in the same run; the ratio
 *   on/off per run and of the medians. Each rate is from the worker's start to every offset in the state.
 * - restore: after each run with the changelog on, the worker is stopped (SIGTERM: every record written), the
 *   partition states are deleted, and a fresh worker is timed from its start until the states hold every offset
 *   again (all from the changelog: no new message is in the source topic). Per million events it is extrapolated
 *   linearly from N (a worker's start and group joins are a fixed part of it, counted in).
 * - bytes: the changelog topic's and the source topic's segment files on the broker's disk, per event (the
 *   changelog gzip-compressed as pcg writes it; the source topic as the filler wrote it, uncompressed JSON), and
 *   the changelog records' JSON before compression, per event.
 *
 *   node --import tsx test/bench/changelog.ts [--events 300000] [--runs 2]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { createApp } from '../../api/app.js';
import { readConfig } from '../../api/config.js';
import { KafkaBroker } from '../kafka/broker.js';
import { PCG } from './child.js';
import { applied, fill } from './kafka-topics.js';

const { values } = parseArgs({ options: { events: { type: 'string', default: '300000' }, runs: { type: 'string', default: '2' } } });
const N = Number(values.events);
const RUNS = Number(values.runs);
const GLOBAL = 'bench-global-key-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, d = 2) => +x.toFixed(d);


/** A data directory with a tenant, a project and a source on the topic (changelog on or off), made through the API. */
async function dataDirWithSource(broker: KafkaBroker, topic: string, changelog: boolean): Promise<{ dir: string; projectId: string; groupId: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-bench-changelog-'));
  const clusters = JSON.stringify([{ name: 'bench', brokers: broker.brokers, tenants: '*' }]);
  const { app } = createApp({ config: readConfig({}, { dataDir: dir, globalApiKey: GLOBAL, logLevel: 'silent', rateLimitBurst: 0, kafkaClusters: clusters }) });
  const api = async (url: string, key: string, body: unknown) => {
    const r = await app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}` }, payload: body as object });
    if (r.statusCode >= 300) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
    return JSON.parse(r.body);
  };
  const tenant = await api('/api/tenant', GLOBAL, { name: 'bench' });
  const user = await api('/api/user', GLOBAL, { email: 'bench@example.com' });
  await api(`/api/tenant/${tenant.id}/user`, GLOBAL, { userId: user.id, permissions: ['read', 'write'] });
  const { key } = await api(`/api/tenant/${tenant.id}/apikey`, GLOBAL, { userId: user.id, name: 'bench' });
  const project = await api(`/api/${tenant.id}/project`, key, { name: 'bench' });
  const source = await api(`/api/${tenant.id}/project/${project.id}/source`, key, { cluster: 'bench', topic, changelog });
  await app.close();
  return { dir, projectId: project.id, groupId: source.groupId };
}


/** CPU seconds of a process (all its threads), from /proc, read before it stops. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A `pcg worker` on `dir`, timed from its spawn until the states hold `total` offsets; stopped with SIGTERM (it drains). */
async function timedWorker(dir: string, projectId: string, total: number): Promise<{ seconds: number; steady: number; cpuS: number }> {
  const start = performance.now();
  const child: ChildProcess = spawn(process.execPath, [PCG, 'worker', '--data-dir', dir, '--quiet'], { stdio: ['ignore', 'ignore', 'inherit'] });
  // Steady: from the first chunk in the state to the last (the process start, group joins and, for a restore, the
  // reading of the changelog's last records left out).
  let first: { at: number; seen: number } | undefined;
  for (let n = applied(dir, projectId); n < total; n = applied(dir, projectId)) {
    if (n > 0) first ??= { at: performance.now(), seen: n };
    await sleep(first ? 50 : 10);
  }
  const end = performance.now();
  const cpuS = cpuSeconds(child.pid!);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { seconds: (end - start) / 1000, steady: first ? (total - first.seen) / ((end - first.at) / 1000) : 0, cpuS };
}

/** Bytes of a topic's segment files on the broker's disk. */
function topicBytes(broker: KafkaBroker, topic: string): number {
  const data = join(broker.dir, 'data');
  let n = 0;
  for (const d of readdirSync(data).filter((d) => d.startsWith(`${topic}-`) && /^\d+$/.test(d.slice(topic.length + 1)))) {
    for (const f of readdirSync(join(data, d)).filter((f) => f.endsWith('.log'))) n += statSync(join(data, d, f)).size;
  }
  return n;
}

/** The changelog records' values as JSON (before compression), summed, and how many records. */
async function changelogJsonBytes(broker: KafkaBroker, topic: string): Promise<{ bytes: number; records: number }> {
  const kafka = new Kafka({ clientId: 'bench-read', brokers: broker.brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `bench-read-${Date.now()}`, maxBytes: 10 << 20, maxBytesPerPartition: 10 << 20 });
  const want = (await broker.endOffsets(topic)).reduce((a, b) => a + b, 0);
  let bytes = 0;
  let records = 0;
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) bytes += m.value?.length ?? 0;
        records += batch.messages.length;
        if (records >= want) resolve();
      },
    });
  });
  await consumer.disconnect();
  return { bytes, records };
}

async function main(): Promise<void> {
  const broker = await KafkaBroker.start();
  try {
    const topic = 'bench-changelog';
    const total = await fill(broker, topic, N);
    const sourceBytes = topicBytes(broker, topic);
    const runs: Record<string, unknown>[] = [];
    const off: number[] = [];
    const on: number[] = [];
    const restores: number[] = [];
    const offSteady: number[] = [];
    const onSteady: number[] = [];
    const restoreSteady: number[] = [];
    let bytes: Record<string, number> = {};
    for (let run = 0; run < RUNS; run++) {
      const a = await dataDirWithSource(broker, topic, false);
      const offRun = await timedWorker(a.dir, a.projectId, total);
      rmSync(a.dir, { recursive: true, force: true });
      const b = await dataDirWithSource(broker, topic, true);
      const onRun = await timedWorker(b.dir, b.projectId, total);
      const changelogTopic = `${b.groupId}.pcg-changelog`;
      rmSync(join(b.dir, 'projects', b.projectId, 'parts'), { recursive: true, force: true });
      const restore = await timedWorker(b.dir, b.projectId, total);
      rmSync(b.dir, { recursive: true, force: true });
      off.push(total / offRun.seconds);
      on.push(total / onRun.seconds);
      offSteady.push(offRun.steady);
      onSteady.push(onRun.steady);
      restores.push(restore.seconds);
      restoreSteady.push(restore.steady);
      if (run === 0) {
        const json = await changelogJsonBytes(broker, changelogTopic);
        bytes = {
          sourceDiskPerEvent: round(sourceBytes / total, 1),
          changelogDiskPerEvent: round(topicBytes(broker, changelogTopic) / total, 1),
          changelogJsonPerEvent: round(json.bytes / total, 1),
          changelogRecords: json.records,
        };
      }
      runs.push({
        run,
        offEventsPerS: Math.round(total / offRun.seconds),
        onEventsPerS: Math.round(total / onRun.seconds),
        ratio: round(offRun.seconds / onRun.seconds),
        steady: { off: Math.round(offRun.steady), on: Math.round(onRun.steady), ratio: round(onRun.steady / offRun.steady), restore: Math.round(restore.steady) },
        cpuSPerMillion: { off: round((offRun.cpuS * 1e6) / total, 1), on: round((onRun.cpuS * 1e6) / total, 1) },
        restoreS: round(restore.seconds),
      });
    }
    const result = {
      events: total,
      runs,
      median: {
        offEventsPerS: Math.round(median(off)),
        onEventsPerS: Math.round(median(on)),
        ratio: round(median(on) / median(off)),
        restoreS: round(median(restores)),
        restoreSPerMillionExtrapolated: round((median(restores) * 1e6) / total, 1),
        steady: { offEventsPerS: Math.round(median(offSteady)), onEventsPerS: Math.round(median(onSteady)), ratio: round(median(onSteady) / median(offSteady)), restoreEventsPerS: Math.round(median(restoreSteady)) },
        // A restore is a fixed start (process, group joins, reading the changelog's last records) plus the events at the steady rate.
        restoreSPerMillionSteady: round(1e6 / median(restoreSteady), 1),
        loadAverage: loadavg().map((x) => round(x, 1)),
      },
      bytes,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await broker.stop();
  }
}

await main();
