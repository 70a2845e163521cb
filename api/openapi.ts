import { z } from 'zod';
import { errorBodySchema } from './errors.js';
import type { RouteDef } from './route.js';

type Json = Record<string, unknown>;

/**
 * The OpenAPI 3.1 document, generated from the very zod schemas the routes
 * validate with. Named schemas (`.meta({id})`) become components; the rest
 * is inlined.
 */
export function openApiDocument(routes: readonly RouteDef[], info: { version: string }): Json {
  const components: Record<string, unknown> = {};

  const convert = (schema: z.ZodType, io: 'input' | 'output'): Json => {
    const suffix = io === 'input' ? 'Input' : '';
    const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
    const defs = (out.$defs ?? {}) as Record<string, Json>;
    delete out.$defs;
    delete out.$schema;
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (node && typeof node === 'object') {
        const o: Json = {};
        for (const [k, v] of Object.entries(node)) {
          o[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? `#/components/schemas/${v.slice(8)}${suffix}` : rewrite(v);
        }
        return o;
      }
      return node;
    };
    for (const [id, def] of Object.entries(defs)) components[`${id}${suffix}`] = rewrite(def);
    // A named schema at the top comes back as a $ref to itself plus its def; keep the ref.
    const id = (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;
    if (id && !out.$ref && Object.keys(out).length > 0) {
      components[`${id}${suffix}`] = rewrite(out);
      return { $ref: `#/components/schemas/${id}${suffix}` };
    }
    return rewrite(out) as Json;
  };

  const parameters = (schema: z.ZodType | undefined, where: 'path' | 'query'): Json[] => {
    if (!schema) return [];
    const s = convert(schema, 'input');
    const props = (s.properties ?? {}) as Record<string, Json>;
    const required = new Set((s.required ?? []) as string[]);
    return Object.entries(props).map(([name, p]) => ({
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(p.description ? { description: p.description } : {}),
      schema: p,
    }));
  };

  const errorRef = convert(errorBodySchema, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.url.replace(/:(\w+)/g, '{$1}');
    const op: Json = {
      operationId: `${r.method.toLowerCase()}${path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      summary: r.summary,
      tags: [r.tag],
      security: r.access === 'public' ? [] : [{ bearer: [] }],
      parameters: [...parameters(r.params, 'path'), ...parameters(r.query, 'query')],
    };
    if (r.url === '/api/Action/ping/authenticated') {
      (op.parameters as Json[]).push(
        { name: 'X-Tenant-Id', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
        { name: 'X-Project-Id', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
      );
    }
    if (r.bodyKind === 'raw') {
      op.requestBody = { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } };
    } else if (r.bodyKind === 'events') {
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: convert(r.body!, 'input') }, 'application/x-ndjson': { schema: { type: 'string', description: 'one wire event per line' } } },
      };
    } else if (r.body) {
      op.requestBody = { required: true, content: { 'application/json': { schema: convert(r.body, 'input') } } };
    }
    const status = String(r.status ?? 200);
    const responses: Json = {};
    if (r.status === 204) responses['204'] = { description: 'done' };
    else if (r.produces) responses[status] = { description: 'success', content: { [r.produces]: { schema: { type: 'string' } } } };
    else responses[status] = { description: 'success', content: { 'application/json': { schema: r.response ? convert(r.response, 'output') : {} } } };
    if (r.tag === 'graph' && r.url.endsWith('/graph')) responses['304'] = { description: 'not modified (If-None-Match matched the ETag)' };
    if (r.url === '/health/ready') responses['503'] = { description: 'not ready: the failing checks say why', content: { 'application/json': { schema: convert(r.response!, 'output') } } };
    responses.default = { description: 'error', content: { 'application/json': { schema: errorRef } } };
    op.responses = responses;
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'pcg: process context graph service',
      version: info.version,
      description: 'Multi-tenant process intelligence: events in, a process context graph out. Authenticate with `Authorization: Bearer <key>`.',
    },
    servers: [{ url: '/' }],
    paths,
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  };
}
