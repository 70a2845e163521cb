import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { wireEventSchemaFor } from '../../engine/index.js';
import { limitName } from '../config.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { route } from '../route.js';
import { byCreation, CREATED, mapPage, pageOf, pageOfList, pageQuery } from '../paging.js';
import type { PcgService } from '../service/index.js';
import { description, name, projectParams, projectSchema, retentionDays, tenantParams } from '../schemas.js';

export const ingestResultSchema = z
  .object({
    accepted: z.number().int(),
    duplicates: z.number().int(),
    rejected: z.number().int(),
    rejections: z.array(z.object({ location: z.string(), reason: z.string() })),
    dataVersion: z.number().int(),
  })
  .meta({ id: 'IngestResult' });

export { eventsOf } from '../ingest-body.js';

/** Aborted when the client goes away before its answer: a batch still waiting for a work thread is then not applied. */
function abandoned(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort(new ApiError('unavailable', 'the client left before its batch was applied'));
  });
  return gone.signal;
}

export function projectRoutes(ctx: AppContext, service: PcgService) {
  // As every face answers a project (api/service/projects.ts): the retention in force and the data version.
  const withVersion = service.projects.view.bind(service.projects);
  const { limitEventsPerRequest: maxEvents } = ctx.config;
  return [
    route({
      method: 'POST',
      url: '/api/:tenantId/project',
      summary: 'Create a project',
      tag: 'projects',
      access: { tenant: 'write' },
      params: tenantParams,
      body: z.object({ name, description: description.optional(), retentionDays: retentionDays.optional() }).strict(),
      status: 201,
      response: projectSchema,
      handler: ({ params, body, principal }) => service.projects.create(principal!, params.tenantId, body),
    }),
    route({
      method: 'GET',
      url: '/api/:tenantId/project',
      summary: 'List the projects this key can see, a page at a time',
      tag: 'projects',
      access: { tenant: 'read' },
      params: tenantParams,
      query: pageQuery(ctx.config),
      response: pageOf(projectSchema),
      handler: ({ params, query, principal }) =>
        // Each project shown reads its data version (its store is opened): the page's projects only.
        mapPage(pageOfList(service.projects.visible(principal!, params.tenantId), query, CREATED, byCreation), withVersion),
    }),
    route({
      method: 'GET',
      url: '/api/:tenantId/project/:projectId',
      summary: 'Read a project',
      tag: 'projects',
      access: { tenant: 'read' },
      params: projectParams,
      response: projectSchema,
      handler: ({ params, principal }) => withVersion(service.access.grant(principal!, params.tenantId, params.projectId, 'read').project),
    }),
    route({
      method: 'PUT',
      url: '/api/:tenantId/project/:projectId',
      summary: 'Update a project',
      tag: 'projects',
      access: { tenant: 'write' },
      params: projectParams,
      body: z.object({ name: name.optional(), description: description.optional(), retentionDays: retentionDays.optional() }).strict(),
      response: projectSchema,
      handler: ({ params, body, principal }) => service.projects.update(service.access.grant(principal!, params.tenantId, params.projectId, 'write'), body),
    }),
    route({
      method: 'DELETE',
      url: '/api/:tenantId/project/:projectId',
      summary: 'Delete a project with its records, event state and files',
      tag: 'projects',
      access: { tenant: 'write' },
      params: projectParams,
      status: 204,
      handler: ({ params, principal }) => service.projects.remove(service.access.grant(principal!, params.tenantId, params.projectId, 'write')),
    }),
    route({
      method: 'POST',
      url: '/api/:tenantId/project/:projectId/events',
      summary: 'Ingest events: a JSON array (application/json) or NDJSON (application/x-ndjson) of wire events',
      tag: 'events',
      access: { tenant: 'write' },
      params: projectParams,
      bodyKind: 'events',
      // A tenant whose work queue is full is refused before its (up to 16 MiB) body is read.
      admit: (params) => ctx.queue.admit((params as { tenantId: string }).tenantId),
      // Documents the wire event; records are checked one by one by the store so that one bad event does not sink the batch.
      body: z
        .array(wireEventSchemaFor(ctx.states.limits))
        .max(maxEvents)
        .describe(`wire events; invalid ones (an event over a PCG_LIMIT_* limit included) are rejected with their reason, the rest accepted; at most ${maxEvents} per request (${limitName('limitEventsPerRequest')})`),
      response: ingestResultSchema,
      // The body arrives as its bytes (api/route.ts) and is parsed, checked and applied on a work thread (api/ingestion.ts).
      handler: async ({ params, body, principal, request, reply }) => {
        const grant = service.access.grant(principal!, params.tenantId, params.projectId, 'write');
        const ndjson = /ndjson/i.test(String(request.headers['content-type'] ?? ''));
        if (!(body instanceof Uint8Array)) throw new ApiError('validation_failed', 'body: expected a JSON array of events, one event object, or NDJSON');
        return service.events.ingest(grant, { body, ndjson }, abandoned(reply));
      },
    }),
  ];
}
