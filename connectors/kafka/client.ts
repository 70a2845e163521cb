import { Kafka, logLevel, type ISocketFactory, type KafkaConfig, type LogEntry, type SASLOptions } from 'kafkajs';
import type { SourceDefinition } from './definition.js';

/** Where kafkajs's own log lines go (the runner's logger); silent by default. */
export type KafkaLog = (level: 'error' | 'warn' | 'info' | 'debug', message: string, extra: Record<string, unknown>) => void;

/**
 * Retries that ride out a broker outage of a minute or more: kafkajs's default
 * (5 retries, at most 30 s apart from 300 ms) gives up after about 10 s and
 * crashes the consumer. Here a request is retried for about 3 minutes before
 * the consumer gives up and the supervisor restarts it.
 */
export const RETRY = { initialRetryTime: 300, maxRetryTime: 5_000, retries: 40, factor: 0.2, multiplier: 2 } as const;

function saslOf(s: SourceDefinition): SASLOptions | undefined {
  if (!s.sasl) return undefined;
  const { mechanism, username, password } = s.sasl;
  return { mechanism, username, password } as SASLOptions;
}

/**
 * The broker's answers about group membership that a consumer gets over on its own: a heartbeat or a commit
 * answered "rebalancing", "illegal generation" or "unknown member" while a worker joins or leaves (it rejoins;
 * a refused commit is made again by the next chunk, offset-committer.ts), and a coordinator not yet there on a
 * fresh broker or after a failover (kafkajs retries). Seen from `pcg worker`: "Response GroupCoordinator"
 * (not available) at a fresh broker's first start, and once "Response OffsetCommit" as an error when both
 * workers of a group stopped at once (a stopping runner's last commit, after the other had left).
 */
const GROUP_NEWS = [
  'The group is rebalancing, so a rejoin is needed',
  'Specified group generation id is not valid',
  'The coordinator is not aware of this member',
  'The group coordinator is not available',
  "The coordinator is loading and hence can't process requests for this group",
  'This is not the correct coordinator for this group',
];

/**
 * The level a kafkajs log entry is told at. kafkajs logs every error response as an error, including the
 * answers above, which are how a consumer learns that a worker joined or left: that is news (info), not a
 * failure. One that does not get over it crashes the consumer, which the runner reports as its last error.
 */
export function kafkaLogLevel(level: logLevel, extra: Record<string, unknown>): Parameters<KafkaLog>[0] {
  if (level === logLevel.ERROR) return GROUP_NEWS.includes(String(extra.error ?? '')) ? 'info' : 'error';
  return level === logLevel.WARN ? 'warn' : level === logLevel.INFO ? 'info' : 'debug';
}

function logCreator(log: KafkaLog | undefined) {
  return () =>
    ({ level, log: entry }: LogEntry) => {
      if (!log) return;
      const { message, ...extra } = entry;
      log(kafkaLogLevel(level, extra), String(message), extra as Record<string, unknown>);
    };
}

/**
 * The kafkajs client of one source: its cluster's brokers, TLS and SASL settings, and the long retries above;
 * its connections made by `socketFactory` when given (the runner's SourceSockets, so a stopped source holds none).
 */
export function clientOf(s: SourceDefinition, clientId: string, log?: KafkaLog, socketFactory?: ISocketFactory): Kafka {
  const config: KafkaConfig = {
    clientId,
    brokers: s.brokers,
    connectionTimeout: 5_000,
    requestTimeout: 30_000,
    retry: RETRY,
    logLevel: log ? logLevel.WARN : logLevel.NOTHING,
    logCreator: logCreator(log),
    ...(socketFactory ? { socketFactory } : {}),
  };
  if (s.tls !== undefined && s.tls !== false) config.ssl = s.tls === true ? true : { ...s.tls };
  const sasl = saslOf(s);
  if (sasl) config.sasl = sasl;
  return new Kafka(config);
}
