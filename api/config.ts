import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_EVENT_LIMITS, EVENT_LIMIT_NAMES, eventLimits, type EventLimits } from '../engine/event.js';
import { DEFAULT_INPUT_LIMITS, INPUT_LIMIT_NAMES, type InputLimits } from '../connectors/files/limits.js';
import { configuredClusterSchema, DEFAULT_CLUSTERS } from '../connectors/kafka/index.js';

/**
 * The server's configuration: read once at start from the environment, with
 * `pcg serve` flags taking precedence, then frozen. Every path the server
 * touches derives from `dataDir`.
 */
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

// In the operator's words, whatever was wrong (not a number, a fraction, out of range): zod's own ("expected number,
// received NaN") spoke of its types.
const intIn = (min: number, max: number) => {
  const error = `expected a whole number from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

/** PCG_KAFKA_CLUSTERS: a JSON list of cluster declarations (connectors/kafka/cluster.ts), names unique. */
const kafkaClusters = z
  .string()
  .default(DEFAULT_CLUSTERS)
  .transform((text, ctx) => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected a JSON list of clusters, e.g. [{"name":"main","brokers":["kafka-1:9092"],"tenants":"*"}]' });
      return z.NEVER;
    }
    const parsed = z.array(configuredClusterSchema).max(1000).safeParse(json);
    if (!parsed.success) {
      for (const i of parsed.error.issues.slice(0, 3)) ctx.addIssue({ code: 'custom', message: `${i.path.join('.') || 'list'}: ${i.message}` });
      return z.NEVER;
    }
    const names = parsed.data.map((c) => c.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) {
      ctx.addIssue({ code: 'custom', message: `the cluster '${twice}' is declared twice` });
      return z.NEVER;
    }
    return parsed.data;
  });

const settings = z.object({
  dataDir: z.string().min(1).default('./data').transform((d) => resolve(d)),
  host: z.string().min(1).default('127.0.0.1'),
  port: intIn(0, 65535).default(8080),
  globalApiKey: z.string().min(16, 'the global API key must have at least 16 characters').optional(),
  logLevel: z.enum(logLevels).default('info'),
  /** Per key: bucket size and refill per second; 0 turns rate limiting off. */
  rateLimitBurst: intIn(0, 1_000_000).default(600),
  rateLimitPerSecond: intIn(0, 1_000_000).default(100),
  /** Loop time (ms, decaying by half each second) past which a tenant's handlers run one per turn of the event loop (api/loop-share.ts); 0: off. */
  loopShareMs: intIn(0, 60_000).default(50),
  /** JSON bodies (events ingestion included). */
  bodyLimitBytes: intIn(1024, 1 << 30).default(16 * 1024 * 1024),
  /** Raw dataset uploads. */
  uploadLimitBytes: intIn(1024, 64 * 1024 * 1024 * 1024).default(2 * 1024 * 1024 * 1024),
  /**
   * Work threads (api/work-threads.ts): ingestion, document builds, case reads and document views run there, off the
   * request loop, shared among tenants by the fair queue (0: all on the loop, only for comparison). Default: one per
   * core the process may use, and at least two. The loop needs no core of its own now that it only routes (it
   * parses no body and builds nothing), and with one thread a tenant's long task would hold every thread: with two
   * or more, one tenant holds at most all but one.
   */
  buildThreads: intIn(0, 64).default(() => Math.max(2, availableParallelism())),
  /** Tasks one tenant may have waiting for a work thread; one more is 429 `rate_limited` with Retry-After (api/fair-queue.ts). */
  tenantQueue: intIn(1, 100_000).default(16),
  /** A document build taking longer than this is aborted (503). */
  buildBudgetMs: intIn(1000, 3_600_000).default(120_000),
  /** Project state files open at once (each holds four file descriptors: api/descriptors.ts); the least recently used is closed past it. Lowered at start to fit the descriptor limit. */
  maxOpenStores: intIn(8, 100_000).default(256),
  /** Case folds all open project stores may cache together (each store keeps at most 100k): memory bounded whatever the number of busy projects. */
  cachedCases: intIn(0, 100_000_000).default(300_000),
  /** MiB of case folds the stores gave up, kept as text so a case back after a long wait is restored rather than recounted (each store keeps at most 64 MiB). */
  cachedCaseTextMiB: intIn(0, 1_000_000).default(128),
  /** Seals stream sources' SASL passwords and TLS keys in the catalog (default: a key generated into <dataDir>/source-secret-key). */
  sourceSecretKey: z.string().min(16, 'the source secret key must have at least 16 characters').optional(),
  /**
   * The Kafka clusters sources may read, and the tenants each is granted to: no source connects anywhere else.
   * Default: `local` (127.0.0.1:9092), granted to nobody (`pcg serve --demo` grants it to its demo tenant).
   */
  kafkaClusters,
  /** Run the data directory's stream sources inside `pcg serve` (on a thread of their own); off when `pcg worker` processes run them. */
  sources: z
    .enum(['on', 'off', 'true', 'false', '1', '0'])
    .default('on')
    .transform((v) => v === 'on' || v === 'true' || v === '1'),
  /** Bearer token of `GET /metrics` (Prometheus text); without it the route answers 404 and nothing is measured. */
  metricsToken: z.string().min(16, 'the metrics token must have at least 16 characters').optional(),
  /** On SIGTERM/SIGINT, how long requests in flight may take to finish before open connections are closed. */
  shutdownGraceMs: intIn(0, 600_000).default(10_000),
  // Retention (engine/store/retention.ts): run by `pcg serve` every PCG_RETENTION_INTERVAL_S, and by `pcg prune`.
  /** Days a project's raw events are kept unless the project sets its own (unset: every event is kept); the counters keep everything. */
  retentionDays: intIn(1, 36_500).optional(),
  /** Seconds between two retention passes of `pcg serve` (one also runs at start). */
  retentionIntervalS: intIn(1, 30 * 86_400).default(3600),
  /** Dead letters received longer ago than this many days are deleted. */
  deadLetterDays: intIn(1, 36_500).default(30),
  /** Dead letters kept per project at most (its own store and its partition states together); the oldest go first. */
  deadLetterMax: intIn(1, 1_000_000_000).default(100_000),
  // Limits (PCG_LIMIT_*): each refusal names its setting. The first four bound one event on every ingest path
  // (HTTP, dataset uploads, Kafka, the demo feed): an event over one is a dead letter, the rest of its batch goes on.
  /**
   * UTF-8 bytes of an id or a name: caseId, eventId, resource, object ids, types and qualifiers, attribute names.
   * At least 64: the event ids importers make (`<12 hex>:<ordinal>`) must fit.
   */
  limitIdBytes: intIn(64, 1 << 20).default(DEFAULT_EVENT_LIMITS.idBytes),
  /** UTF-8 bytes of an activity name. */
  limitActivityBytes: intIn(16, 1 << 24).default(DEFAULT_EVENT_LIMITS.activityBytes),
  /** UTF-8 bytes of a text attribute value. */
  limitAttributeValueBytes: intIn(16, 1 << 30).default(DEFAULT_EVENT_LIMITS.attributeValueBytes),
  /** Attributes of one event. */
  limitAttributesPerEvent: intIn(0, 1_000_000).default(DEFAULT_EVENT_LIMITS.attributesPerEvent),
  /** Object references of one event. */
  limitObjectsPerEvent: intIn(0, 10_000_000).default(DEFAULT_EVENT_LIMITS.objectsPerEvent),
  /** Object types of one project (of each of its state files): an event bringing one more is a dead letter. */
  limitObjectTypesPerProject: intIn(0, 10_000_000).default(DEFAULT_EVENT_LIMITS.objectTypesPerProject),
  // Inputs: what reading one uploaded file may cost (connectors/files/limits.ts); a file over one is refused whole.
  /** UTF-8 bytes of an NDJSON line, a CSV record or an XML token of XES: a longer one fails the file (413). */
  lineLimitBytes: intIn(1024, 1 << 30).default(DEFAULT_INPUT_LIMITS.lineBytes),
  /** Bytes of content a file may decompress to (413). */
  decompressedLimitBytes: intIn(1024, 2 ** 50).default(DEFAULT_INPUT_LIMITS.decompressedBytes),
  /** Content bytes per compressed byte of a gzip file past its first 64 MiB of content (413); 0: no bound. */
  decompressedRatioLimit: intIn(0, 1_000_000).default(DEFAULT_INPUT_LIMITS.decompressedRatio),
  /** Relations of an OCEL log: as read, and as its flattened events carry them (422). */
  limitOcelRelations: intIn(1, 2_000_000_000).default(DEFAULT_INPUT_LIMITS.ocelRelations),
  /** MiB of heap of a thread reading an upload (its check, its import's reader): a file needing more is refused (422). */
  readHeapMiB: intIn(64, 1 << 20).default(DEFAULT_INPUT_LIMITS.heapMiB),
  /** Time an upload's check (read whole on a thread before anything is applied) may take (422 past it). */
  checkBudgetMs: intIn(1, 86_400_000).default(600_000),
  /** Threads checking uploads, off the request event loop. */
  checkThreads: intIn(1, 64).default(2),
  /** Events (lines of NDJSON included) in one ingestion request: more is 413. */
  limitEventsPerRequest: intIn(1, 10_000_000).default(100_000),
  /** Projects of one tenant: one more is 422 limit_exceeded. */
  limitProjectsPerTenant: intIn(1, 10_000_000).default(1000),
  /** Stream sources of one project: one more is 422 limit_exceeded. */
  limitSourcesPerProject: intIn(1, 10_000).default(20),
  /** Served graph documents kept per project for `?version=` (the newest). */
  limitGraphVersions: intIn(1, 1_000_000).default(500),
  /** Bytes of the graph documents kept per project: the oldest go first; a larger document alone is served but not kept. */
  limitGraphVersionsBytes: intIn(1024, 2 ** 40).default(256 * 1024 * 1024),
  /** Blocks of one notebook: one more is 422 limit_exceeded, and a notebook past it (made before) is not run. */
  limitBlocksPerNotebook: intIn(1, 100_000).default(100),
  // Quotas per tenant (PCG_QUOTA_*; 0: none): what a tenant keeps, over all its projects (api/usage.ts). A write past one is 422.
  /** Events a tenant's projects keep (rows of their stores; pruned events no longer count). */
  quotaEvents: intIn(0, 2 ** 50).default(50_000_000),
  /** Dead letters a tenant's projects keep. */
  quotaDeadLetters: intIn(0, 2 ** 50).default(1_000_000),
  /** Stored bytes of those dead letters (the refused record and the message's own bytes, each at most 64 KiB). */
  quotaDeadLetterBytes: intIn(0, 2 ** 50).default(1024 * 1024 * 1024),
  /** Catalog records of a tenant: investigations, notebooks, blocks and dashboards together. */
  quotaRecords: intIn(0, 100_000_000).default(10_000),
  // Lists (api/paging.ts): every list answers a page, `limit` items at most, and the cursor of the next.
  /** Items of a page when the request gives no `limit`. */
  pageSize: intIn(1, 100_000).default(100),
  /** The largest `limit` a request may ask. */
  pageSizeMax: intIn(1, 100_000).default(1000),
  /** JSON-RPC messages of one MCP batch: more is 413; each message costs a rate-limit token. */
  mcpMaxBatch: intIn(1, 10_000).default(20),
  // Connections (api/connections.ts): slow or idle clients lose their socket, and one address holds a bounded number.
  /** A request's headers must have arrived this long after its first byte (else 408 and the socket closes). */
  headersTimeoutMs: intIn(50, 600_000).default(10_000),
  /** A request's body (dataset uploads excepted) must have arrived this long after its headers (else 408 and the socket closes). */
  bodyTimeoutMs: intIn(50, 3_600_000).default(30_000),
  /** No request, uploads included, may take longer than this to arrive, headers and body (node's requestTimeout). */
  requestTimeoutMs: intIn(50, 86_400_000).default(3_600_000),
  /** A socket on which neither side sent a byte this long while the server waits for the client is closed (graph streams and requests being answered are not idle). */
  idleTimeoutMs: intIn(50, 3_600_000).default(60_000),
  /** Connections open at once from one client address; a new one past it is closed at once (0: no cap; behind a proxy every client has its address). */
  connectionsPerAddress: intIn(0, 1_000_000).default(64),
  /** Connections open at once, all clients together: a new one past it is closed at once. Part of the descriptor budget (api/descriptors.ts). */
  maxConnections: intIn(1, 1_000_000).default(256),
  /** Free bytes of the data directory's file system under which `GET /health/ready` answers 503 (0: not checked). */
  minFreeDiskBytes: intIn(0, 2 ** 50).default(1024 * 1024 * 1024),
});

export const configSchema = settings
  // Node refuses a header timeout longer than the whole request's.
  .refine((c) => c.headersTimeoutMs <= c.requestTimeoutMs, { path: ['headersTimeoutMs'], message: 'must be at most PCG_REQUEST_TIMEOUT_MS' })
  .refine((c) => c.pageSize <= c.pageSizeMax, { path: ['pageSize'], message: 'must be at most PCG_PAGE_SIZE_MAX' });

export type Config = Readonly<z.output<typeof configSchema>>;
export type ConfigInput = z.input<typeof configSchema>;

/** Environment variable for each setting. */
export const configEnv: Record<keyof ConfigInput, string> = {
  dataDir: 'PCG_DATA_DIR',
  host: 'PCG_HOST',
  port: 'PCG_PORT',
  globalApiKey: 'PCG_GLOBAL_API_KEY',
  logLevel: 'PCG_LOG_LEVEL',
  rateLimitBurst: 'PCG_RATE_LIMIT_BURST',
  rateLimitPerSecond: 'PCG_RATE_LIMIT_PER_SECOND',
  loopShareMs: 'PCG_LOOP_SHARE_MS',
  bodyLimitBytes: 'PCG_BODY_LIMIT_BYTES',
  uploadLimitBytes: 'PCG_UPLOAD_LIMIT_BYTES',
  buildThreads: 'PCG_BUILD_THREADS',
  tenantQueue: 'PCG_TENANT_QUEUE',
  buildBudgetMs: 'PCG_BUILD_BUDGET_MS',
  sourceSecretKey: 'PCG_SOURCE_SECRET_KEY',
  maxOpenStores: 'PCG_MAX_OPEN_STORES',
  cachedCases: 'PCG_CACHED_CASES',
  cachedCaseTextMiB: 'PCG_CACHED_CASE_TEXT_MIB',
  kafkaClusters: 'PCG_KAFKA_CLUSTERS',
  sources: 'PCG_SOURCES',
  metricsToken: 'PCG_METRICS_TOKEN',
  shutdownGraceMs: 'PCG_SHUTDOWN_GRACE_MS',
  retentionDays: 'PCG_RETENTION_DAYS',
  retentionIntervalS: 'PCG_RETENTION_INTERVAL_S',
  deadLetterDays: 'PCG_DEAD_LETTER_DAYS',
  deadLetterMax: 'PCG_DEAD_LETTER_MAX',
  limitIdBytes: EVENT_LIMIT_NAMES.idBytes,
  limitActivityBytes: EVENT_LIMIT_NAMES.activityBytes,
  limitAttributeValueBytes: EVENT_LIMIT_NAMES.attributeValueBytes,
  limitAttributesPerEvent: EVENT_LIMIT_NAMES.attributesPerEvent,
  limitObjectsPerEvent: EVENT_LIMIT_NAMES.objectsPerEvent,
  limitObjectTypesPerProject: EVENT_LIMIT_NAMES.objectTypesPerProject,
  lineLimitBytes: INPUT_LIMIT_NAMES.lineBytes,
  decompressedLimitBytes: INPUT_LIMIT_NAMES.decompressedBytes,
  decompressedRatioLimit: INPUT_LIMIT_NAMES.decompressedRatio,
  limitOcelRelations: INPUT_LIMIT_NAMES.ocelRelations,
  readHeapMiB: INPUT_LIMIT_NAMES.heapMiB,
  checkBudgetMs: 'PCG_CHECK_BUDGET_MS',
  checkThreads: 'PCG_CHECK_THREADS',
  limitEventsPerRequest: 'PCG_LIMIT_EVENTS_PER_REQUEST',
  limitProjectsPerTenant: 'PCG_LIMIT_PROJECTS_PER_TENANT',
  limitSourcesPerProject: 'PCG_LIMIT_SOURCES_PER_PROJECT',
  limitGraphVersions: 'PCG_LIMIT_GRAPH_VERSIONS',
  limitGraphVersionsBytes: 'PCG_LIMIT_GRAPH_VERSIONS_BYTES',
  limitBlocksPerNotebook: 'PCG_LIMIT_BLOCKS_PER_NOTEBOOK',
  quotaEvents: 'PCG_QUOTA_EVENTS_PER_TENANT',
  quotaDeadLetters: 'PCG_QUOTA_DEAD_LETTERS_PER_TENANT',
  quotaDeadLetterBytes: 'PCG_QUOTA_DEAD_LETTER_BYTES_PER_TENANT',
  quotaRecords: 'PCG_QUOTA_RECORDS_PER_TENANT',
  pageSize: 'PCG_PAGE_SIZE',
  pageSizeMax: 'PCG_PAGE_SIZE_MAX',
  mcpMaxBatch: 'PCG_MCP_MAX_BATCH',
  headersTimeoutMs: 'PCG_HEADERS_TIMEOUT_MS',
  bodyTimeoutMs: 'PCG_BODY_TIMEOUT_MS',
  requestTimeoutMs: 'PCG_REQUEST_TIMEOUT_MS',
  idleTimeoutMs: 'PCG_IDLE_TIMEOUT_MS',
  connectionsPerAddress: 'PCG_CONNECTIONS_PER_ADDRESS',
  maxConnections: 'PCG_MAX_CONNECTIONS',
  minFreeDiskBytes: 'PCG_MIN_FREE_DISK_BYTES',
};

/** The setting's name, for messages that name a limit ("limit PCG_LIMIT_PROJECTS_PER_TENANT: …"). */
export const limitName = (key: keyof ConfigInput): string => configEnv[key];

type EventLimitKey = 'limitIdBytes' | 'limitActivityBytes' | 'limitAttributeValueBytes' | 'limitAttributesPerEvent' | 'limitObjectsPerEvent' | 'limitObjectTypesPerProject';

/** The engine's bounds on one event, from the configuration (frozen; handed to every project registry). */
export function eventLimitsOf(config: Pick<Config, EventLimitKey>): EventLimits {
  return eventLimits({
    idBytes: config.limitIdBytes,
    activityBytes: config.limitActivityBytes,
    attributeValueBytes: config.limitAttributeValueBytes,
    attributesPerEvent: config.limitAttributesPerEvent,
    objectsPerEvent: config.limitObjectsPerEvent,
    objectTypesPerProject: config.limitObjectTypesPerProject,
  });
}

/** The bounds on reading an uploaded file, from the configuration (frozen). */
export function inputLimitsOf(config: Pick<Config, 'lineLimitBytes' | 'decompressedLimitBytes' | 'decompressedRatioLimit' | 'limitOcelRelations' | 'readHeapMiB'>): InputLimits {
  return Object.freeze({
    lineBytes: config.lineLimitBytes,
    decompressedBytes: config.decompressedLimitBytes,
    decompressedRatio: config.decompressedRatioLimit,
    ocelRelations: config.limitOcelRelations,
    heapMiB: config.readHeapMiB,
  });
}

export class ConfigError extends Error {}

const eventLimitKeys = {
  limitIdBytes: true,
  limitActivityBytes: true,
  limitAttributeValueBytes: true,
  limitAttributesPerEvent: true,
  limitObjectsPerEvent: true,
  limitObjectTypesPerProject: true,
} as const satisfies Record<EventLimitKey, true>;

/**
 * The data directory of a command that reads no other setting (backup, prune, worker): `--data-dir`, else
 * PCG_DATA_DIR, else the schema's default, resolved, as `pcg serve` reads it.
 */
export function dataDirOf(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const given = flag ?? (env[configEnv.dataDir] || undefined);
  const parsed = settings.shape.dataDir.safeParse(given);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error.issues.map((i) => ({ ...i, path: ['dataDir'] }))));
  return parsed.data;
}

/** The event limits alone from the environment (`pcg worker`, which reads no other setting of the server). */
export function readEventLimits(env: NodeJS.ProcessEnv = process.env): EventLimits {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(eventLimitKeys) as (keyof typeof eventLimitKeys)[]) {
    const value = env[configEnv[key]];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = settings.pick(eventLimitKeys).safeParse(raw);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error.issues));
  return eventLimitsOf(parsed.data);
}

const retentionKeys = { retentionDays: true, deadLetterDays: true, deadLetterMax: true } as const;
export type RetentionConfig = Readonly<Pick<Config, keyof typeof retentionKeys>>;

/** The retention settings alone from the environment (`pcg prune`, which reads no other setting of the server). */
export function readRetentionConfig(env: NodeJS.ProcessEnv = process.env): RetentionConfig {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(retentionKeys) as (keyof typeof retentionKeys)[]) {
    const value = env[configEnv[key]];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = settings.pick(retentionKeys).safeParse(raw);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error.issues));
  return Object.freeze(parsed.data);
}

/** A project's days of raw events kept: its own setting (0: all kept), else the server's default; null keeps everything. */
export function retentionDaysOf(config: Pick<Config, 'retentionDays'>, retention: number | null): number | null {
  if (retention === null) return config.retentionDays ?? null;
  return retention === 0 ? null : retention;
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const names = configEnv as Record<string, string>;
  return issues.map((i) => `${names[String(i.path[0])] ?? String(i.path[0])}: ${i.message}`).join('; ');
}

/** Environment first, then `overrides` (flags); empty strings count as unset. */
export function readConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<keyof ConfigInput, unknown>> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(configEnv)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  for (const [key, value] of Object.entries(overrides)) if (value !== undefined && value !== '') raw[key] = value;
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error.issues));
  return Object.freeze(parsed.data);
}
