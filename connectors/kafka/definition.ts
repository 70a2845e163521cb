import { z } from 'zod';
import { clusterName, groupSuffixSchema } from './cluster.js';
import { brokerSchema, saslSchema, type Sasl, type Tls } from './connection.js';

/**
 * A Kafka source as a tenant declares it: which granted cluster and topic,
 * where to start, and how a message becomes a wire event. Validated once at the
 * boundary (the API's POST body, a definition read back from the catalog). The
 * brokers, how pcg logs in and the consumer group are not the tenant's to
 * choose: they come from the cluster (cluster.ts).
 */

/** A field of the message: a top-level name (`case_id`), or an RFC 6901 JSON pointer from the message's root (`/order/id`). */
const field = z
  .string()
  .min(1)
  .max(500)
  .refine((s) => !s.startsWith('/') || !/~[^01]/.test(s), 'a JSON pointer escapes only ~0 and ~1');

export const mappingSchema = z
  .object({
    caseId: field.optional(),
    activity: field.optional(),
    timestamp: field.optional(),
    eventId: field.optional(),
    resource: field.optional(),
    /** An object whose entries become the event's attributes, or a list of fields, each named by its last segment. */
    attributes: z.union([field, z.array(field).max(200)]).optional(),
    /** An array of `{id, type, qualifier?}`: the OCEL objects the event touches. */
    objects: field.optional(),
  })
  .strict();
export type Mapping = z.infer<typeof mappingSchema>;

const isoTime = z.string().refine((s) => Number.isFinite(Date.parse(s)), 'expected an ISO 8601 time');

export const FORMATS = ['pcg', 'cloudevents', 'json'] as const;

export const GROUP_ID_REFUSED = 'pcg derives the consumer group (<prefix>.<tenant id>.<source id>); a source may add groupSuffix';

export const sourceInputSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    /** A cluster granted to the tenant (GET /api/{tenantId}/kafka-cluster lists them). */
    cluster: clusterName.optional(),
    /** Instead of `cluster`: brokers that all belong to one granted cluster, which the source then names. */
    brokers: z.array(brokerSchema).min(1).max(50).optional(),
    topic: z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'a Kafka topic name: letters, digits, . _ -'),
    /** Added to the group pcg derives; the whole name is never the caller's. */
    groupSuffix: groupSuffixSchema.optional(),
    groupId: z.undefined({ error: GROUP_ID_REFUSED }).optional(),
    /** `pcg`: each message is a wire event; `cloudevents`: a structured CloudEvent whose `data` holds the wire event's fields; `json`: any JSON, mapped field by field. */
    format: z.enum(FORMATS).default('pcg'),
    mapping: mappingSchema.optional(),
    /** Where a partition with no stored position starts. */
    start: z.union([z.enum(['earliest', 'latest']), z.object({ timestamp: isoTime }).strict()]).default('earliest'),
    /** The tenant's own SASL login, on a cluster whose credentials are the tenant's (its ACLs decide). */
    sasl: saslSchema.optional(),
    /** The tenant's client certificate and key (mutual TLS), on such a cluster. */
    tls: z.object({ cert: z.string().max(100_000), key: z.string().max(100_000) }).strict().optional(),
    /**
     * Whether the worker that owns a partition also writes each applied chunk to the source's changelog topic
     * (changelog.ts), so that a host without the partition's state file restores it from Kafka. Off by default:
     * it doubles what the source costs the brokers (docs/kafka.md, "A changelog per source").
     */
    changelog: z.boolean().default(false),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (!s.cluster && !s.brokers) ctx.addIssue({ code: 'custom', path: ['cluster'], message: 'name a Kafka cluster granted to the tenant (or its brokers)' });
    if (s.format !== 'json') return;
    for (const key of ['caseId', 'activity', 'timestamp'] as const) {
      if (!s.mapping?.[key]) ctx.addIssue({ code: 'custom', path: ['mapping', key], message: `format json needs mapping.${key}` });
    }
  });
export type SourceInput = z.output<typeof sourceInputSchema>;

/**
 * A source as the runners get it: its identity, its owner, its declaration, and the connection its cluster
 * gives (brokers, login, TLS, the derived group), secrets in clear.
 */
export interface SourceDefinition {
  id: string;
  tenantId: string;
  projectId: string;
  /** Changes whenever the declaration or its cluster's does: a runner whose definition changed is restarted. */
  revision: string;
  cluster: string;
  brokers: string[];
  topic: string;
  groupId: string;
  format: SourceInput['format'];
  mapping?: Mapping | undefined;
  start: SourceInput['start'];
  sasl?: Sasl | undefined;
  tls?: Tls | undefined;
  /** Applied chunks are written to the changelog topic `<groupId>.pcg-changelog` (changelog.ts). */
  changelog: boolean;
}
