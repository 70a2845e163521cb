import { authorizeTenant, type Principal, type TenantPrincipal } from '../auth.js';
import type { Catalog, Permission, Project } from '../catalog/index.js';
import { ApiError } from '../errors.js';

/**
 * The caller's access to a tenant and to one of its projects: the one place
 * where GUIDs are lower-cased, a key is authorized (403) and a project is
 * looked up in the catalog (404). The HTTP routes (api/route.ts and the
 * handlers), MCP's tools (api/mcp/local.ts) and the other use cases of this
 * folder ask here; test/api/service-layer.test.ts fails when a face does it by
 * itself.
 */

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GUIDs name the same tenant, project or key in any letter case: they are compared in lower case. Other ids are kept. */
export function lowerGuid(id: string): string {
  return GUID.test(id) ? id.toLowerCase() : id;
}

/** An object's GUID values (a request's path parameters) in lower case. */
export function lowerGuids(params: unknown): unknown {
  if (params === null || typeof params !== 'object') return params;
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? lowerGuid(v) : v]));
}

/** The key's access to one tenant (and project, when given), or 403: Auth's rule (api/auth.ts), asked here by every face. */
export function authorize(principal: Principal, tenantId: string, needed: Permission, projectId?: string): TenantPrincipal {
  return authorizeTenant(principal, tenantId, needed, projectId);
}

/** A tenant key, or 403 with the face's words (`refusal`) for the global key. */
export function tenantCaller(principal: Principal, refusal: string): TenantPrincipal {
  if (principal.kind !== 'tenant') throw new ApiError('forbidden', refusal);
  return principal;
}

/** The project of the tenant, or undefined: for checks that are not access (a key's project list, the authenticated ping). */
export function projectOf(catalog: Pick<Catalog, 'projects'>, tenantId: string, projectId: string): Project | undefined {
  return catalog.projects.get(tenantId, projectId);
}

/** The project of the tenant, or 404 (`missing`: the message; "project not found" by default). */
export function projectOr404(catalog: Pick<Catalog, 'projects'>, tenantId: string, projectId: string, missing = 'project not found'): Project {
  return projectOf(catalog, tenantId, projectId) ?? notFound(missing);
}

function notFound(message: string): never {
  throw new ApiError('not_found', message);
}

/**
 * A project the caller was granted: made only by `ProjectAccess.grant`, taken
 * by every read use case of this folder, so none can be run on a project
 * whose access was not checked.
 */
export interface ProjectGrant {
  readonly tenantId: string;
  /** In lower case. */
  readonly projectId: string;
  readonly project: Project;
  readonly caller: TenantPrincipal;
  readonly [granted]: true;
}
declare const granted: unique symbol;

export class ProjectAccess {
  constructor(private readonly catalog: Pick<Catalog, 'projects'>) {}

  /**
   * The caller's access to one project of a tenant: the ids lower-cased, the key authorized for `needed` (403 for
   * another tenant, a project outside a scoped key or a missing permission), the project looked up (404, `missing`).
   */
  grant(principal: Principal, tenantId: string, projectId: string, needed: Permission, missing?: string): ProjectGrant {
    const tenant = lowerGuid(tenantId);
    const id = lowerGuid(projectId);
    const caller = authorize(principal, tenant, needed, id);
    const project = projectOr404(this.catalog, tenant, id, missing);
    return { tenantId: tenant, projectId: id, project, caller } as ProjectGrant;
  }
}
