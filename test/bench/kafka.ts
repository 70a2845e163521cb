/**
 * Kafka source benchmark (issue 13), on a real broker started for the run:
 *
 * - throughput: events/s from a pre-filled 4-partition topic of N simulated
 *   events into a project by one `pcg worker`, and by two in one group, against
 *   a bare kafkajs consumer that only JSON.parses and counts the same topic
 *   (eachBatch, 10 MB fetches) in the same run; peak RSS of each worker.
 * - delay: produce → a data_version that contains the event, at a steady rate
 *   into `pcg serve` (sources on its thread), seen on the graph stream (SSE).
 * - responsive: ping latency of `pcg serve` idle, then while its source thread
 *   drains a backlog of N events.
 *
 *   node --import tsx test/bench/kafka.ts [--events 1000000] [--phase all|throughput|delay|responsive]
 *       [--rate 5000] [--seconds 30] [--runs 3] [--two yes|no] [--pin no|yes]
 *
 * With `--pin yes` each worker is held to one core (worker i to core i), to
 * see what a second worker adds on a core of its own.
 *
 * Each worker's CPU is reported too (`cpuS`: its two busiest threads, the
 * rest of its threads, the total), so a rate can be read against the cores
 * it took.
 *
 * Throughput reads the topic once with the bare consumer first, a warm-up
 * not counted, then runs the three readers `--runs` times, interleaved, and reports
 * each run and the medians: the bare consumer alone varies by 15-20 % from one
 * reading of the topic to the next here (the broker and the bench share two
 * cores), so one pair of readings says little about their ratio. Each rate
 * is given from the reader's start (a worker's process start, the bare
 * consumer's group join) and steady, from its first batch handled to its
 * last: the bare consumer's start leaves out its process and connection.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { createApp } from '../../api/app.js';
import { readConfig } from '../../api/config.js';
import { KafkaBroker } from '../kafka/broker.js';
import { PCG } from './child.js';
import { applied, fill, streamMessages } from './kafka-topics.js';
import { startServer } from './server.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    phase: { type: 'string', default: 'all' },
    rate: { type: 'string', default: '5000' },
    seconds: { type: 'string', default: '30' },
    runs: { type: 'string', default: '3' },
    // Throughput with one worker only (`--two no`), to compare changes to one worker in less time.
    two: { type: 'string', default: 'yes' },
    // `--pin yes`: worker i runs on core i only (taskset), so one worker has one core and a second worker the second one.
    pin: { type: 'string', default: 'no' },
  },
});
const N = Number(values.events);
const phase = values.phase!;
const GLOBAL = 'bench-global-key-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};



/** A reader's rate: from its start (group join included), and steady (from its first batch handled to its last: no start-up). */
interface Rate {
  rate: number;
  steady: number;
}

/** The bare consumer: eachBatch, 10 MB fetches, JSON.parse and count. */
async function bare(broker: KafkaBroker, topic: string, total: number): Promise<Rate> {
  const kafka = new Kafka({ clientId: 'bench-bare', brokers: broker.brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `bare-${Date.now()}`, maxBytes: 10 << 20, maxBytesPerPartition: 10 << 20, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let seen = 0;
  let parsed = 0;
  let first: { at: number; seen: number } | undefined;
  const start = performance.now();
  const done = new Promise<void>((resolve) => {
    void consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) if (m.value && JSON.parse(m.value.toString()).caseId) parsed++;
        seen += batch.messages.length;
        first ??= { at: performance.now(), seen };
        if (seen >= total) resolve();
      },
    });
  });
  await done;
  const end = performance.now();
  await consumer.disconnect();
  if (parsed !== total) throw new Error(`bare consumer parsed ${parsed} of ${total}`);
  return { rate: total / ((end - start) / 1000), steady: (total - first!.seen) / ((end - first!.at) / 1000) };
}

/** PCG_KAFKA_CLUSTERS: the run's broker, granted to every tenant. */
const clustersOf = (broker: KafkaBroker) => JSON.stringify([{ name: 'bench', brokers: broker.brokers, tenants: '*' }]);

