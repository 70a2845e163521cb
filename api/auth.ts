import type { FastifyRequest } from 'fastify';
import { grants, type Catalog, type Permission } from './catalog/index.js';
import { ApiError } from './errors.js';
import type { RateLimiter } from './rate-limit.js';

/** Who is calling, after the key has been checked. */
export type Principal =
  | { kind: 'global'; keyId: string }
  | { kind: 'tenant'; keyId: string; tenantId: string; userId: string; permissions: Permission[]; projectIds: string[] | null };

export type Access = 'public' | 'global' | 'any-key' | { tenant: Permission };

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Key checking and tenant/project authorization. 401 when the key is missing,
 * unknown, revoked or of the wrong type for /api/tenant and /api/user; 403 when
 * a valid key lacks the tenant, project or permission.
 */
export class Auth {
  constructor(
    private readonly catalog: Catalog,
    private readonly limiter: RateLimiter,
  ) {}

  authenticate(request: FastifyRequest, access: Exclude<Access, 'public'>): Principal {
    const header = request.headers.authorization;
    const key = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    if (!key) throw new ApiError('invalid_token', 'missing bearer token in the Authorization header');
    let principal: Principal | undefined;
    const global = this.catalog.keys.verifyGlobal(key);
    if (global) principal = { kind: 'global', keyId: global.id };
    else {
      const t = this.catalog.keys.verifyTenant(key);
      if (t) {
        // A key never grants more than its user's current membership.
        const member = this.catalog.identity.membership(t.tenantId, t.userId);
        const permissions = member ? t.permissions.filter((p) => grants(member.permissions, p)) : [];
        principal = { kind: 'tenant', keyId: t.id, tenantId: t.tenantId, userId: t.userId, permissions, projectIds: t.projectIds };
      }
    }
    if (!principal) throw new ApiError('invalid_token', 'the access token is invalid, revoked or expired');
    if (access === 'global' && principal.kind !== 'global') throw new ApiError('invalid_token', 'this endpoint requires a global API key; a tenant key is not accepted');
    const wait = this.limiter.take(principal.keyId);
    if (wait !== undefined) throw new ApiError('rate_limited', 'too many requests for this key; retry later', { 'retry-after': String(wait) });
    return principal;
  }

  /** The tenant key's access to one tenant (and project, when given). */
  authorize(principal: Principal, tenantId: string, needed: Permission, projectId?: string): Extract<Principal, { kind: 'tenant' }> {
    if (principal.kind !== 'tenant') throw new ApiError('forbidden', 'tenant endpoints require a tenant API key');
    if (principal.tenantId !== tenantId) throw new ApiError('forbidden', 'this key has no access to that tenant');
    if (projectId !== undefined && principal.projectIds && !principal.projectIds.includes(projectId)) {
      throw new ApiError('forbidden', 'this key has no access to that project');
    }
    if (principal.permissions.length === 0 || !grants(principal.permissions, needed)) {
      throw new ApiError('forbidden', `this key lacks the '${needed}' permission`);
    }
    return principal;
  }
}
