import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_EVENT_LIMITS, EVENT_LIMIT_NAMES, eventLimits, type EventLimits } from '../engine/event.js';
import { DEFAULT_INPUT_LIMITS, INPUT_LIMIT_NAMES, type InputLimits } from '../connectors/files/limits.js';
import { configuredClusterSchema, DEFAULT_CLUSTERS } from '../connectors/kafka/index.js';
import { registerWireError } from '../engine/error-base.js';
import { OperatorError } from './exit-codes.js';

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
  // Where and how the server runs.
  dataDir: z
    .string()
    .min(1)
    .default('./data')
    .transform((d) => resolve(d))
    .describe('The data directory: the catalog (`catalog.sqlite`), every project\'s state files, dataset files and key files. `--data-dir` wins; `pcg worker`, `backup`, `prune` and `mcp` read it too.'),
  host: z.string().min(1).default('127.0.0.1').describe('The address `pcg serve` listens on (`--host`).'),
  port: intIn(0, 65535).default(8080).describe('The port `pcg serve` listens on (`--port`; 0: any free port).'),
  globalApiKey: z
    .string()
    .min(16, 'the global API key must have at least 16 characters')
    .optional()
    .describe('The operator\'s key (tenants, users, global keys, Kafka clusters; `--global-api-key`). Unset: one is generated on first start into `<dataDir>/global-api-key` (mode 0600) unless a usable global key exists. A start with a different key revokes the previous configured key.'),
  logLevel: z.enum(logLevels).default('info').describe('pino\'s log level of `pcg serve` (`--log-level`).'),
  rateLimitBurst: intIn(0, 1_000_000).default(600).describe('Requests one key may make at once: the size of its token bucket (MCP requests have a bucket of their own; a JSON-RPC batch costs one token a message). 0 turns rate limiting off. Past it: 429 `rate_limited` with Retry-After.'),
  rateLimitPerSecond: intIn(0, 1_000_000).default(100).describe('Tokens a key\'s bucket gains per second.'),
  loopShareMs: intIn(0, 60_000).default(50).describe('Event-loop time (ms, the sum decaying by half each second) past which a tenant\'s request handlers run one per turn of the loop, so another tenant waits for at most about one of them (api/loop-share.ts). Work conserving: alone, a tenant loses a few microseconds a request. 0: off.'),
  bodyLimitBytes: intIn(1024, 1 << 30).default(16 * 1024 * 1024).describe('Bytes of a JSON or NDJSON request body (events ingestion included); more is 413 naming the setting.'),
  uploadLimitBytes: intIn(1024, 64 * 1024 * 1024 * 1024).default(2 * 1024 * 1024 * 1024).describe('Bytes of a raw dataset upload; more is 413 naming the setting.'),
  // The work threads (api/work-threads.ts): ingestion, document builds, case reads and document views run there, off
  // the request loop, shared among tenants by the fair queue. The loop needs no core of its own now that it only
  // routes, and with one thread a tenant's long task would hold every thread: with two or more, one tenant holds at
  // most all but one.
  buildThreads: intIn(0, 64)
    .default(() => Math.max(2, availableParallelism()))
    .meta({ defaultText: 'one per core the process may use, at least 2' })
    .describe('Work threads: ingestion bodies parsed and applied, dataset batches applied, documents built and gzipped, notebook blocks and case pages read, MCP views computed, each task handed out by the fair queue. 0 runs all of it on the request loop, only for comparison.'),
  tenantQueue: intIn(1, 100_000).default(16).describe('Tasks one tenant may have waiting for a work thread; one more is 429 `rate_limited` with Retry-After: 1 for that tenant only (an events request is refused so before its body is read).'),
  buildBudgetMs: intIn(1000, 3_600_000).default(120_000).describe('A document build, notebook block or MCP view running longer than this on its thread is aborted: 503 `unavailable`.'),
  maxOpenStores: intIn(8, 100_000).default(256).describe('Project state files open at once, the least recently used closed first; four file descriptors each. Lowered at start to what the limit on open files holds (api/descriptors.ts).'),
  cachedCases: intIn(0, 100_000_000).default(300_000).describe('Case folds all open project stores cache together (each store keeps at most 100k): over it, a store holding more than its share gives one up, so memory does not grow with the number of busy projects.'),
  cachedCaseTextMiB: intIn(0, 1_000_000).default(128).describe('MiB of case folds the stores gave up, kept as text (each store at most 64 MiB), so that a case whose next event comes after a long wait is restored in microseconds instead of recounted from its rows.'),
  sourceSecretKey: z
    .string()
    .min(16, 'the source secret key must have at least 16 characters')
    .optional()
    .describe('Seals stream sources\' and clusters\' SASL passwords and TLS keys in the catalog (AES-256-GCM). Unset: a key generated into `<dataDir>/source-secret-key`.'),
  kafkaClusters: kafkaClusters
    .meta({ typeText: 'a JSON list of clusters', defaultText: '`local` (127.0.0.1:9092), granted to nobody' })
    .describe('The Kafka clusters sources may read, and the tenants each is granted to: a JSON list of `{name, brokers, credentials?, sasl?, tls?, groupPrefix?, tenants?}`, names unique; no source connects anywhere else. `pcg serve --demo` grants `local` to its demo tenant.'),
  sources: z
    .enum(['on', 'off', 'true', 'false', '1', '0'])
    .default('on')
    .transform((v) => v === 'on' || v === 'true' || v === '1')
    .describe('Run the data directory\'s Kafka sources inside `pcg serve`, on a thread of their own; `off` when `pcg worker` processes run them.'),
  metricsToken: z
    .string()
    .min(16, 'the metrics token must have at least 16 characters')
    .optional()
    .describe('Bearer token of `GET /metrics` (Prometheus text). Unset: the route answers 404 and nothing is measured.'),
  shutdownGraceMs: intIn(0, 600_000).default(10_000).describe('On SIGTERM or SIGINT, how long requests in flight may take to finish before open connections are closed (graph streams are not waited for).'),
  // Retention (engine/store/retention.ts): run by `pcg serve` every PCG_RETENTION_INTERVAL_S, and by `pcg prune`.
  retentionDays: intIn(1, 36_500)
    .optional()
    .describe('Days of a project\'s raw events kept, counted back from its newest event, for projects that set no `retentionDays` of their own. Unset: every event is kept. The counters keep everything.'),
  retentionIntervalS: intIn(1, 30 * 86_400).default(3600).describe('Seconds between two retention passes of `pcg serve` (one also runs at start).'),
  deadLetterDays: intIn(1, 36_500).default(30).describe('Dead letters received longer ago than this many days are deleted by a retention pass.'),
  deadLetterMax: intIn(1, 1_000_000_000).default(100_000).describe('Dead letters kept per project (its own store and its partition states together); the oldest go first.'),
  // Limits (PCG_LIMIT_*): each refusal names its setting. The first six bound one event on every ingest path
  // (HTTP, dataset uploads, Kafka, the demo feed): an event over one is a dead letter, the rest of its batch goes on.
  limitIdBytes: intIn(64, 1 << 20)
    .default(DEFAULT_EVENT_LIMITS.idBytes)
    .describe('UTF-8 bytes of an id or a name: caseId, eventId, resource, object ids, types and qualifiers, attribute names. At least 64: the event ids importers make (`<12 hex>:<ordinal>`) must fit.'),
  limitActivityBytes: intIn(16, 1 << 24).default(DEFAULT_EVENT_LIMITS.activityBytes).describe('UTF-8 bytes of an activity name.'),
  limitAttributeValueBytes: intIn(16, 1 << 30).default(DEFAULT_EVENT_LIMITS.attributeValueBytes).describe('UTF-8 bytes of a text attribute value.'),
  limitAttributesPerEvent: intIn(0, 1_000_000).default(DEFAULT_EVENT_LIMITS.attributesPerEvent).describe('Attributes of one event.'),
  limitObjectsPerEvent: intIn(0, 10_000_000).default(DEFAULT_EVENT_LIMITS.objectsPerEvent).describe('Object references of one event (an OCEL event\'s related objects: refused once, as itself).'),
  limitObjectTypesPerProject: intIn(0, 10_000_000)
    .default(DEFAULT_EVENT_LIMITS.objectTypesPerProject)
    .describe('Object types of one project (of each of its state files): an event or object record bringing one more is a dead letter; an OCEL upload with more is refused whole (422).'),
  // Inputs: what reading one uploaded file may cost (connectors/files/limits.ts); a file over one is refused whole.
  lineLimitBytes: intIn(1024, 1 << 30).default(DEFAULT_INPUT_LIMITS.lineBytes).describe('UTF-8 bytes of an NDJSON line, a CSV record (quoted line ends included) or an XML tag or run of text of XES: a longer one fails the file (413).'),
  decompressedLimitBytes: intIn(1024, 2 ** 50).default(DEFAULT_INPUT_LIMITS.decompressedBytes).describe('Bytes of content a file may hold, a gzip file\'s once decompressed (413).'),
  decompressedRatioLimit: intIn(0, 1_000_000).default(DEFAULT_INPUT_LIMITS.decompressedRatio).describe('Content bytes per compressed byte of a gzip file, once past its first 64 MiB of content (413); 0: no bound.'),
  limitOcelRelations: intIn(1, 2_000_000_000).default(DEFAULT_INPUT_LIMITS.ocelRelations).describe('Relations of an OCEL log: its event-to-object and object-to-object relations as read, and the event-to-object relations its flattened events carry (422).'),
  readHeapMiB: intIn(64, 1 << 20).default(DEFAULT_INPUT_LIMITS.heapMiB).describe('MiB of old-generation heap of a thread reading an upload (its check, its import\'s reader): a file needing more is refused (422), the thread dying alone.'),
  checkBudgetMs: intIn(1, 86_400_000).default(600_000).describe('Time an upload\'s check (read whole on a check thread before anything is applied, its wait for a thread included) may take; past it the thread is ended (422).'),
  checkThreads: intIn(1, 64).default(2).describe('Threads checking dataset uploads at once, off the request loop; more uploads wait for one.'),
  limitEventsPerRequest: intIn(1, 10_000_000).default(100_000).describe('Events (NDJSON lines, unreadable ones included) of one ingestion request: more is 413.'),
  limitProjectsPerTenant: intIn(1, 10_000_000).default(1000).describe('Projects of one tenant: one more is 422 `limit_exceeded`.'),
  limitSourcesPerProject: intIn(1, 10_000).default(20).describe('Stream sources of one project: one more is 422 `limit_exceeded`.'),
  limitGraphVersions: intIn(1, 1_000_000).default(500).describe('Served graph documents kept per project for `?version=` and `/graph/versions` (the newest; the oldest is dropped).'),
  limitGraphVersionsBytes: intIn(1024, 2 ** 40)
    .default(256 * 1024 * 1024)
    .describe('Stored (gzip-compressed) bytes of the graph documents kept per project: the oldest go first; a larger document alone is served but not kept.'),
  limitBlocksPerNotebook: intIn(1, 100_000).default(100).describe('Blocks of one notebook: one more is 422 `limit_exceeded`, and a notebook past it (made before) is not run.'),
  // Quotas per tenant (PCG_QUOTA_*; 0: none): what a tenant keeps, over all its projects (api/usage.ts). A write past one is 422.
  quotaEvents: intIn(0, 2 ** 50).default(50_000_000).describe('Events a tenant\'s projects keep (rows of their stores and partition states; pruned events leave it). 0: no quota.'),
  quotaDeadLetters: intIn(0, 2 ** 50).default(1_000_000).describe('Dead letters a tenant\'s projects keep. 0: no quota.'),
  quotaDeadLetterBytes: intIn(0, 2 ** 50).default(1024 * 1024 * 1024).describe('Stored bytes of those dead letters (the refused record and the message\'s own bytes, each at most 64 KiB). 0: no quota.'),
  quotaRecords: intIn(0, 100_000_000).default(10_000).describe('Catalog records of a tenant: investigations, notebooks, blocks and dashboards together. 0: no quota.'),
  // Lists (api/paging.ts): every list answers a page, `limit` items at most, and the cursor of the next.
  pageSize: intIn(1, 100_000).default(100).describe('Items of a list\'s page when the request gives no `limit` (at most PCG_PAGE_SIZE_MAX).'),
  pageSizeMax: intIn(1, 100_000).default(1000).describe('The largest `limit` a list request may ask; more is 400 naming the setting.'),
  mcpMaxBatch: intIn(1, 10_000).default(20).describe('JSON-RPC messages of one batch at `/mcp`: more is 413; each message costs a rate-limit token.'),
  // Connections (api/connections.ts): slow or idle clients lose their socket, and one address holds a bounded number.
  headersTimeoutMs: intIn(50, 600_000).default(10_000).describe('A request\'s headers must have arrived this long after its first byte, else 408 `request_timeout` and the socket closes (at most PCG_REQUEST_TIMEOUT_MS).'),
  bodyTimeoutMs: intIn(50, 3_600_000).default(30_000).describe('A request\'s body (dataset uploads excepted) must have arrived this long after its headers, else 408 and the socket closes.'),
  requestTimeoutMs: intIn(50, 86_400_000).default(3_600_000).describe('No request, uploads included, may take longer than this to arrive, headers and body (Node\'s requestTimeout): 408 and the socket closes.'),
  idleTimeoutMs: intIn(50, 3_600_000).default(60_000).describe('A socket on which neither side sent a byte this long while the server waits for its client is closed (graph streams and requests being answered are not idle).'),
  connectionsPerAddress: intIn(0, 1_000_000).default(64).describe('Connections open at once from one client address; a new one past it is closed as it is accepted. 0: no cap (behind a reverse proxy every client has the proxy\'s address).'),
  maxConnections: intIn(1, 1_000_000).default(256).describe('Connections open at once, all clients together (Node\'s maxConnections): a new one past it is closed. Part of the descriptor budget (api/descriptors.ts).'),
  minFreeDiskBytes: intIn(0, 2 ** 50).default(1024 * 1024 * 1024).describe('Free bytes of the data directory\'s file system under which `GET /health/ready` answers 503 (0: not checked).'),
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

/** A setting that is not valid: `pcg serve` and the other commands print it as a usage error (exit 2). */
export class ConfigError extends OperatorError<'config_invalid'> {
  override name = 'ConfigError';
  constructor(message: string) {
    super('config_invalid', message);
  }
}
registerWireError('ConfigError', ConfigError, (w) => new ConfigError(w.message));

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
