import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { Rng } from '../../connectors/simulator/random.js';
import { call, makeTenant, openCluster, testApp, type TestApp, type World } from '../api/helpers.js';
import { KafkaBroker, type ProducedMessage } from './broker.js';
import { eventually, expectSameDocument, messagesOf, referenceDocument, simulatedLog } from './helpers.js';

/**
 * `pcg worker` as it runs in production: separate processes on one data
 * directory, consuming a real broker, killed with SIGKILL at random moments,
 * killed while another worker shares the group, and left running through a
 * broker outage. The catalog is made through the API of an app that runs no
 * sources itself (PCG_SOURCES=off), which then reads the partition states
 * the workers wrote: the document must be the one `pcg graph` gives for the
 * log, nothing lost and nothing counted twice.
 *
 * Tests 1 and 2 run concurrently (both mostly wait out the group's session
 * timeout); the outage test runs alone afterwards, since it takes the shared
 * broker down.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every worker process any test started: killed in afterAll, and on exit, whatever happened. */
const children = new Set<ChildProcess>();
process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));

class WorkerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  private readonly output: string[] = [];

  constructor(dataDir: string) {
    this.child = spawn(process.execPath, ['api/bin.mjs', 'worker', '--data-dir', dataDir, '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(this.child);
    const keep = (d: Buffer) => {
      this.output.push(String(d));
      if (this.output.length > 50) this.output.shift();
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((r) => this.child.once('exit', () => r()));
    void this.exited.then(() => children.delete(this.child));
  }

  /** Whether `id` is this worker's status id (source-host.ts: host:pid, then the thread its sources run on: api/cli/thread.ts). */
  owns(id: string): boolean {
    const prefix = `${hostname()}:${this.child.pid}`;
    return id === prefix || id.startsWith(`${prefix}:`);
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.alive) this.child.kill(signal);
    await this.exited;
  }

  tail(): string {
    return `--- worker ${this.child.pid} (exit ${this.child.exitCode ?? this.child.signalCode ?? 'running'})\n${this.output.join('').trimEnd().split('\n').slice(-20).join('\n')}`;
  }
}

/** Sends a log's messages in order, a slice at a time, with one producer (keys placed as broker.produce places them). */
class Feed {
  private producer: Producer | undefined;
  sent = 0;

  constructor(
    private readonly broker: KafkaBroker,
    private readonly topic: string,
    readonly messages: readonly ProducedMessage[],
  ) {}

  get remaining(): number {
    return this.messages.length - this.sent;
  }

  async send(n: number): Promise<void> {
    const slice = this.messages.slice(this.sent, this.sent + Math.max(0, n));
    if (slice.length === 0) return;
    if (!this.producer) {
      const kafka = new Kafka({ clientId: 'pcg-test-feed', brokers: this.broker.brokers, logLevel: logLevel.NOTHING });
      this.producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
      await this.producer.connect();
    }
    for (let i = 0; i < slice.length; i += 1000) {
      await this.producer.send({ topic: this.topic, acks: -1, messages: slice.slice(i, i + 1000).map((m) => ({ key: m.key ?? null, value: m.value })) });
    }
    this.sent += slice.length;
  }

  async close(): Promise<void> {
    const p = this.producer;
    this.producer = undefined;
    await p?.disconnect().catch(() => undefined);
  }
}

interface PartitionRow {
  partition: number;
  storedOffset: number | null;
}
interface Status {
  workers: { workerId: string; state: string; assigned: number[] }[];
  partitions: PartitionRow[];
  eventsApplied: number;
  deadLetters: number;
}

/** Offsets stored in the partition states, summed: how many messages are in (or were skipped as already in) the state. */
const progressOf = (s: Status) => s.partitions.reduce((n, p) => n + (p.storedOffset ?? -1) + 1, 0);
const storedOf = (s: Status, partition: number) => s.partitions.find((p) => p.partition === partition)?.storedOffset ?? -1;

/** One test's world: a data dir with its catalog (tenant, project, one source on the test's own topic), its workers and its feed. */
class Project {
  readonly workers: WorkerProcess[] = [];
  /**
   * Status reads that failed, kept for a failure message: while a worker creates a partition state,
   * a read that opens it at the same moment can fail (500 "table meta already exists": openSqlite in
   * engine/store/database.ts reads user_version outside the write lock, so both connections migrate).
   */
  readonly readErrors: string[] = [];
  private closed = false;
  sourceId = '';

  private constructor(
    readonly broker: KafkaBroker,
    readonly t: TestApp,
    readonly w: World,
    readonly topic: string,
    readonly feed: Feed,
  ) {}

  /** A project subscribed to `topic` (made in beforeAll). */
  static async create(ctx: TestContext, broker: KafkaBroker, topic: string, messages: ProducedMessage[]): Promise<Project> {
    const t = testApp({ kafkaClusters: openCluster(broker.brokers) }, { runSources: false });
    const p = new Project(broker, t, await makeTenant(t.app, topic), topic, new Feed(broker, topic, messages));
    // Even on failure or timeout: no worker outlives its test, no data dir stays behind.
    ctx.onTestFinished(() => p.close());
    const created = await call(t.app, 'POST', `/api/${p.w.tenantId}/project/${p.w.projectId}/source`, p.w.admin, { cluster: 'local', topic, format: 'pcg' });
    expect(created.status, created.text).toBe(201);
    p.sourceId = created.body.id;
    return p;
  }

  get sourceUrl(): string {
    return `/api/${this.w.tenantId}/project/${this.w.projectId}/source/${this.sourceId}`;
  }

  worker(): WorkerProcess {
    if (this.closed) throw new Error('the test is over');
    const w = new WorkerProcess(this.t.dir);
    this.workers.push(w);
    return w;
  }

  async status(): Promise<Status | undefined> {
    const r = await call(this.t.app, 'GET', this.sourceUrl, this.w.reader);
    if (r.status === 200) return r.body.status as Status;
    this.readErrors.push(`${r.status} ${r.text}`);
    return undefined;
  }

  async progress(): Promise<number> {
    return progressOf(await eventually(() => this.status(), 10_000, 'a source status'));
  }

  async ends(): Promise<number[]> {
    return this.broker.endOffsets(this.topic);
  }

  /** Polls until every partition's stored offset is its end offset (the topic must be fully produced). */
  async finished(ms: number): Promise<Status> {
    const ends = await this.ends();
    return this.waitFor(async () => {
      const s = await this.status();
      return s && s.partitions.length === ends.length && s.partitions.every((p) => p.storedOffset === ends[p.partition]! - 1) ? s : undefined;
    }, ms, `every partition stored to its end ${JSON.stringify(ends)}`);
  }

  /** `eventually`, with the workers' output and the last status in the error. */
  async waitFor<T>(check: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
    try {
      return await eventually(check, ms, what);
    } catch (e) {
      const last = await this.status().catch(() => undefined);
      throw new Error(
        `${(e as Error).message}\nlast status: ${JSON.stringify(last)}\nstatus read errors: ${this.readErrors.length} ${this.readErrors.slice(-3).join(' | ')}\n${this.workers.map((w) => w.tail()).join('\n')}`,
      );
    }
  }

  async document(): Promise<Record<string, any>> {
    const r = await call(this.t.app, 'GET', `/api/${this.w.tenantId}/project/${this.w.projectId}/graph`, this.w.reader);
    expect(r.status, r.text).toBe(200);
    return r.body;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.kill('SIGKILL')));
    await this.feed.close();
    await this.t.close();
  }
}

