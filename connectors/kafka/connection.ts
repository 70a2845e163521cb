import { z } from 'zod';

/** How pcg reaches a broker: addresses, SASL and TLS settings, validated once at the boundary. */

export const brokerSchema = z
  .string()
  .regex(/^[A-Za-z0-9.[\]:_-]+:\d{1,5}$/, 'expected host:port')
  .max(300);

export const saslSchema = z
  .object({
    mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']),
    username: z.string().min(1).max(1000),
    password: z.string().min(1).max(10_000),
  })
  .strict();
export type Sasl = z.output<typeof saslSchema>;

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
export type Tls = z.output<typeof tlsSchema>;

/** TLS settings with the key left out, as the API shows them. */
export function publicTls(tls: Tls | undefined, hasKey: boolean): boolean | { ca?: string; cert?: string; rejectUnauthorized?: boolean; hasKey: boolean } | null {
  if (tls === undefined) return null;
  if (typeof tls === 'boolean') return tls;
  return { ...(tls.ca ? { ca: tls.ca } : {}), ...(tls.cert ? { cert: tls.cert } : {}), ...(tls.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: tls.rejectUnauthorized }), hasKey };
}
