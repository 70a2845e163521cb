import { resolve } from 'node:path';
import { z } from 'zod';

/**
 * The server's configuration: read once at start from the environment, with
 * `pcg serve` flags taking precedence, then frozen. Every path the server
 * touches derives from `dataDir`.
 */
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const intIn = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const configSchema = z.object({
  dataDir: z.string().min(1).default('./data').transform((d) => resolve(d)),
  host: z.string().min(1).default('127.0.0.1'),
  port: intIn(0, 65535).default(8080),
  globalApiKey: z.string().min(16, 'the global API key must have at least 16 characters').optional(),
  logLevel: z.enum(logLevels).default('info'),
  /** Per key: bucket size and refill per second; 0 turns rate limiting off. */
  rateLimitBurst: intIn(0, 1_000_000).default(600),
  rateLimitPerSecond: intIn(0, 1_000_000).default(100),
  /** JSON bodies (events ingestion included). */
  bodyLimitBytes: intIn(1024, 1 << 30).default(16 * 1024 * 1024),
  /** Raw dataset uploads. */
  uploadLimitBytes: intIn(1024, 64 * 1024 * 1024 * 1024).default(2 * 1024 * 1024 * 1024),
  /** Worker threads that build graph documents off the request event loop (0: on it, only for comparison). */
  buildThreads: intIn(0, 64).default(1),
  /** A document build taking longer than this is aborted (503). */
  buildBudgetMs: intIn(1000, 3_600_000).default(120_000),
  /** Project state files open at once (each holds three file descriptors); the least recently used is closed past it. */
  maxOpenStores: intIn(8, 100_000).default(256),
  /** Seals stream sources' SASL passwords and TLS keys in the catalog (default: a key generated into <dataDir>/source-secret-key). */
  sourceSecretKey: z.string().min(16, 'the source secret key must have at least 16 characters').optional(),
  /** Run the data directory's stream sources inside `pcg serve` (on a thread of their own); off when `pcg worker` processes run them. */
  sources: z
    .enum(['on', 'off', 'true', 'false', '1', '0'])
    .default('on')
    .transform((v) => v === 'on' || v === 'true' || v === '1'),
  /** Bearer token of `GET /metrics` (Prometheus text); without it the route answers 404 and nothing is measured. */
  metricsToken: z.string().min(16, 'the metrics token must have at least 16 characters').optional(),
  /** On SIGTERM/SIGINT, how long requests in flight may take to finish before open connections are closed. */
  shutdownGraceMs: intIn(0, 600_000).default(10_000),
});

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
  bodyLimitBytes: 'PCG_BODY_LIMIT_BYTES',
  uploadLimitBytes: 'PCG_UPLOAD_LIMIT_BYTES',
  buildThreads: 'PCG_BUILD_THREADS',
  buildBudgetMs: 'PCG_BUILD_BUDGET_MS',
  sourceSecretKey: 'PCG_SOURCE_SECRET_KEY',
  maxOpenStores: 'PCG_MAX_OPEN_STORES',
  sources: 'PCG_SOURCES',
  metricsToken: 'PCG_METRICS_TOKEN',
  shutdownGraceMs: 'PCG_SHUTDOWN_GRACE_MS',
};

export class ConfigError extends Error {}

/** Environment first, then `overrides` (flags); empty strings count as unset. */
export function readConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<keyof ConfigInput, unknown>> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(configEnv)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  for (const [key, value] of Object.entries(overrides)) if (value !== undefined && value !== '') raw[key] = value;
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const names = configEnv as Record<string, string>;
    throw new ConfigError(
      parsed.error.issues.map((i) => `${names[String(i.path[0])] ?? String(i.path[0])}: ${i.message}`).join('; '),
    );
  }
  return Object.freeze(parsed.data);
}
