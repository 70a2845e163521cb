import { z } from 'zod';
import { compileMapping, groupIdOf, mappingSchema, FORMATS, sourceInputSchema } from '../../connectors/kafka/index.js';
import type { Catalog } from '../catalog/index.js';
import type { SourceRecord } from '../catalog/index.js';
import { limitName } from '../config.js';
import type { AppContext } from '../context.js';
import { notFound, projectOr404 } from '../context.js';
import { ApiError } from '../errors.js';
import { route } from '../route.js';
import { byCreation, CREATED, mapPage, pageOf, pageOfList, pageQuery } from '../paging.js';
import { guid, projectParams } from '../schemas.js';
import { sourceStatus, sourceStatusSchema } from '../source-status.js';

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

export function view(clusters: Catalog['clusters'], r: SourceRecord): z.infer<typeof sourceSchema> {
  const { input } = r;
  const name = input.cluster ?? clusters.byBrokers(r.tenantId, input.brokers ?? []) ?? null;
  const cluster = name === null ? undefined : clusters.get(name);
  return {
    id: r.id,
    tenantId: r.tenantId,
    projectId: r.projectId,
    name: r.name,
    cluster: name,
    brokers: cluster?.brokers ?? input.brokers ?? [],
    topic: input.topic,
    groupId: groupIdOf(cluster?.groupPrefix ?? 'pcg', r.tenantId, r.id, input.groupSuffix),
    groupSuffix: input.groupSuffix ?? null,
    format: input.format ?? 'pcg',
    mapping: input.mapping ?? {},
    start: input.start ?? 'earliest',
    sasl: input.sasl ? { mechanism: input.sasl.mechanism, username: input.sasl.username } : null,
    tls: input.tls && typeof input.tls === 'object' && typeof input.tls.cert === 'string' ? { cert: input.tls.cert, hasKey: r.hasSecrets && input.tls.key !== undefined } : null,
    changelog: input.changelog ?? false,
    paused: r.paused,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/**
 * Kafka sources of a project: subscribe, inspect (status with offsets and lag),
 * pause, resume, change the mapping, delete; dead letters listed and replayed.
 * The catalog holds the declarations; the supervisor (a thread of `pcg serve`,
 * or `pcg worker`) runs them, so every change here takes effect within a second.
 */
export function sourceRoutes(ctx: AppContext, changed: () => void = () => undefined) {
  const { sources } = ctx.catalog;
  // Sources a project may have at most (each one is a consumer and a state file per partition).
  const maxSources = ctx.config.limitSourcesPerProject;
  const base = '/api/:tenantId/project/:projectId/source';
  const one = (p: z.infer<typeof sourceParams>) => {
    projectOr404(ctx, p.tenantId, p.projectId);
    return sources.get(p.tenantId, p.projectId, p.sourceId) ?? notFound('source');
  };
  const show = (r: SourceRecord) => view(ctx.catalog.clusters, r);
  const withStatus = (r: SourceRecord) => ({ ...show(r), status: sourceStatus(ctx, r) });
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
      handler: ({ params, body }) => {
        projectOr404(ctx, params.tenantId, params.projectId);
        if (sources.countOf(params.projectId) >= maxSources) {
          throw new ApiError('limit_exceeded', `limit ${limitName('limitSourcesPerProject')}: a project may have at most ${maxSources} sources (limit: sources per project)`);
        }
        const created = sources.create(params.tenantId, params.projectId, body);
        if ('refused' in created) throw new ApiError(created.refused === 'topic' ? 'conflict' : 'validation_failed', `body.${created.field}: ${created.message}`);
        changed();
        return show(created);
      },
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
      handler: ({ params, query }) => {
        projectOr404(ctx, params.tenantId, params.projectId);
        return mapPage(pageOfList(sources.list(params.tenantId, params.projectId), query, CREATED, byCreation), withStatus);
      },
    }),
    route({
      method: 'GET',
      url: `${base}/:sourceId`,
      summary: 'Read a source with its status: assigned partitions, stored and committed offsets, lag, events applied, dead letters, last error',
      tag: 'sources',
      access: { tenant: 'read' },
      params: sourceParams,
      response: sourceWithStatusSchema,
      handler: ({ params }) => withStatus(one(params)),
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
      handler: ({ params, body }) => {
        const r = one(params);
        // The declaration as it would be: a format and a mapping that fit each other.
        const input = sourceInputSchema.safeParse({ cluster: 'kept', topic: r.input.topic, format: body.format ?? r.input.format, mapping: body.mapping ?? r.input.mapping, name: body.name ?? r.name });
        if (!input.success) throw new ApiError('validation_failed', input.error.issues.map((i) => `body.${i.path.join('.')}: ${i.message}`).join('; '));
        const updated = sources.update(params.tenantId, params.projectId, params.sourceId, body);
        changed();
        return show(updated ?? notFound('source'));
      },
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
        handler: ({ params }) => {
          one(params);
          const r = sources.setPaused(params.tenantId, params.projectId, params.sourceId, action === 'pause');
          changed();
          return show(r ?? notFound('source'));
        },
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
      handler: ({ params }) => {
        one(params);
        sources.delete(params.tenantId, params.projectId, params.sourceId);
        changed();
      },
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
      handler: ({ params, query }) => {
        const r = one(params);
        const [afterPartition, afterId] = (query.after ?? '-1:0').split(':').map(Number) as [number, number];
        const items: z.infer<typeof deadLetterSchema>[] = [];
        for (const { partition, store } of ctx.states.partsOf(params.projectId, r.id)) {
          if (partition < afterPartition || items.length >= query.limit) continue;
          const after = partition === afterPartition ? afterId : 0;
          for (const l of store.deadLetters({ source: r.id, after, limit: query.limit - items.length })) {
            items.push({
              id: `${partition}:${l.id}`,
              partition,
              location: l.location,
              reason: l.reason,
              payload: l.payload,
              raw: l.raw ? Buffer.from(l.raw).toString('base64') : '',
              receivedAt: new Date(l.receivedAt).toISOString(),
            });
          }
        }
        return { items, next: items.length === query.limit ? items[items.length - 1]!.id : null };
      },
    }),
    route({
      method: 'POST',
      url: `${base}/:sourceId/dead-letters/replay`,
      summary: "Re-map a source's dead letters with its current mapping and apply those that now pass, exactly once",
      tag: 'sources',
      access: { tenant: 'write' },
      params: sourceParams,
      response: z.object({ replayed: z.number().int(), failing: z.number().int(), dataVersion: z.number().int() }).meta({ id: 'ReplayResult' }),
      handler: ({ params }) => {
        const r = one(params);
        const map = compileMapping(r.input.format, r.input.mapping);
        let replayed = 0;
        let failing = 0;
        for (const { store } of ctx.states.partsOf(params.projectId, r.id)) {
          const result = store.replayDeadLetters(r.id, (letter) => (letter.raw ? map(Buffer.from(letter.raw)) : { reason: letter.reason }));
          replayed += result.replayed;
          failing += result.failing;
        }
        if (replayed > 0) ctx.states.announce(params.projectId);
        return { replayed, failing, dataVersion: ctx.states.state(params.projectId).dataVersion };
      },
    }),
  ];
}
