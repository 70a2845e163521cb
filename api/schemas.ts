import { z } from 'zod';

/** Shared request/response shapes. Response schemas are exact: the OpenAPI document and schemathesis hold answers to them. */
export const guid = z.uuid();
export const name = z.string().trim().min(1).max(200);
export const description = z.string().max(2000);
export const permission = z.enum(['read', 'write', 'admin']);
export const permissions = z.array(permission).min(1).max(3);
const isoTime = z.string().describe('ISO 8601 UTC');

export const tenantParams = z.object({ tenantId: guid });
export const projectParams = z.object({ tenantId: guid, projectId: guid });

export const tenantSchema = z
  .object({ id: guid, name: z.string(), description: z.string(), createdAt: isoTime, updatedAt: isoTime })
  .meta({ id: 'Tenant' });
export const userSchema = z.object({ id: guid, email: z.string(), name: z.string(), createdAt: isoTime, updatedAt: isoTime }).meta({ id: 'User' });
export const membershipSchema = z
  .object({ id: z.string(), tenantId: guid, userId: guid, permissions: z.array(permission), createdAt: isoTime, updatedAt: isoTime })
  .meta({ id: 'Membership' });
export const apiKeySchema = z
  .object({
    id: guid,
    tenantId: guid,
    userId: guid,
    name: z.string(),
    permissions: z.array(permission),
    projectIds: z.array(guid).nullable(),
    createdAt: isoTime,
    lastUsedAt: isoTime.nullable().describe('written at most once a minute'),
    revokedAt: isoTime.nullable(),
    expiresAt: isoTime.nullable().describe('null: never expires'),
    issuedByKeyId: guid.nullable().describe('the key (global or tenant) that issued it; revoking that key revokes this one. null: made by the server itself, or before issuers were recorded'),
    issuedByUserId: guid.nullable().describe('the user who held the issuing tenant key; removing them from the tenant revokes this key'),
  })
  .meta({ id: 'ApiKey' });
export const createdApiKeySchema = apiKeySchema.extend({ key: z.string().describe('the secret: shown only in this answer') }).meta({ id: 'CreatedApiKey' });
export const globalApiKeySchema = z
  .object({
    id: guid,
    name: z.string(),
    origin: z.enum(['config', 'file', 'api']).describe('config: PCG_GLOBAL_API_KEY; file: <data-dir>/global-api-key; api: made at /admin/global-api-keys'),
    createdAt: isoTime,
    lastUsedAt: isoTime.nullable().describe('written at most once a minute'),
    revokedAt: isoTime.nullable(),
    expiresAt: isoTime.nullable().describe('null: never expires'),
    issuedByKeyId: guid.nullable().describe('the global key that issued it; revoking that key revokes this one. null: made by the server itself, or before issuers were recorded'),
  })
  .meta({ id: 'GlobalApiKey' });
export const createdGlobalApiKeySchema = globalApiKeySchema
  .extend({ key: z.string().describe('the secret: shown only in this answer') })
  .meta({ id: 'CreatedGlobalApiKey' });
/** A key's optional expiry on creation: a valid time, in the future (and not after the issuing key's). */
export const expiresAtInput = z.iso
  .datetime({ offset: true })
  .refine((s) => Date.parse(s) > Date.now(), 'must be a valid time in the future')
  .describe('ISO 8601 time in the future after which the key answers 401 token_expired; omitted: never expires');
/** Days a project's raw events are kept (engine/store/retention.ts); null keeps every event. */
export const retentionDays = z
  .number()
  .int('retentionDays must be a whole number of days')
  .min(1, 'retentionDays must be at least 1 (null keeps every event)')
  .max(36_500, 'retentionDays may be at most 36500')
  .nullable()
  .describe('days raw events are kept on the log\'s own clock (newest event time minus this); the counters keep everything; null keeps every event');

export const projectSchema = z
  .object({
    id: guid,
    tenantId: guid,
    name: z.string(),
    description: z.string(),
    retentionDays: retentionDays.describe('days raw events are kept: the project\'s own setting, else the server\'s PCG_RETENTION_DAYS; null keeps every event'),
    dataVersion: z.number().int(),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: 'Project' });

export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });

export const pingSchema = z.object({ status: z.literal('ok'), timestamp: isoTime }).meta({ id: 'Ping' });
export const authenticatedPingSchema = z
  .object({
    status: z.literal('authenticated'),
    timestamp: isoTime,
    tenantId: guid,
    projectId: guid,
    userId: z.string(),
    permissions: z.array(permission),
  })
  .meta({ id: 'AuthenticatedPing' });

/** Strings shaped like a timestamp for query/body filters. */
export const timeInput = z.string().refine((s) => Number.isFinite(Date.parse(s)), 'expected an ISO 8601 time');

/** An investigation's scope (defined with the scoped views in engine/projects). */
export { scopeSchema, type Scope } from '../engine/projects/scope.js';
