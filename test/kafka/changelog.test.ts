import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type PcgApp } from '../../api/app.js';
import { readConfig } from '../../api/config.js';
import { call, GLOBAL, makeTenant, openCluster, type World } from '../api/helpers.js';
import { KafkaBroker } from './broker.js';
import { eventually, expectSameDocument, messagesOf, referenceDocument, simulatedLog } from './helpers.js';

/**
 * A changelog per source (docs/kafka.md): `pcg worker` processes on a real
 * broker, a source with `changelog: true`. The partition states are deleted
 * between runs, as a new host or a lost disk would have none: the next worker
 * restores them from the changelog (the records it read are asserted, not a
 * time), then reads the source topic on from where the changelog ends; the
 * document must be the one `pcg graph` builds from the same events. A worker
 * killed between a chunk's SQLite commit and its changelog write (an injected
 * fault, PCG_TEST_FAULT) leaves a tail the next one writes to the changelog
 * again, and a restore from that changelog ends equal too.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const children = new Set<ChildProcess>();
process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));

class Worker {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  private output = '';

  constructor(dataDir: string, env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, ['api/bin.mjs', 'worker', '--data-dir', dataDir, '--quiet'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(this.child);
    const keep = (d: Buffer) => (this.output = (this.output + String(d)).slice(-4000));
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((r) => this.child.once('exit', () => r()));
    void this.exited.then(() => children.delete(this.child));
  }

  /** SIGTERM: the worker drains (every chunk sent applied and logged) and leaves its groups. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }

  tail(): string {
    return `--- worker ${this.child.pid} (exit ${this.child.exitCode ?? this.child.signalCode ?? 'running'})\n${this.output}`;
  }
}

interface Status {
  partitions: { partition: number; storedOffset: number | null }[];
  eventsApplied: number;
  deadLetters: number;
  lastError: { message: string } | null;
  changelog: { writtenRecords: number; restoredRecords: number; restoredEvents: number; republishedRecords: number } | null;
}

/** The API over one data directory (no sources of its own); closed before its partition states are deleted, so it holds none open. */
function apiOn(dir: string, brokers: readonly string[]): PcgApp {
  const config = readConfig({}, { dataDir: dir, globalApiKey: GLOBAL, logLevel: 'silent', rateLimitBurst: 0, kafkaClusters: openCluster(brokers) });
  return createApp({ config, runSources: false });
}

/** One test's world: a data directory with its catalog (a tenant, a project, a source with its changelog on) and a topic. */
class Setup {
  api: PcgApp;
  w!: World;
  sourceId = '';
  changelogTopic = '';
  readonly workers: Worker[] = [];

  constructor(
    readonly broker: KafkaBroker,
    readonly dir: string,
    readonly topic: string,
  ) {
    this.api = apiOn(dir, broker.brokers);
  }

  async declare(): Promise<void> {
    this.w = await makeTenant(this.api.app, this.topic);
    const r = await call(this.api.app, 'POST', `/api/${this.w.tenantId}/project/${this.w.projectId}/source`, this.w.admin, { cluster: 'local', topic: this.topic, format: 'pcg', changelog: true });
    expect(r.status, r.text).toBe(201);
    expect(r.body.changelog).toBe(true);
    this.sourceId = r.body.id;
    this.changelogTopic = `${r.body.groupId}.pcg-changelog`;
  }

  worker(env: Record<string, string> = {}): Worker {
    const w = new Worker(this.dir, env);
    this.workers.push(w);
    return w;
  }

  async status(): Promise<Status | undefined> {
    const r = await call(this.api.app, 'GET', `/api/${this.w.tenantId}/project/${this.w.projectId}/source/${this.sourceId}`, this.w.reader);
    return r.status === 200 ? (r.body.status as Status) : undefined;
  }

  /** Polls until every partition's stored offset is its topic's end. */
  async finished(what: string, ms = 90_000): Promise<Status> {
    const ends = await this.broker.endOffsets(this.topic);
    try {
      return await eventually(async () => {
        const s = await this.status();
        return s && s.partitions.length === ends.length && s.partitions.every((p) => p.storedOffset === ends[p.partition]! - 1) ? s : undefined;
      }, ms, `${what}: every partition stored to its end ${JSON.stringify(ends)}`);
    } catch (e) {
      throw new Error(`${(e as Error).message}\nlast status: ${JSON.stringify(await this.status())}\n${this.workers.map((w) => w.tail()).join('\n')}`);
    }
  }

  /** Polls the status until `ok` holds (a worker reports its counts about once a second). */
  async statusWhere(ok: (s: Status) => boolean, what: string): Promise<Status> {
    try {
      return await eventually(async () => {
        const st = await this.status();
        return st && ok(st) ? st : undefined;
      }, 30_000, what);
    } catch (e) {
      throw new Error(`${(e as Error).message}
last status: ${JSON.stringify(await this.status())}
${this.workers.map((w) => w.tail()).join('\n')}`);
    }
  }

