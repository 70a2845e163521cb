import type { FastifyRequest } from 'fastify';
import { grants, type Catalog, type Issuer, type Permission, type TenantKeyInfo } from './catalog/index.js';
import { effectivePermissions } from './catalog/identity.js';
import { isExpired } from './catalog/keys.js';
import { ApiError } from './errors.js';
import type { RateLimiter } from './rate-limit.js';

/** Who is calling, after the key has been checked. */
export type Principal =
  | { kind: 'global'; keyId: string }
  | {
      kind: 'tenant';
      keyId: string;
      tenantId: string;
      userId: string;
      permissions: Permission[];
      projectIds: string[] | null;
      /** The key's expiry (ISO), null for never. */
      expiresAt: string | null;
    };
export type TenantPrincipal = Extract<Principal, { kind: 'tenant' }>;

export type Access = 'public' | 'global' | 'any-key' | { tenant: Permission };

/** The key a request comes with, as the issuer of the keys it makes: it caps their expiry, and takes them along when it goes. */
export function issuerOf(keys: { globalKey(id: string): { expiresAt: string | null } | undefined }, principal: Principal | undefined): Issuer | undefined {
  if (!principal) return undefined;
  if (principal.kind === 'tenant') return { keyId: principal.keyId, userId: principal.userId, expiresAt: principal.expiresAt };
  return { keyId: principal.keyId, userId: null, expiresAt: keys.globalKey(principal.keyId)?.expiresAt ?? null };
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

const expired = () => new ApiError('token_expired', 'the access token has expired');

/** A tenant key as its holder may use it now: its permissions capped by the user's current membership. */
function tenantPrincipal(catalog: Catalog, t: TenantKeyInfo): TenantPrincipal {
  const member = catalog.identity.membership(t.tenantId, t.userId);
  const permissions = member ? effectivePermissions(t.permissions, member.permissions) : [];
  return { kind: 'tenant', keyId: t.id, tenantId: t.tenantId, userId: t.userId, permissions, projectIds: t.projectIds, expiresAt: t.expiresAt };
}

/** The tenant key's access to one tenant (and project, when given); 403 otherwise. */
export function authorizeTenant(principal: Principal, tenantId: string, needed: Permission, projectId?: string): TenantPrincipal {
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

/**
 * Checks again, against the catalog as it is now, what a tenant key was
 * allowed when a long request (a graph stream) began: the error it would get
 * now (revoked, expired, membership gone or too small), or undefined while
 * it still holds `needed` on the tenant and project.
 */
export function recheckTenant(catalog: Catalog, principal: TenantPrincipal, needed: Permission, projectId?: string): ApiError | undefined {
  const info = catalog.keys.tenantKey(principal.tenantId, principal.keyId);
  if (!info || info.revokedAt !== null) return new ApiError('invalid_token', 'the access token was revoked');
  if (isExpired(info)) return expired();
  try {
    authorizeTenant(tenantPrincipal(catalog, info), principal.tenantId, needed, projectId);
    return undefined;
  } catch (error) {
    return error as ApiError;
  }
}

/**
 * Key checking (authorization is authorizeTenant, asked through api/service/access.ts). 401 when the key is missing,
 * unknown, revoked or of the wrong type for /api/tenant and /api/user (401
 * `token_expired` once its expiry has passed); 403 when a valid key lacks the
 * tenant, project or permission.
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
    const { keys } = this.catalog;
    let principal: Principal | undefined;
    const global = keys.matchGlobal(key);
    if (global) {
      if (isExpired(global)) throw expired();
      keys.touch('global', global.id);
      principal = { kind: 'global', keyId: global.id };
    } else {
      const t = keys.matchTenant(key);
      if (t) {
        if (isExpired(t)) throw expired();
        keys.touch('tenant', t.id);
        principal = tenantPrincipal(this.catalog, t);
      }
    }
    if (!principal) throw new ApiError('invalid_token', 'the access token is invalid or revoked');
    if (access === 'global' && principal.kind !== 'global') throw new ApiError('invalid_token', 'this endpoint requires a global API key; a tenant key is not accepted');
    const wait = this.limiter.take(principal.keyId);
    if (wait !== undefined) throw new ApiError('rate_limited', 'too many requests for this key; retry later', { 'retry-after': String(wait) });
    return principal;
  }

  // Authorizing a key for a tenant or project is a use case of its own, asked by every face: api/service/access.ts.
}
