import { z } from 'zod';
import { brokerSchema, saslSchema, tlsSchema, type Sasl, type Tls } from './connection.js';

/**
 * A Kafka cluster the operator declares (configuration or the global key), and
 * grants to tenants: the only brokers pcg ever connects to. A tenant's source
 * names a granted cluster; how pcg authenticates there is the operator's
 * choice, never the tenant's:
 * - `service`: pcg reads with the cluster's own credentials (`sasl`, `tls`), so
 *   the broker cannot tell tenants apart: a topic is claimed by the first
 *   tenant that subscribes it, and another tenant needs the global key's grant.
 * - `tenant`: every source brings its tenant's SASL credentials, and the
 *   broker's ACLs decide what each tenant may read.
 * Either way pcg derives the consumer group (groupIdOf), so no source can join
 * another's group.
 */

/** A cluster's name: what sources and grants refer to. */
export const clusterName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'a cluster name: lower-case letters, digits, . _ - (at most 63)');

/** The prefix of every consumer group pcg makes on the cluster (a broker's ACLs may grant it as a prefix). */
const groupPrefix = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'a group prefix: letters, digits, . _ - (at most 64)');

export const CREDENTIALS = ['service', 'tenant'] as const;
export type Credentials = (typeof CREDENTIALS)[number];

/** A declaration, as configuration (PCG_KAFKA_CLUSTERS) or the global key's PUT gives it; secrets in clear. */
export const clusterInputSchema = z
  .object({
    brokers: z.array(brokerSchema).min(1).max(50),
    credentials: z.enum(CREDENTIALS).default('service'),
    /** pcg's own SASL login (credentials `service` only). */
    sasl: saslSchema.optional(),
    /** TLS towards the brokers: `true`, or the authorities to trust and pcg's own client certificate. */
    tls: tlsSchema.optional(),
    groupPrefix: groupPrefix.default('pcg'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.credentials === 'tenant' && c.sasl) ctx.addIssue({ code: 'custom', path: ['sasl'], message: "credentials 'tenant': each source brings its tenant's SASL login; the cluster has none of its own" });
  });
export type ClusterInput = z.output<typeof clusterInputSchema>;

/** One entry of PCG_KAFKA_CLUSTERS: a declaration with its name and the tenants it is granted to ('*': every tenant). */
export const configuredClusterSchema = z
  .object({
    name: clusterName,
    tenants: z.union([z.literal('*'), z.array(z.uuid()).max(100_000)]).default([]),
  })
  .and(clusterInputSchema);
export type ConfiguredCluster = z.output<typeof configuredClusterSchema>;

/** The default declaration: a broker on this machine's usual port, granted to nobody until the operator (or `--demo`) grants it. */
export const DEFAULT_CLUSTERS = '[{"name":"local","brokers":["127.0.0.1:9092"]}]';

/** A cluster as the runners need it: where it is and how pcg logs in there (secrets in clear). */
export interface ClusterConnection {
  name: string;
  brokers: string[];
  credentials: Credentials;
  sasl?: Sasl | undefined;
  tls?: Tls | undefined;
  groupPrefix: string;
  /** Changes whenever the declaration does: the sources on it restart. */
  revision: number;
}

/** The suffix a source may add to its group name (never the whole name). */
export const groupSuffixSchema = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'a group suffix: letters, digits, . _ - (at most 64)');

/**
 * The consumer group of a source: `<prefix>.<tenant id>.<source id>[.<suffix>]`. The tenant id makes a
 * broker ACL per tenant a prefix (`pcg.<tenant>.`), the source id makes two sources never share a group.
 */
export function groupIdOf(prefix: string, tenantId: string, sourceId: string, suffix?: string): string {
  return `${prefix}.${tenantId}.${sourceId}${suffix ? `.${suffix}` : ''}`;
}