  /** The host loses its disk: the API is closed (it held the files open), the partition states deleted, the API opened again. */
  async losePartitionStates(): Promise<void> {
    await this.api.app.close();
    const parts = join(this.dir, 'projects', this.w.projectId, 'parts');
    expect(existsSync(parts), parts).toBe(true);
    rmSync(parts, { recursive: true, force: true });
    this.api = apiOn(this.dir, this.broker.brokers);
  }

  async document(): Promise<Record<string, any>> {
    const r = await call(this.api.app, 'GET', `/api/${this.w.tenantId}/project/${this.w.projectId}/graph`, this.w.reader);
    expect(r.status, r.text).toBe(200);
    return r.body;
  }

  async changelogRecords(): Promise<number> {
    return (await this.broker.endOffsets(this.changelogTopic)).reduce((a, b) => a + b, 0);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map(async (w) => (w.child.kill('SIGKILL'), w.exited)));
    await this.api.app.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('a changelog per source, on a real broker', () => {
  let broker: KafkaBroker;
  const TOPICS = ['changelog-restore', 'changelog-fault'];

  beforeAll(async () => {
    broker = await KafkaBroker.start();
    for (const topic of TOPICS) await broker.createTopic(topic, 4);
  });
  afterAll(async () => {
    await Promise.all([...children].map(async (c) => (c.kill('SIGKILL'), new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(undefined) : c.once('exit', r))))));
    await broker?.stop();
  });

  it('a worker without the partition states restores them from the changelog, then the document is pcg graph\'s', async (ctx) => {
    const SEED = 20_261_207;
    const log = simulatedLog(1500, SEED);
    const s = new Setup(broker, mkdtempSync(join(tmpdir(), 'pcg-changelog-')), TOPICS[0]!);
    ctx.onTestFinished(() => s.close());
    await s.declare();
    // In random order with 5 % sent twice; the first half now, the rest once the states are restored.
    const messages = messagesOf(log, SEED, 0.05);
    const half = Math.floor(messages.length / 2);
    await broker.produce(s.topic, messages.slice(0, half));

    const first = s.worker();
    await s.finished('the first worker');
    await first.stop();
    // A record per chunk applied, at least one per partition.
    const records = await s.changelogRecords();
    expect(records).toBeGreaterThanOrEqual(4);

    await s.losePartitionStates();
    expect((await s.status())?.partitions.every((p) => p.storedOffset === null)).toBe(true);
    await broker.produce(s.topic, messages.slice(half));
    s.worker();
    await s.finished('the worker restoring');
    const restored = await s.statusWhere((st) => st.changelog?.restoredRecords === records, `the restore reading all ${records} changelog records`);
    // Every record of the changelog was read and applied; the events the first half kept came back from it, the
    // rest from the source topic, which the worker read on from where the changelog ended.
    expect(restored.changelog?.restoredRecords).toBe(records);
    const firstHalf = new Set(messages.slice(0, half).map((m) => m.value)).size;
    expect(restored.changelog?.restoredEvents).toBe(firstHalf);
    expect(restored.changelog?.republishedRecords).toBe(0);
    expect(restored.eventsApplied).toBe(log.length);
    expect(restored.deadLetters).toBe(0);
    expectSameDocument(await s.document(), referenceDocument(log));
  }, 240_000);

  it('killed between the SQLite commit and the changelog write: the tail is republished, and a restore ends equal', async (ctx) => {
    const SEED = 77;
    const log = simulatedLog(1500, SEED);
    const s = new Setup(broker, mkdtempSync(join(tmpdir(), 'pcg-changelog-')), TOPICS[1]!);
    ctx.onTestFinished(() => s.close());
    await s.declare();
    const messages = messagesOf(log, SEED, 0.05);
    await broker.produce(s.topic, messages);

    // The third changelog write never happens: the process dies with its chunk in the state only.
    const killed = s.worker({ PCG_TEST_FAULT: 'changelog-write:3' });
    await killed.exited;
    expect(killed.child.signalCode, killed.tail()).toBe('SIGKILL');
    // Writes to other partitions may have been under way, not yet acknowledged, when it died.
    expect(await s.changelogRecords()).toBeLessThanOrEqual(2);
    const atKill = (await s.status())!;
    expect(atKill.partitions.some((p) => p.storedOffset !== null), JSON.stringify(atKill)).toBe(true);

    // The next worker finds a state ahead of the changelog (at least the third chunk's): it writes the tail, then consumes the rest.
    const second = s.worker();
    await s.finished('the worker after the kill');
    await s.statusWhere((st) => (st.changelog?.republishedRecords ?? 0) >= 1, 'the tail republished');
    await second.stop();
    const records = await s.changelogRecords();

    await s.losePartitionStates();
    s.worker();
    await s.finished('the worker restoring');
    const restored = await s.statusWhere((st) => st.changelog?.restoredRecords === records, `the restore reading all ${records} changelog records`);
    // Everything came from the changelog: no hole in it (a hole stops a restore; the rest would have come from the topic).
    expect(restored.changelog?.restoredEvents).toBe(log.length);
    expect(restored.lastError).toBeNull();
    expect(restored.eventsApplied).toBe(log.length);
    expectSameDocument(await s.document(), referenceDocument(log));
  }, 240_000);
});
