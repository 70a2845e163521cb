import { z } from 'zod';
import { clusterInputSchema, clusterName, CREDENTIALS } from '../../connectors/kafka/index.js';
import type { AppContext } from '../context.js';
import { notFound } from '../context.js';
import { ApiError } from '../errors.js';
import { route } from '../route.js';
import { mapPage, pageOf, pageOfList, pageQuery } from '../paging.js';
import { guid, listOf, tenantParams } from '../schemas.js';

const isoTime = z.string().describe('ISO 8601 UTC');
const topicName = z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'a Kafka topic name: letters, digits, . _ -');

const clusterSchema = z
  .object({
    name: z.string(),
    origin: z.enum(['config', 'api']).describe('config: PCG_KAFKA_CLUSTERS (changed only there); api: declared with the global key'),
    brokers: z.array(z.string()),
    credentials: z.enum(CREDENTIALS).describe("service: pcg reads with the cluster's own login, topics are claimed per tenant; tenant: each source brings its tenant's login and the broker's ACLs decide"),
    groupPrefix: z.string(),
    sasl: z.object({ mechanism: z.string(), username: z.string() }).nullable().describe("pcg's own login; the password is sealed and never returned"),
    tls: z
      .union([z.boolean(), z.object({ ca: z.string().optional(), cert: z.string().optional(), rejectUnauthorized: z.boolean().optional(), hasKey: z.boolean() })])
      .nullable(),
    allTenants: z.boolean(),
    tenants: z.array(guid).describe('the tenants it is granted to, by configuration or the global key'),
    revision: z.number().int(),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: 'KafkaCluster' });

const topicAccessSchema = z
  .object({ topic: z.string(), tenantId: guid, how: z.enum(['claimed', 'granted']).describe('claimed: its first subscriber; granted: by the global key'), createdAt: isoTime })
  .meta({ id: 'KafkaTopicAccess' });

const grantedClusterSchema = z
  .object({
    name: z.string(),
    brokers: z.array(z.string()),
    credentials: z.enum(CREDENTIALS),
    groupPrefix: z.string().describe('groups are <groupPrefix>.<tenant id>.<source id>'),
    topics: z.array(z.string()).describe('topics this tenant holds on it (credentials service); another tenant cannot subscribe them'),
  })
  .meta({ id: 'GrantedKafkaCluster' });

const clusterParams = z.object({ cluster: clusterName });
const grantParams = z.object({ cluster: clusterName, tenantId: guid });
const topicParams = z.object({ cluster: clusterName, topic: topicName, tenantId: guid });

/**
 * Kafka clusters: the operator declares them (PCG_KAFKA_CLUSTERS, or here with
 * the global key) and grants them to tenants; a tenant lists what it was
 * granted and subscribes only there (routes/sources.ts). On a cluster pcg reads
 * with its own login, the first tenant to subscribe a topic holds it; the
 * global key may let another tenant read it too, or take it back.
 */