/** A data directory with a tenant, a project and a source on the topic, made through the API (no server left running). */
async function dataDirWithSource(broker: KafkaBroker, topic: string): Promise<{ dir: string; projectId: string; sourceId: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-bench-kafka-'));
  const { app } = createApp({ config: readConfig({}, { dataDir: dir, globalApiKey: GLOBAL, logLevel: 'silent', rateLimitBurst: 0, kafkaClusters: clustersOf(broker) }) });
  const api = async (method: 'POST', url: string, key: string, body: unknown) => {
    const r = await app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, payload: body as object });
    if (r.statusCode >= 300) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
    return JSON.parse(r.body);
  };
  const tenant = await api('POST', '/api/tenant', GLOBAL, { name: 'bench' });
  const user = await api('POST', '/api/user', GLOBAL, { email: 'bench@example.com' });
  await api('POST', `/api/tenant/${tenant.id}/user`, GLOBAL, { userId: user.id, permissions: ['read', 'write'] });
  const { key } = await api('POST', `/api/tenant/${tenant.id}/apikey`, GLOBAL, { userId: user.id, name: 'bench' });
  const project = await api('POST', `/api/${tenant.id}/project`, key, { name: 'bench' });
  const source = await api('POST', `/api/${tenant.id}/project/${project.id}/source`, key, { cluster: 'bench', topic });
  await app.close();
  return { dir, projectId: project.id, sourceId: source.id };
}

/** The stored offset of each partition of a project's partition files. */
const readers = new Map<string, Database.Database>();
function positions(dir: string, projectId: string): Map<number, number> {
  const parts = join(dir, 'projects', projectId, 'parts');
  const out = new Map<number, number>();
  if (!existsSync(parts)) return out;
  for (const f of readdirSync(parts).filter((f) => f.endsWith('.sqlite'))) {
    try {
      let db = readers.get(f);
      if (!db) readers.set(f, (db = new Database(join(parts, f), { readonly: true, fileMustExist: true })));
      for (const r of db.prepare('SELECT partition, offset FROM position').all() as { partition: number; offset: number }[]) out.set(r.partition, r.offset);
    } catch {
      // A file being created: read on the next event.
    }
  }
  return out;
}


/**
 * CPU seconds a worker process used, read from /proc before it stops: its two busiest threads (the thread that
 * writes and the consumer thread) and all the others together (V8's platform threads, which run the parallel
 * and concurrent parts of garbage collection and compile code; the main thread; libuv's pool).
 */
function workerCpu(pid: number): { threads: number[]; others: number; total: number } {
  // /proc counts in clock ticks, 100 a second on Linux (getconf CLK_TCK).
  const tick = 100;
  const seconds = readdirSync(`/proc/${pid}/task`)
    .map((tid) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(f[11]) + Number(f[12])) / tick;
    })
    .sort((a, b) => b - a);
  const round = (x: number) => +x.toFixed(2);
  const total = seconds.reduce((a, b) => a + b, 0);
  return { threads: seconds.slice(0, 2).map(round), others: round(total - seconds[0]! - (seconds[1] ?? 0)), total: round(total) };
}

type WorkerCpu = ReturnType<typeof workerCpu>;

