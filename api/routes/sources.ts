import { z } from 'zod';
import { mappingSchema, FORMATS, sourceInputSchema } from '../../connectors/kafka/index.js';
import type { Principal } from '../auth.js';
import type { Permission } from '../catalog/index.js';
import type { AppContext } from '../context.js';
import { route } from '../route.js';
import { pageOf, pageQuery } from '../paging.js';
import type { PcgService } from '../service/index.js';
import { guid, projectParams } from '../schemas.js';
import { sourceStatusSchema } from '../source-status.js';

const isoTime = z.string().describe('ISO 8601 UTC');

export const sourceSchema = z
  .object({
    id: guid,
    tenantId: guid,
    projectId: guid,
    name: z.string(),
    cluster: z.string().nullable().describe('the Kafka cluster it reads (null: declared before clusters, by brokers no granted cluster has)'),
    brokers: z.array(z.string()).describe("the cluster's brokers"),
    topic: z.string(),
    groupId: z.string().describe('the consumer group pcg derives: <prefix>.<tenant id>.<source id>[.<groupSuffix>]'),
    groupSuffix: z.string().nullable(),
    format: z.enum(FORMATS),
    mapping: mappingSchema,
    start: z.union([z.enum(['earliest', 'latest']), z.object({ timestamp: z.string() })]),
    sasl: z.object({ mechanism: z.string(), username: z.string() }).nullable().describe("the tenant's login on a cluster whose ACLs decide; the password is sealed at rest and never returned"),
    tls: z.object({ cert: z.string(), hasKey: z.boolean() }).nullable().describe("the tenant's client certificate on such a cluster; the key is sealed and never returned"),
    changelog: z.boolean().describe('applied chunks are also written to the changelog topic <groupId>.pcg-changelog, from which a host without the state restores it'),
    paused: z.boolean(),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: 'Source' });

const sourceWithStatusSchema = sourceSchema.extend({ status: sourceStatusSchema }).meta({ id: 'SourceWithStatus' });

const sourceParams = z.object({ tenantId: guid, projectId: guid, sourceId: guid });

const updateBody = z
  .object({ name: z.string().trim().min(1).max(200).optional(), format: z.enum(FORMATS).optional(), mapping: mappingSchema.optional() })
  .strict();

const deadLetterSchema = z
  .object({
    id: z.string().describe('cursor: <partition>:<row>'),
    partition: z.number().int(),
    location: z.string().describe('topic/partition@offset'),
    reason: z.string(),
    payload: z.string().describe('the message as text (first 4 KiB), or the mapped record'),
    raw: z.string().describe('the message bytes kept (at most 64 KiB), base64'),
    receivedAt: isoTime,
  })
  .meta({ id: 'DeadLetter' });

/**
 * Kafka sources of a project: subscribe, inspect (status with offsets and lag),
 * pause, resume, change the mapping, delete; dead letters listed and replayed:
 * the use cases of api/service/sources.ts.
 */
export function sourceRoutes(ctx: AppContext, service: PcgService) {
  const base = '/api/:tenantId/project/:projectId/source';
  const grant = (principal: Principal | undefined, p: { tenantId: string; projectId: string }, needed: Permission) => service.access.grant(principal!, p.tenantId, p.projectId, needed);
  return [
    route({
      method: 'POST',
      url: base,
      summary: 'Subscribe the project to a topic of a Kafka cluster granted to the tenant (409 when another tenant holds the topic)',
      tag: 'sources',
      access: { tenant: 'write' },
      params: projectParams,
      body: sourceInputSchema,
      status: 201,
      response: sourceSchema,
      handler: ({ params, body, principal }) => service.sources.subscribe(grant(principal, params, 'write'), body),
    }),
    route({
      method: 'GET',
      url: base,
      summary: "List the project's sources with their status, a page at a time",
      tag: 'sources',
      access: { tenant: 'read' },
      params: projectParams,
      query: pageQuery(ctx.config),
      response: pageOf(sourceWithStatusSchema),
      handler: ({ params, query, principal }) => service.sources.list(grant(principal, params, 'read'), query),
    }),
    route({
      method: 'GET',
      url: `${base}/:sourceId`,
      summary: 'Read a source with its status: assigned partitions, stored and committed offsets, lag, events applied, dead letters, last error',
      tag: 'sources',
      access: { tenant: 'read' },
      params: sourceParams,
      response: sourceWithStatusSchema,
      handler: ({ params, principal }) => service.sources.get(grant(principal, params, 'read'), params.sourceId),
    }),
    route({
      method: 'PUT',
      url: `${base}/:sourceId`,
      summary: "Change a source's name, format or mapping (its runner restarts from the stored offsets)",
      tag: 'sources',
      access: { tenant: 'write' },
      params: sourceParams,
      body: updateBody,
      response: sourceSchema,
      handler: ({ params, body, principal }) => service.sources.update(grant(principal, params, 'write'), params.sourceId, body),
    }),
    ...(['pause', 'resume'] as const).map((action) =>
      route({
        method: 'POST',
        url: `${base}/:sourceId/${action}`,
        summary: action === 'pause' ? 'Pause a source: its consumer leaves the group; the state keeps its offsets' : 'Resume a paused source from its stored offsets',
        tag: 'sources',
        access: { tenant: 'write' },
        params: sourceParams,
        response: sourceSchema,
        handler: ({ params, principal }) => service.sources.setPaused(grant(principal, params, 'write'), params.sourceId, action === 'pause'),
      }),
    ),
    route({
      method: 'DELETE',
      url: `${base}/:sourceId`,
      summary: 'Delete a source: consuming stops; the events it brought stay in the project',
      tag: 'sources',
      access: { tenant: 'write' },
      params: sourceParams,
      status: 204,
      handler: ({ params, principal }) => service.sources.unsubscribe(grant(principal, params, 'write'), params.sourceId),
    }),
    route({
      method: 'GET',
      url: `${base}/:sourceId/dead-letters`,
      summary: "A source's dead letters: messages that did not parse, map or validate, with their reason and bytes",
      tag: 'sources',
      access: { tenant: 'read' },
      params: sourceParams,
      query: z.object({ after: z.string().regex(/^\d+:\d+$/).optional(), limit: z.coerce.number().int().min(1).max(1000).default(100) }).strict(),
      response: z.object({ items: z.array(deadLetterSchema), next: z.string().nullable() }),
      handler: ({ params, query, principal }) => service.sources.deadLetters(grant(principal, params, 'read'), params.sourceId, query.after, query.limit),
    }),
    route({
      method: 'POST',
      url: `${base}/:sourceId/dead-letters/replay`,
      summary: "Re-map a source's dead letters with its current mapping and apply those that now pass, exactly once",
      tag: 'sources',
      access: { tenant: 'write' },
      params: sourceParams,
      response: z.object({ replayed: z.number().int(), failing: z.number().int(), dataVersion: z.number().int() }).meta({ id: 'ReplayResult' }),
      handler: ({ params, principal }) => service.sources.replay(grant(principal, params, 'write'), params.sourceId),
    }),
  ];
}