export function clusterRoutes(ctx: AppContext, changed: () => void = () => undefined) {
  const { clusters, identity } = ctx.catalog;
  const clusterOr404 = (name: string) => clusters.get(name) ?? notFound('Kafka cluster');
  const tenantOr404 = (id: string) => identity.tenant(id) ?? notFound('tenant');
  const page = pageQuery(ctx.config);
  const configured = (name: string): never => {
    throw new ApiError('conflict', `the cluster '${name}' is declared by PCG_KAFKA_CLUSTERS: change it there`);
  };
  return [
    route({ method: 'GET', url: '/admin/kafka-clusters', summary: 'List the Kafka clusters sources may read, with their grants (no secrets), a page at a time', tag: 'kafka clusters', access: 'global', query: page, response: pageOf(clusterSchema), handler: ({ query }) => pageOfList(clusters.list(), query, ['string'], (c) => [c.name]) }),
    route({ method: 'GET', url: '/admin/kafka-clusters/:cluster', summary: 'Read a Kafka cluster', tag: 'kafka clusters', access: 'global', params: clusterParams, response: clusterSchema, handler: ({ params }) => clusterOr404(params.cluster) }),
    route({
      method: 'PUT',
      url: '/admin/kafka-clusters/:cluster',
      summary: 'Declare a Kafka cluster, or change one the global key declared (its sources restart); 409 for a configured one',
      tag: 'kafka clusters',
      access: 'global',
      params: clusterParams,
      body: clusterInputSchema,
      response: clusterSchema,
      handler: ({ params, body }) => {
        if (clusters.put(params.cluster, body) === 'configured') configured(params.cluster);
        changed();
        return clusterOr404(params.cluster);
      },
    }),
    route({
      method: 'DELETE',
      url: '/admin/kafka-clusters/:cluster',
      summary: 'Delete a Kafka cluster the global key declared, with its grants and topic claims: its sources stop',
      tag: 'kafka clusters',
      access: 'global',
      params: clusterParams,
      status: 204,
      handler: ({ params }) => {
        const result = clusters.delete(params.cluster);
        if (result === 'not_found') notFound('Kafka cluster');
        if (result === 'configured') configured(params.cluster);
        changed();
      },
    }),
    route({
      method: 'PUT',
      url: '/admin/kafka-clusters/:cluster/tenants/:tenantId',
      summary: "Grant a Kafka cluster to a tenant: its sources may name it",
      tag: 'kafka clusters',
      access: 'global',
      params: grantParams,
      response: clusterSchema,
      handler: ({ params }) => {
        clusterOr404(params.cluster);
        tenantOr404(params.tenantId);
        clusters.grant(params.cluster, params.tenantId);
        changed();
        return clusterOr404(params.cluster);
      },
    }),
    route({
      method: 'DELETE',
      url: '/admin/kafka-clusters/:cluster/tenants/:tenantId',
      summary: "Take a Kafka cluster's grant back from a tenant: its sources there stop (409 for a grant PCG_KAFKA_CLUSTERS makes)",
      tag: 'kafka clusters',
      access: 'global',
      params: grantParams,
      status: 204,
      handler: ({ params }) => {
        const cluster = clusterOr404(params.cluster);
        tenantOr404(params.tenantId);
        if (!clusters.ungrant(params.cluster, params.tenantId)) {
          if (cluster.origin === 'config' && (cluster.allTenants || cluster.tenants.includes(params.tenantId))) configured(params.cluster);
          notFound('grant');
        }
        changed();
      },
    }),
    route({
      method: 'GET',
      url: '/admin/kafka-clusters/:cluster/topics',
      summary: 'The topics tenants hold on a Kafka cluster pcg reads with its own login: claimed by their first subscriber, or granted',
      tag: 'kafka clusters',
      access: 'global',
      params: clusterParams,
      query: page,
      response: pageOf(topicAccessSchema),
      handler: ({ params, query }) => {
        clusterOr404(params.cluster);
        return pageOfList(clusters.topics(params.cluster), query, ['string', 'string', 'string'], (t) => [t.topic, t.createdAt, t.tenantId]);
      },
    }),
    route({
      method: 'PUT',
      url: '/admin/kafka-clusters/:cluster/topics/:topic/tenants/:tenantId',
      summary: 'Let a tenant read a topic of a Kafka cluster, although another tenant claimed it',
      tag: 'kafka clusters',
      access: 'global',
      params: topicParams,
      response: listOf(topicAccessSchema),
      handler: ({ params }) => {
        clusterOr404(params.cluster);
        tenantOr404(params.tenantId);
        clusters.grantTopic(params.cluster, params.topic, params.tenantId);
        changed();
        return { items: clusters.topics(params.cluster).filter((t) => t.topic === params.topic) };
      },
    }),
    route({
      method: 'DELETE',
      url: '/admin/kafka-clusters/:cluster/topics/:topic/tenants/:tenantId',
      summary: "Take a tenant's hold on a topic back (claimed or granted): its sources on it stop, and the topic is free to be claimed again once no tenant holds it",
      tag: 'kafka clusters',
      access: 'global',
      params: topicParams,
      status: 204,
      handler: ({ params }) => {
        clusterOr404(params.cluster);
        if (!clusters.releaseTopic(params.cluster, params.topic, params.tenantId)) notFound('topic hold');
        changed();
      },
    }),
    route({
      method: 'GET',
      url: '/api/:tenantId/kafka-cluster',
      summary: 'The Kafka clusters granted to your tenant, and the topics it holds on each',
      tag: 'sources',
      access: { tenant: 'read' },
      params: tenantParams,
      query: page,
      response: pageOf(grantedClusterSchema),
      handler: ({ params, query }) =>
        mapPage(pageOfList(clusters.grantedTo(params.tenantId), query, ['string'], (c) => [c.name]), (c) => ({
          name: c.name,
          brokers: c.brokers,
          credentials: c.credentials,
          groupPrefix: c.groupPrefix,
          topics: [...new Set(clusters.topics(c.name).filter((t) => t.tenantId === params.tenantId).map((t) => t.topic))],
        })),
    }),
  ];
}
