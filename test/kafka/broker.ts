import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import kafkajs, { Kafka, logLevel, Partitioners } from 'kafkajs';

// Through the default export: Node's reading of kafkajs's CommonJS exports stops before these, so a named import
// of them fails outside vitest (`node --import tsx test/bench/kafka.ts`).
const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } = kafkajs;
import { ensureKafkaJars } from './broker-jars.js';

/**
 * A real Apache Kafka broker for tests and benchmarks: one JVM in KRaft mode,
 * broker and controller in one process, on free ports of 127.0.0.1, its data
 * in a fresh temp dir. No Docker and no mock: what the connector meets in
 * production, down to the partitioner and a broker going away mid-stream.
 */
export interface KafkaBrokerOptions {
  /** Where the broker's fresh temp dir is made (default os.tmpdir()). */
  dir?: string;
  /** num.partitions: the partitions of a topic created without a count. */
  partitionsDefault?: number;
  /** Leave the temp dir (`broker.dir`: data, broker.log) after stop(). */
  keep?: boolean;
  /** Broker settings added to, or overriding, the ones below. */
  properties?: Record<string, string | number | boolean>;
  /**
   * Clients log in (SASL PLAIN) as one of these users and are held to ACLs (KRaft's StandardAuthorizer; nothing is
   * allowed without one). `admin` is a super user: the harness's own client logs in as it.
   */
  sasl?: { users: Record<string, string> };
}

/** The super user of a SASL broker, and its password. */
export const SASL_ADMIN = { username: 'admin', password: 'admin-secret' } as const;

export interface ProducedMessage {
  key?: string | null;
  value: string | Buffer | null;
}

