import { z } from 'zod';

/**
 * A Kafka source as a tenant declares it: where the topic is, how to reach it,
 * where to start, and how a message becomes a wire event. Validated once at the
 * boundary (the API's POST body, a definition read back from the catalog).
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

const broker = z
  .string()
  .regex(/^[A-Za-z0-9.[\]:_-]+:\d{1,5}$/, 'expected host:port')
  .max(300);

const isoTime = z.string().refine((s) => Number.isFinite(Date.parse(s)), 'expected an ISO 8601 time');

export const saslSchema = z
  .object({
    mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']),
    username: z.string().min(1).max(1000),
    password: z.string().min(1).max(10_000),
  })
  .strict();

export const tlsSchema = z.union([
  z.boolean(),
  z
    .object({
      /** PEM certificates of the authorities to trust (default: the system's). */
      ca: z.string().max(100_000).optional(),
      /** Client certificate and key (PEM) for mutual TLS; the key is a secret. */
      cert: z.string().max(100_000).optional(),
      key: z.string().max(100_000).optional(),
      rejectUnauthorized: z.boolean().optional(),
    })
    .strict(),
]);

export const FORMATS = ['pcg', 'cloudevents', 'json'] as const;

export const sourceInputSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    brokers: z.array(broker).min(1).max(50),
    topic: z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'a Kafka topic name: letters, digits, . _ -'),
    /** Default: a group of the source's own, `pcg-<source id>`. */
    groupId: z.string().min(1).max(255).optional(),
    /** `pcg`: each message is a wire event; `cloudevents`: a structured CloudEvent whose `data` holds the wire event's fields; `json`: any JSON, mapped field by field. */
    format: z.enum(FORMATS).default('pcg'),
    mapping: mappingSchema.optional(),
    /** Where a partition with no stored position starts. */
    start: z.union([z.enum(['earliest', 'latest']), z.object({ timestamp: isoTime }).strict()]).default('earliest'),
    sasl: saslSchema.optional(),
    tls: tlsSchema.optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.format !== 'json') return;
    for (const key of ['caseId', 'activity', 'timestamp'] as const) {
      if (!s.mapping?.[key]) ctx.addIssue({ code: 'custom', path: ['mapping', key], message: `format json needs mapping.${key}` });
    }
  });
export type SourceInput = z.output<typeof sourceInputSchema>;

/** A source as the runners get it: its identity, its owner, and its declaration with secrets in clear. */
export interface SourceDefinition extends SourceInput {
  id: string;
  tenantId: string;
  projectId: string;
  /** Changes whenever the declaration does: a runner whose definition changed is restarted. */
  revision: string;
}

export const groupIdOf = (s: Pick<SourceDefinition, 'id' | 'groupId'>): string => s.groupId ?? `pcg-${s.id}`;

/** The declaration with every secret left out, as the API shows it. */
export function publicView(s: SourceInput): Record<string, unknown> {
  const { sasl, tls, ...rest } = s;
  return {
    ...rest,
    ...(sasl ? { sasl: { mechanism: sasl.mechanism, username: sasl.username } } : {}),
    ...(tls === undefined ? {} : { tls: typeof tls === 'boolean' ? tls : { ...(tls.ca ? { ca: tls.ca } : {}), ...(tls.cert ? { cert: tls.cert } : {}), ...(tls.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: tls.rejectUnauthorized }), hasKey: Boolean(tls.key) } }),
  };
}