/** Each test's own topic, all of four partitions. */
const TOPICS = ['worker-kill', 'worker-takeover', 'worker-outage'] as const;

describe('pcg worker processes on a real broker', () => {
  let broker: KafkaBroker;

  beforeAll(async () => {
    broker = await KafkaBroker.start();
    // One after the other, before the tests: two concurrent creations on a fresh broker can fail
    // waiting for leaders ("This server does not host this topic-partition").
    for (const topic of TOPICS) await broker.createTopic(topic, 4);
  });
  afterAll(async () => {
    await Promise.all(
      [...children].map((c) => {
        if (c.exitCode !== null || c.signalCode !== null) return undefined;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGKILL');
        return exited;
      }),
    );
    await broker?.stop();
  });

  it.concurrent('SIGKILLed at seeded random moments and restarted, ten times over, it loses and doubles nothing', async (ctx) => {
    const SEED = 20_240_611;
    const ROUNDS = 10;
    const rng = new Rng(SEED);
    const log = simulatedLog(1500, SEED);
    const p = await Project.create(ctx, broker, 'worker-kill', messagesOf(log, SEED, 0.05));
    const rounds: { round: number; phase: string; delay: number; before: number; after: number; produced: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Every other round is killed counting from the spawn (while it boots and joins the group); the
      // others from the moment it is seen storing, while a producer keeps the topic moving, so those
      // kills land mid-ingest: in a transaction, between one and the group commit, or mid-fetch.
      // An ingest round costs the group's session timeout (10 s) before the next worker is assigned;
      // a start-up round killed before it joins costs next to nothing.
      const phase = round % 2 === 1 ? 'start-up' : 'ingest';
      const delay = rng.int(50, 1500);
      await p.feed.send(phase === 'ingest' ? 400 : 600);
      const before = await p.progress();
      const worker = p.worker();
      if (phase === 'ingest') {
        // A predecessor killed inside the group holds it until its session (10 s) times out.
        await p.waitFor(async () => {
          const s = await p.status();
          return s && progressOf(s) > before ? true : undefined;
        }, 45_000, `round ${round}: the worker storing anything`);
      }
      const killAt = Date.now() + delay;
      // The feed sends right up to the kill, so the worker has messages in hand when it dies.
      while (phase === 'ingest' && Date.now() < killAt) {
        await sleep(Math.min(40, Math.max(0, killAt - Date.now())));
        await p.feed.send(30);
      }
      await sleep(Math.max(0, killAt - Date.now()));
      await worker.kill('SIGKILL');
      const produced = (await p.ends()).reduce((a, b) => a + b, 0);
      rounds.push({ round, phase, delay, before, after: await p.progress(), produced });
    }
    await p.feed.send(Infinity);
    const total = (await p.ends()).reduce((a, b) => a + b, 0);
    expect(total).toBe(p.feed.messages.length);
    const last = p.worker();
    const status = await p.finished(60_000);
    expect(last.alive).toBe(true);

    const story = JSON.stringify(rounds);
    expect(rounds.length, story).toBeGreaterThanOrEqual(10);
    // Killed before completion: the round left part of what was in the topic unstored (every start-up round does)...
    expect(rounds.filter((r) => r.after < r.produced).length, story).toBeGreaterThanOrEqual(5);
    // ...and mid-ingest: it had stored some of it when the kill came.
    expect(rounds.filter((r) => r.after > r.before && r.after < r.produced).length, story).toBeGreaterThanOrEqual(3);
    expect(status.eventsApplied).toBe(log.length);
    expect(status.deadLetters).toBe(0);
    expectSameDocument(await p.document(), referenceDocument(log));
  }, 240_000);

  it.concurrent('two workers share a group; one SIGKILLed halfway, the other takes its partitions over', async (ctx) => {
    const SEED = 4242;
    const log = simulatedLog(1500, SEED);
    const p = await Project.create(ctx, broker, 'worker-takeover', messagesOf(log, SEED, 0.05));
    const total = p.feed.messages.length;
    await p.feed.send(Math.floor(total * 0.3));
    const a = p.worker();
    const b = p.worker();
    // The split: both workers report a share of the four partitions, disjoint and together all of them.
    const split = await p.waitFor(async () => {
      const s = await p.status();
      const of = (w: WorkerProcess) => s?.workers.find((r) => w.owns(r.workerId))?.assigned ?? [];
      const [sa, sb] = [of(a), of(b)];
      const disjoint = sa.every((x) => !sb.includes(x));
      return sa.length > 0 && sb.length > 0 && disjoint && sa.length + sb.length === 4 ? { a: sa, b: sb } : undefined;
    }, 45_000, 'both workers holding partitions');

    // Keep the topic moving while they consume; kill A once half the log is stored.
    let feeding = true;
    const feeder = (async () => {
      while (feeding && p.feed.remaining > 0) {
        await p.feed.send(100);
        await sleep(50);
      }
    })();
    try {
      await p.waitFor(async () => {
        const s = await p.status();
        return s && progressOf(s) >= total / 2 ? s : undefined;
      }, 60_000, 'half the log stored');
      await a.kill('SIGKILL');
      const killedAt = Date.now();
      // Read once A is dead: whatever its partitions store from here on, another worker stored.
      const atKill = await eventually(() => p.status(), 10_000, 'a source status');
      // Takeover: a partition A held moves on again (the feeder keeps adding to every partition).
      await p.waitFor(async () => {
        const s = await p.status();
        return s && split.a.some((q) => storedOf(s, q) > storedOf(atKill, q)) ? true : undefined;
      }, 60_000, `the partitions ${split.a} of the killed worker moving on`);
      const takeoverMs = Date.now() - killedAt;
      // The group's session timeout is 10 s (runner.ts); B learns of the rebalance at its next heartbeat: ~10.5 s observed.
      expect(takeoverMs, `A held ${split.a}, B held ${split.b}; ${progressOf(atKill)}/${total} stored at the kill`).toBeLessThan(30_000);
    } finally {
      feeding = false;
      await feeder;
    }
    await p.feed.send(Infinity);
    const status = await p.finished(60_000);
    expect(b.alive).toBe(true);
    // B reports its new assignment at its next status flush (every second).
    await p.waitFor(async () => {
      const s = await p.status();
      return s?.workers.find((r) => b.owns(r.workerId))?.assigned.join() === '0,1,2,3' ? true : undefined;
    }, 10_000, 'the surviving worker reporting all four partitions');
    expect(status.eventsApplied).toBe(log.length);
    expectSameDocument(await p.document(), referenceDocument(log));
  }, 180_000);

  it('a broker outage of 30 s: the worker rides it out and resumes by itself', async (ctx) => {
    const SEED = 31;
    const log = simulatedLog(1500, SEED);
    const p = await Project.create(ctx, broker, 'worker-outage', messagesOf(log, SEED, 0.05));
    const half = Math.floor(p.feed.messages.length / 2);
    await p.feed.send(Math.floor(half / 3));
    const worker = p.worker();
    await p.waitFor(async () => {
      const s = await p.status();
      return s && progressOf(s) > 0 ? true : undefined;
    }, 45_000, 'the worker storing anything');
    // The rest of the first half goes in slices while the worker consumes; the broker dies right after the last one.
    while (p.feed.sent < half) {
      await p.feed.send(Math.min(100, half - p.feed.sent));
      await sleep(30);
    }
    await p.feed.close();
    await broker.kill();
    const atKill = await p.progress();
    await sleep(30_000);
    expect(worker.alive, worker.tail()).toBe(true);
    await broker.restart();
    await p.feed.send(Infinity);
    const status = await p.finished(120_000);
    expect(worker.alive, worker.tail()).toBe(true);
    expect(atKill).toBeGreaterThan(0);
    expect(status.eventsApplied).toBe(log.length);
    expectSameDocument(await p.document(), referenceDocument(log));
  }, 240_000);
});