/** The flags of Kafka's kafka-run-class.sh (KAFKA_JVM_PERFORMANCE_OPTS), so timings resemble a scripted broker. */
const JVM_FLAGS = ['-server', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-XX:InitiatingHeapOccupancyPercent=35', '-XX:+ExplicitGCInvokesConcurrent', '-XX:MaxInlineLevel=15', '-Djava.awt.headless=true'];
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;
const CHUNK = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Brokers still running; killed if the test process exits without stop(), so no JVM outlives its worker. */
const live = new Set<KafkaBroker>();
process.once('exit', () => live.forEach((b) => void b.kill()));

export class KafkaBroker {
  readonly brokers: string[];
  private child: ChildProcess | undefined;
  private exited: Promise<unknown> = Promise.resolve();
  private readonly kafka: Kafka;

  private constructor(
    readonly dir: string,
    private readonly libs: string,
    readonly port: number,
    readonly controllerPort: number,
    private readonly keep: boolean,
    private readonly sasl: boolean,
  ) {
    this.brokers = [`127.0.0.1:${port}`];
    // The harness's own client stays silent: a test that wants kafkajs's log makes its own client.
    this.kafka = new Kafka({ clientId: 'pcg-test-broker', brokers: this.brokers, logLevel: logLevel.NOTHING, ...this.login() });
  }

  /** The harness's own login on a SASL broker (the super user). */
  private login(): { sasl?: { mechanism: 'plain'; username: string; password: string } } {
    return this.sasl ? { sasl: { mechanism: 'plain', ...SASL_ADMIN } } : {};
  }

  /** Lets `username` read `topic` and use the consumer groups whose names start with `groupPrefix` (SASL brokers). */
  async allowRead(username: string, topic: string, groupPrefix: string): Promise<void> {
    await this.withAdmin((admin) =>
      admin.createAcls({
        acl: [
          ...[AclOperationTypes.READ, AclOperationTypes.DESCRIBE].map((operation) => ({
            resourceType: AclResourceTypes.TOPIC,
            resourceName: topic,
            resourcePatternType: ResourcePatternTypes.LITERAL,
            principal: `User:${username}`,
            host: '*',
            operation,
            permissionType: AclPermissionTypes.ALLOW,
          })),
          {
            resourceType: AclResourceTypes.GROUP,
            resourceName: groupPrefix,
            resourcePatternType: ResourcePatternTypes.PREFIXED,
            principal: `User:${username}`,
            host: '*',
            operation: AclOperationTypes.ALL,
            permissionType: AclPermissionTypes.ALLOW,
          },
        ],
      }),
    );
  }

  static async start(options: KafkaBrokerOptions = {}): Promise<KafkaBroker> {
    const libs = await ensureKafkaJars();
    const dir = mkdtempSync(join(options.dir ?? tmpdir(), 'pcg-kafka-'));
    try {
      // Free ports are only free until the JVM binds them; another process may win the race, so try afresh.
      for (let attempt = 1; ; attempt++) {
        const [port, controllerPort] = await freePorts(2);
        for (const log of ['broker.log', 'stdout.log']) rmSync(join(dir, log), { force: true });
        const broker = new KafkaBroker(dir, libs, port!, controllerPort!, options.keep ?? false, options.sasl !== undefined);
        broker.configure(options);
        await broker.format();
        try {
          await broker.launch();
          return broker;
        } catch (e) {
          await broker.kill();
          if (attempt >= 3 || !/BindException|Address already in use/.test(broker.logTail())) throw e;
        }
      }
    } catch (e) {
      if (!options.keep) rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  get pid(): number | undefined {
    return this.child && this.child.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  /** Resident memory of the broker JVM (Linux only). */
  rssBytes(): number | undefined {
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'))?.[1];
      return kb === undefined ? undefined : Number(kb) * 1024;
    } catch {
      return undefined;
    }
  }

  async createTopic(topic: string, partitions: number): Promise<void> {
    try {
      await this.withAdmin((admin) => admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }], waitForLeaders: true }));
    } catch (error) {
      // On a busy machine a fresh broker may answer the wait for leaders before it hosts the partitions ("does not
      // host this topic-partition"), though the topic is made: then it is ready once every partition has offsets.
      if (!/does not host this topic-partition/.test((error as Error).message)) throw error;
      const until = Date.now() + 60_000;
      while ((await this.endOffsets(topic).catch(() => [])).filter((o) => o !== undefined).length < partitions) {
        if (Date.now() > until) throw error;
        await sleep(200);
      }
    }
  }

  /** Sends in chunks with acks=all, keys placed by kafkajs's default partitioner (murmur2, as the Java client). */
  async produce(topic: string, messages: ProducedMessage[]): Promise<void> {
    const producer = this.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
    await producer.connect();
    try {
      for (let i = 0; i < messages.length; i += CHUNK) {
        await producer.send({ topic, acks: -1, messages: messages.slice(i, i + CHUNK).map((m) => ({ key: m.key ?? null, value: m.value })) });
      }
    } finally {
      await producer.disconnect();
    }
  }

  /** The next offset to be written, by partition (index = partition). */
  async endOffsets(topic: string): Promise<number[]> {
    const offsets = await this.withAdmin((admin) => admin.fetchTopicOffsets(topic));
    const ends: number[] = [];
    for (const o of offsets) ends[o.partition] = Number(o.high);
    return ends;
  }

  /** A clean shutdown (SIGTERM, SIGKILL after 20 s); the temp dir goes unless `keep`. */
  async stop(): Promise<void> {
    await this.terminate();
    if (!this.keep) rmSync(this.dir, { recursive: true, force: true });
  }

  /** A crash: SIGKILL, data left as it was on disk for restart(). */
  async kill(): Promise<void> {
    this.child?.kill('SIGKILL');
    await this.exited;
    live.delete(this);
  }

  /** Starts the broker again on the same ports and data (stopping it first if it runs): a broker outage, seen from a client. */
  async restart(): Promise<void> {
    await this.terminate();
    // After a crash the old listening socket may linger for a moment: retry a bind failure briefly.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.launch();
      } catch (e) {
        await this.kill();
        if (attempt >= 5 || !/BindException|Address already in use/.test(this.logTail())) throw e;
        await sleep(1000);
      }
    }
  }

  /** The last lines of the broker's log and of the JVM's own output, for error messages. */
  logTail(lines = 40): string {
    return ['broker.log', 'stdout.log']
      .map((f) => join(this.dir, f))
      .filter((f) => existsSync(f))
      .map((f) => `--- ${f}\n${readFileSync(f, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')}`)
      .join('\n');
  }

  private configure(options: KafkaBrokerOptions): void {
    const props: Record<string, string | number | boolean> = {
      'process.roles': 'broker,controller',
      'node.id': 1,
      'controller.quorum.voters': `1@127.0.0.1:${this.controllerPort}`,
      listeners: `PLAINTEXT://127.0.0.1:${this.port},CONTROLLER://127.0.0.1:${this.controllerPort}`,
      'advertised.listeners': `PLAINTEXT://127.0.0.1:${this.port}`,
      'controller.listener.names': 'CONTROLLER',
      'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      'inter.broker.listener.name': 'PLAINTEXT',
      'log.dirs': join(this.dir, 'data'),
      // One broker: internal topics cannot have more replicas than that.
      'offsets.topic.replication.factor': 1,
      'transaction.state.log.replication.factor': 1,
      'transaction.state.log.min.isr': 1,
      // A consumer group forms at once instead of after the 3 s default delay.
      'group.initial.rebalance.delay.ms': 0,
      // A restarted broker is fenced and back sooner than with the 9 s / 2 s defaults.
      'broker.session.timeout.ms': 4000,
      'broker.heartbeat.interval.ms': 1000,
      // Tests create their topics: a typo must fail rather than make a topic.
      'auto.create.topics.enable': false,
      'num.partitions': options.partitionsDefault ?? 1,
      ...(options.sasl ? this.saslProperties(options.sasl.users) : {}),
      ...options.properties,
    };
    writeFileSync(this.file('server.properties'), Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
    // WARN and above to a file: the test output stays quiet, a failure still has its story.
    writeFileSync(
      this.file('log4j.properties'),
      [
        'log4j.rootLogger=WARN, file',
        'log4j.appender.file=org.apache.log4j.FileAppender',
        `log4j.appender.file.File=${this.file('broker.log')}`,
        'log4j.appender.file.layout=org.apache.log4j.PatternLayout',
        'log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n',
      ].join('\n') + '\n',
    );
  }

  /** The client listener logs in with SASL PLAIN; the controller's stays plain (its principal, ANONYMOUS, is a super user). */
  private saslProperties(users: Record<string, string>): Record<string, string> {
    const all = { ...users, [SASL_ADMIN.username]: SASL_ADMIN.password };
    const jaas = [
      'org.apache.kafka.common.security.plain.PlainLoginModule required',
      `username="${SASL_ADMIN.username}" password="${SASL_ADMIN.password}"`,
      ...Object.entries(all).map(([u, p]) => `user_${u}="${p}"`),
    ].join(' ');
    return {
      listeners: `SASL_PLAINTEXT://127.0.0.1:${this.port},CONTROLLER://127.0.0.1:${this.controllerPort}`,
      'advertised.listeners': `SASL_PLAINTEXT://127.0.0.1:${this.port}`,
      'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
      'inter.broker.listener.name': 'SASL_PLAINTEXT',
      'sasl.enabled.mechanisms': 'PLAIN',
      'sasl.mechanism.inter.broker.protocol': 'PLAIN',
      'listener.name.sasl_plaintext.plain.sasl.jaas.config': `${jaas};`,
      'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      'super.users': `User:${SASL_ADMIN.username};User:ANONYMOUS`,
      'allow.everyone.if.no.acl.found': 'false',
    };
  }

  private file(name: string): string {
    return join(this.dir, name);
  }

  private java(heap: string, main: string, args: string[]): string[] {
    return [`-Xmx${heap}`, `-Xms${heap}`, ...JVM_FLAGS, `-Dlog4j.configuration=file:${this.file('log4j.properties')}`, '-cp', join(this.libs, '*'), main, ...args];
  }

  /** A KRaft store must be formatted with a cluster id before the first start. */
  private async format(): Promise<void> {
    rmSync(this.file('data'), { recursive: true, force: true });
    // A Kafka Uuid is 16 random bytes in base64url, 22 characters; one starting with '-' would read as a flag.
    let id: string;
    do id = randomBytes(16).toString('base64url');
    while (id.startsWith('-'));
    // Static quorum (controller.quorum.voters): 3.9's --standalone is for the dynamic quorum and refuses this config.
    await promisify(execFile)('java', this.java('256m', 'kafka.tools.StorageTool', ['format', '-t', id, '-c', this.file('server.properties')]), { timeout: 60_000 }).catch((e) => {
      throw new Error(`formatting the KRaft store failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    });
  }

  private async launch(): Promise<void> {
    const out = openSync(this.file('stdout.log'), 'a');
    const child = spawn('java', this.java('512m', 'kafka.Kafka', [this.file('server.properties')]), { stdio: ['ignore', out, out] });
    closeSync(out);
    this.child = child;
    this.exited = new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r)));
    live.add(this);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let last: unknown;
    while (Date.now() < deadline) {
      if (this.pid === undefined) throw new Error(`the Kafka broker exited during start-up (code ${child.exitCode}, signal ${child.signalCode})\n${this.logTail()}`);
      try {
        return await this.probe();
      } catch (e) {
        last = e;
      }
      await sleep(200);
    }
    throw new Error(`the Kafka broker on ${this.brokers[0]} did not answer within ${READY_TIMEOUT_MS / 1000} s (${(last as Error)?.message})\n${this.logTail()}`);
  }

  /**
   * Ready means serving, not only listening: after a restart the broker answers
   * metadata requests a moment before it leads its partitions again, and a
   * client that asks then gets NOT_LEADER errors that kafkajs admin calls do not retry.
   */
  private async probe(): Promise<void> {
    // A client of its own without retries: one refused connection must not wait out kafkajs's backoff.
    const admin = new Kafka({ brokers: this.brokers, logLevel: logLevel.NOTHING, connectionTimeout: 1000, retry: { retries: 0 }, ...this.login() }).admin();
    try {
      await admin.connect();
      await admin.describeCluster();
      const topics = await admin.listTopics();
      if (topics.length === 0) return;
      const { topics: meta } = await admin.fetchTopicMetadata({ topics });
      const leaderless = meta.flatMap((t) => t.partitions.filter((p) => p.partitionErrorCode !== 0 || p.leader < 0).map((p) => `${t.name}-${p.partitionId}`));
      if (leaderless.length > 0) throw new Error(`no leader yet for ${leaderless.slice(0, 3).join(', ')}${leaderless.length > 3 ? ', …' : ''}`);
      // The leaders themselves answer a ListOffsets only once they have taken the partitions over.
      for (const topic of topics) await admin.fetchTopicOffsets(topic);
    } finally {
      await admin.disconnect().catch(() => {});
    }
  }

  private async terminate(): Promise<void> {
    if (this.pid === undefined) return void live.delete(this);
    this.child!.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timer);
    live.delete(this);
  }

  private async withAdmin<T>(work: (admin: ReturnType<Kafka['admin']>) => Promise<T>): Promise<T> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      return await work(admin);
    } finally {
      await admin.disconnect();
    }
  }
}

/** Ports the kernel hands out as free, all held at once so they differ. */
async function freePorts(n: number): Promise<number[]> {
  const servers = Array.from({ length: n }, () => createServer());
  const ports = await Promise.all(servers.map((s) => new Promise<number>((r, j) => s.once('error', j).listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)))));
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}
