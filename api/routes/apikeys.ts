import { z } from 'zod';
import { issuerOf, type Principal } from '../auth.js';
import { cappedExpiry, grants, type Permission, type TenantKeyInfo } from '../catalog/index.js';
import type { AppContext } from '../context.js';
import { notFound } from '../context.js';
import { ApiError } from '../errors.js';
import { route } from '../route.js';
import { byCreation, CREATED, pageOf, pageOfList, pageQuery, type PageQuery } from '../paging.js';
import { apiKeySchema, createdApiKeySchema, expiresAtInput, guid, name, permissions, tenantParams } from '../schemas.js';
import { adminRoutes } from './admin.js';
import { projectOf } from '../service/access.js';

const keyBody = z
  .object({ userId: guid, name, permissions: permissions.optional(), projectIds: z.array(guid).max(1000).nullable().optional(), expiresAt: expiresAtInput.optional() })
  .strict();
const keyParams = z.object({ tenantId: guid, keyId: guid });

/**
 * Whether `key` is within the reach of the caller: the global key and
 * tenant-wide admin keys reach every key of the tenant; a project-scoped admin
 * key reaches only keys scoped to projects of its own (never a tenant-wide key).
 */
function reaches(caller: Principal | undefined, key: TenantKeyInfo): boolean {
  if (caller?.kind !== 'tenant' || caller.projectIds === null) return true;
  const scope = caller.projectIds;
  return key.projectIds !== null && key.projectIds.every((p) => scope.includes(p));
}

/**
 * Tenant keys, issued by the global key at /api/tenant/{tenantId}/apikey or by
 * a tenant admin key at /api/{tenantId}/apikey. A key never carries more than
 * its user's membership, nor (when issued by a tenant key) more than the issuer;
 * a project-scoped admin key lists and revokes only keys within its scope.
 * A key records the key (and user) that issued it, never outlives it, and is
 * revoked with it, or when that user leaves the tenant (api/catalog/keys.ts).
 * The global-key routes (/admin/global-api-keys) are declared with these.
 */
export function apiKeyRoutes(ctx: AppContext) {
  const { identity, keys } = ctx.catalog;

  const issue = (tenantId: string, body: z.infer<typeof keyBody>, issuer: Principal | undefined) => {
    if (!identity.tenant(tenantId)) notFound('tenant');
    const member = identity.membership(tenantId, body.userId);
    if (!member) throw new ApiError('validation_failed', 'body.userId: the user is not a member of this tenant');
    const wanted: Permission[] = body.permissions ?? member.permissions;
    const cap = issuer?.kind === 'tenant' ? issuer.permissions : (['admin'] as Permission[]);
    for (const p of wanted) {
      if (!grants(member.permissions, p)) throw new ApiError('validation_failed', `body.permissions: the user's membership does not grant '${p}'`);
      if (!grants(cap, p)) throw new ApiError('forbidden', `a key cannot issue the '${p}' permission it does not hold`);
    }
    let projectIds = body.projectIds ?? null;
    if (issuer?.kind === 'tenant' && issuer.projectIds) {
      projectIds ??= issuer.projectIds;
      if (projectIds.some((p) => !issuer.projectIds!.includes(p))) throw new ApiError('forbidden', 'a project-scoped key cannot issue keys for other projects');
    }
    for (const p of projectIds ?? []) if (!projectOf(ctx.catalog, tenantId, p)) throw new ApiError('validation_failed', `body.projectIds: no project ${p} in this tenant`);
    const by = issuerOf(keys, issuer);
    if (cappedExpiry(body.expiresAt, by) === 'later') throw new ApiError('validation_failed', `body.expiresAt: a key cannot outlive the key that issues it (that one expires at ${by!.expiresAt})`);
    const { info, key } = keys.createTenantKey({ tenantId, userId: body.userId, name: body.name, permissions: wanted, projectIds, expiresAt: body.expiresAt, issuer: by });
    return { ...info, key };
  };
  const list = (tenantId: string, caller: Principal | undefined, query: PageQuery) => {
    if (!identity.tenant(tenantId)) notFound('tenant');
    return pageOfList(keys.tenantKeys(tenantId).filter((k) => reaches(caller, k)), query, CREATED, byCreation);
  };
  const page = pageQuery(ctx.config);
  const revoke = (tenantId: string, keyId: string, caller: Principal | undefined) => {
    // A key out of the caller's reach is answered like an unknown one: the list does not show it either.
    const key = keys.tenantKey(tenantId, keyId);
    if (!key || !reaches(caller, key) || !keys.revokeTenantKey(tenantId, keyId)) notFound('active API key');
  };

  const admin = { tenant: 'admin' as const };
  return [
    route({ method: 'POST', url: '/api/tenant/:tenantId/apikey', summary: 'Issue a tenant key (the secret is shown only here)', tag: 'apikeys', access: 'global', params: tenantParams, body: keyBody, status: 201, response: createdApiKeySchema, handler: ({ params, body, principal }) => issue(params.tenantId, body, principal) }),
    route({ method: 'GET', url: '/api/tenant/:tenantId/apikey', summary: 'List the keys of a tenant, without secrets, a page at a time', tag: 'apikeys', access: 'global', params: tenantParams, query: page, response: pageOf(apiKeySchema), handler: ({ params, query, principal }) => list(params.tenantId, principal, query) }),
    route({ method: 'DELETE', url: '/api/tenant/:tenantId/apikey/:keyId', summary: 'Revoke a tenant key, with every key it issued, down the line', tag: 'apikeys', access: 'global', params: keyParams, status: 204, handler: ({ params, principal }) => revoke(params.tenantId, params.keyId, principal) }),
    route({ method: 'POST', url: '/api/:tenantId/apikey', summary: 'Issue a key in your own tenant (tenant admin)', tag: 'apikeys', access: admin, params: tenantParams, body: keyBody, status: 201, response: createdApiKeySchema, handler: ({ params, body, principal }) => issue(params.tenantId, body, principal) }),
    route({ method: 'GET', url: '/api/:tenantId/apikey', summary: 'List the keys of your tenant, a page at a time (tenant admin; a project-scoped admin key sees only keys within its projects)', tag: 'apikeys', access: admin, params: tenantParams, query: page, response: pageOf(apiKeySchema), handler: ({ params, query, principal }) => list(params.tenantId, principal, query) }),
    route({ method: 'DELETE', url: '/api/:tenantId/apikey/:keyId', summary: 'Revoke a key of your tenant, with every key it issued, down the line (tenant admin; a project-scoped admin key only keys within its projects)', tag: 'apikeys', access: admin, params: keyParams, status: 204, handler: ({ params, principal }) => revoke(params.tenantId, params.keyId, principal) }),
    ...adminRoutes(ctx),
  ];
}
