import { z } from 'zod';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { route } from '../route.js';
import { authenticatedPingSchema, guid, pingSchema } from '../schemas.js';
import { projectOf } from '../service/access.js';

export function pingRoutes(ctx: AppContext) {
  return [
    route({
      method: 'GET',
      url: '/api/Action/ping',
      summary: 'Connectivity check; no credentials needed',
      tag: 'ping',
      access: 'public',
      response: pingSchema,
      handler: () => ({ status: 'ok' as const, timestamp: new Date().toISOString() }),
    }),
    route({
      method: 'GET',
      url: '/api/Action/ping/authenticated',
      summary: 'Checks a tenant key against X-Tenant-Id and X-Project-Id',
      tag: 'ping',
      access: 'any-key',
      response: authenticatedPingSchema,
      handler: ({ request, principal }) => {
        // GUIDs in any letter case name the same tenant and project.
        const lower = (h: string | string[] | undefined) => (typeof h === 'string' ? h.toLowerCase() : h);
        const tenant = lower(request.headers['x-tenant-id']);
        const project = lower(request.headers['x-project-id']);
        if (typeof tenant !== 'string' || typeof project !== 'string' || !tenant || !project) {
          throw new ApiError('missing_headers', 'the X-Tenant-Id and X-Project-Id headers are required');
        }
        const ids = z.object({ tenant: guid, project: guid }).safeParse({ tenant, project });
        if (!ids.success) throw new ApiError('validation_failed', 'X-Tenant-Id and X-Project-Id must be GUIDs');
        if (principal?.kind !== 'tenant') throw new ApiError('forbidden', 'a global key is not tied to a tenant; use a tenant API key');
        if (principal.tenantId !== tenant) throw new ApiError('forbidden', 'this key has no access to that tenant');
        if (!projectOf(ctx.catalog, tenant, project) || (principal.projectIds && !principal.projectIds.includes(project))) {
          throw new ApiError('forbidden', 'this key has no access to that project');
        }
        if (principal.permissions.length === 0) throw new ApiError('forbidden', 'this key has no permissions left in that tenant');
        return {
          status: 'authenticated' as const,
          timestamp: new Date().toISOString(),
          tenantId: tenant,
          projectId: project,
          userId: principal.userId,
          permissions: principal.permissions,
        };
      },
    }),
  ];
}