async function workers(broker: KafkaBroker, topic: string, total: number, count: number): Promise<Rate & { peakRssMiB: number[]; cpu: WorkerCpu[] }> {
  const { dir, projectId } = await dataDirWithSource(broker, topic);
  const children: ChildProcess[] = [];
  const peaks: number[] = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    // The real `pcg worker` (its sources on a thread with the ingest heap, as users run it); PCG_BENCH_PROF=DIR profiles it.
    // PCG_BENCH_NODE_FLAGS adds node flags to each worker (V8's, say), to measure them without changing the product;
    // PCG_BENCH_WORKER_OUT lets the workers' standard output through (what --trace-gc prints).
    const prof = process.env.PCG_BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PCG_BENCH_PROF}`] : [];
    const flags = (process.env.PCG_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    const command = [process.execPath, ...flags, ...prof, PCG, 'worker', '--data-dir', dir, '--quiet'];
    // taskset execs the command: the child's pid is the worker's.
    const pinned = values.pin === 'yes' ? ['taskset', '-c', String(i % availableParallelism())] : [];
    const [file, ...args] = [...pinned, ...command];
    children.push(spawn(file!, args, { stdio: ['ignore', process.env.PCG_BENCH_WORKER_OUT ? 'inherit' : 'ignore', 'inherit'] }));
  }
  // The first chunk in the state starts the steady measure, as the first batch handled does the bare consumer's.
  let first: { at: number; seen: number } | undefined;
  for (let n = applied(dir, projectId); n < total; n = applied(dir, projectId)) {
    if (n > 0) first ??= { at: performance.now(), seen: n };
    await sleep(first ? 50 : 10);
  }
  const end = performance.now();
  // Peak RSS of the whole process (every thread), read before it stops.
  for (const c of children) peaks.push(Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${c.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024));
  const cpu = children.map((c) => workerCpu(c.pid!));
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => c.once('exit', r))));
  rmSync(dir, { recursive: true, force: true });
  return { rate: total / ((end - start) / 1000), steady: first ? (total - first.seen) / ((end - first.at) / 1000) : 0, peakRssMiB: peaks, cpu };
}

async function delay(broker: KafkaBroker, rate: number, seconds: number): Promise<{ p50: number; p99: number; max: number; samples: number }> {
  const topic = 'bench-delay';
  await broker.createTopic(topic, 4);
  const server = await startServer({ PCG_KAFKA_CLUSTERS: clustersOf(broker) });
  const { key, path } = await server.project('delay');
  const source = await server.api('POST', `${path}/source`, key, { cluster: 'bench', topic });
  // Measured from a running consumer: joining the group takes seconds once, and is not the steady delay.
  for (;;) {
    const s = (await server.api('GET', `${path}/source/${source.id}`, key)).status;
    if (s.state === 'running' && s.workers.some((w: { assigned: number[] }) => w.assigned.length === 4)) break;
    await sleep(100);
  }
  // The last message of each partition in each send: [partition, offset, send time]; resolved when the graph stream shows its offset stored.
  const pending: [number, number, number][] = [];
  const delays: number[] = [];
  const stream = await fetch(`${server.base}${path}/graph/stream`, { headers: { authorization: `Bearer ${key}` } });
  const reader = stream.body!.getReader();
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const { done } = await reader.read();
      if (done) break;
      // Read straight from the partition files at the stream event's arrival: an API call here would delay the next arrivals.
      const at = performance.now();
      const storedOf = positions(server.dir, path.split('/').pop()!);
      for (let i = pending.length - 1; i >= 0; i--) {
        const [partition, offset, t] = pending[i]!;
        if (offset <= (storedOf.get(partition) ?? -1)) {
          delays.push(at - t);
          pending.splice(i, 1);
        }
      }
    }
  })();
  const kafka = new Kafka({ clientId: 'bench-delay', brokers: broker.brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  // The Java-compatible partitioner, called here so each message's partition (and so its offset) is known.
  const partitionOf = Partitioners.DefaultPartitioner();
  const partitionMetadata = [0, 1, 2, 3].map((partitionId) => ({ partitionId, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0, offlineReplicas: [] }));
  await producer.connect();
  const it = streamMessages(rate * seconds, 7);
  const tick = 20;
  const perTick = Math.max(1, Math.round((rate * tick) / 1000));
  const end = performance.now() + seconds * 1000;
  let next = performance.now();
  while (performance.now() < end) {
    const batch: { key: string; value: string; partition: number }[] = [];
    for (let i = 0; i < perTick; i++) {
      const m = it.next();
      if (!m.done) batch.push({ ...m.value, partition: partitionOf({ topic, partitionMetadata, message: m.value }) });
    }
    const t = performance.now();
    const meta = await producer.send({ topic, acks: 1, messages: batch });
    const counts = new Map<number, number>();
    for (const m of batch) counts.set(m.partition, (counts.get(m.partition) ?? 0) + 1);
    for (const r of meta) pending.push([r.partition, Number(r.baseOffset) + (counts.get(r.partition) ?? 1) - 1, t]);
    next += tick;
    await sleep(Math.max(0, next - performance.now()));
  }
  await producer.disconnect();
  await sleep(3000);
  watching = false;
  await reader.cancel();
  await watch.catch(() => undefined);
  for (const db of readers.values()) db.close();
  readers.clear();
  await server.stop();
  const round = (x: number) => Math.round(x * 10) / 10;
  return { p50: round(pct(delays, 0.5)), p99: round(pct(delays, 0.99)), max: round(Math.max(...delays)), samples: delays.length };
}

async function responsive(broker: KafkaBroker, topic: string, total: number): Promise<{ idle: { p50: number; p99: number }; busy: { p50: number; p99: number }; drainSeconds: number }> {
  const server = await startServer({ PCG_KAFKA_CLUSTERS: clustersOf(broker) });
  const ping = async (ms: number, until?: () => boolean) => {
    const lat: number[] = [];
    const end = performance.now() + ms;
    while (until ? !until() : performance.now() < end) {
      const t = performance.now();
      await fetch(`${server.base}/api/Action/ping`).then((r) => r.text());
      lat.push(performance.now() - t);
      await sleep(20);
    }
    return { p50: pct(lat, 0.5), p99: pct(lat, 0.99) };
  };
  const idle = await ping(5000);
  const { key, path } = await server.project('backlog');
  const source = await server.api('POST', `${path}/source`, key, { cluster: 'bench', topic });
  let drained = false;
  const start = performance.now();
  const poll = (async () => {
    while (!drained) {
      const s = await server.api('GET', `${path}/source/${source.id}`, key);
      const sum = (s.status.partitions as { storedOffset: number | null }[]).reduce((n, p) => n + (p.storedOffset ?? -1) + 1, 0);
      if (sum >= total) drained = true;
      else await sleep(500);
    }
  })();
  const busy = await ping(0, () => drained);
  await poll;
  const drainSeconds = (performance.now() - start) / 1000;
  await server.stop();
  return { idle, busy, drainSeconds };
}

const broker = await KafkaBroker.start({ properties: { 'log.retention.bytes': -1 } });
try {
  const out: Record<string, unknown> = { events: N, pinned: values.pin === 'yes' };
  if (phase === 'all' || phase === 'throughput' || phase === 'responsive') {
    const t = performance.now();
    const total = await fill(broker, 'bench', N);
    out.fill = { messages: total, seconds: +((performance.now() - t) / 1000).toFixed(1) };
    if (phase !== 'responsive') {
      const runs: { bare: Rate; one: Rate; two: Rate; ratioOne: number; steadyRatioOne: number; peakRssMiB: { one: number[]; two: number[] }; cpuS: { one: WorkerCpu[]; two: WorkerCpu[] } }[] = [];
      const rounded = (r: Rate): Rate => ({ rate: Math.round(r.rate), steady: Math.round(r.steady) });
      // One bare read first, not counted: the first read of a freshly filled topic, by a process whose kafkajs decoder
      // is not yet compiled, ran at 300-370k/s against 400-446k/s for the later ones, and flattered that round's ratio.
      const warmUp = await bare(broker, 'bench', total);
      out.warmUp = { rate: Math.round(warmUp.rate), steady: Math.round(warmUp.steady) };
      for (let r = 0; r < Number(values.runs); r++) {
        const b = await bare(broker, 'bench', total);
        const one = await workers(broker, 'bench', total, 1);
        const two = values.two === 'no' ? { rate: 0, steady: 0, peakRssMiB: [], cpu: [] } : await workers(broker, 'bench', total, 2);
        runs.push({
          bare: rounded(b),
          one: rounded(one),
          two: rounded(two),
          ratioOne: +(one.rate / b.rate).toFixed(3),
          steadyRatioOne: +(one.steady / b.steady).toFixed(3),
          peakRssMiB: { one: one.peakRssMiB, two: two.peakRssMiB },
          cpuS: { one: one.cpu, two: two.cpu },
        });
      }
      const median = (pick: (r: (typeof runs)[number]) => number) => pct(runs.map(pick), 0.5);
      const bareRate = median((r) => r.bare.rate);
      const oneRate = median((r) => r.one.rate);
      const twoRate = median((r) => r.two.rate);
      const steady = { bareConsumer: median((r) => r.bare.steady), oneWorker: median((r) => r.one.steady), twoWorkers: median((r) => r.two.steady) };
      out.throughput = {
        runs,
        bareConsumer: bareRate,
        oneWorker: oneRate,
        twoWorkers: twoRate,
        ratioOne: +(oneRate / bareRate).toFixed(3),
        ratioTwo: +(twoRate / bareRate).toFixed(3),
        secondWorkerGain: +(twoRate / oneRate).toFixed(2),
        steady: { ...steady, ratioOne: +(steady.oneWorker / steady.bareConsumer).toFixed(3), ratioTwo: +(steady.twoWorkers / steady.bareConsumer).toFixed(3) },
        peakRssMiB: { one: Math.max(...runs.flatMap((r) => r.peakRssMiB.one)), two: Math.max(0, ...runs.flatMap((r) => r.peakRssMiB.two)) },
      };
    }
    if (phase === 'all' || phase === 'responsive') out.responsive = await responsive(broker, 'bench', total);
  }
  if (phase === 'all' || phase === 'delay') out.delay = await delay(broker, Number(values.rate), Number(values.seconds));
  console.log(JSON.stringify(out, null, 2));
} finally {
  await broker.stop();
}
