import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import { blockSpecSchema, stringifyWithText, type BlockSpec } from '../../engine/projects/index.js';
import type { Principal } from '../auth.js';
import type { PcgService } from '../service/index.js';
import type { ProjectRecord } from '../catalog/index.js';
import type { AppContext } from '../context.js';
import { notFound, projectOr404 } from '../context.js';
import { ApiError } from '../errors.js';
import { route } from '../route.js';
import { limitName } from '../config.js';
import { mapPage, pageOf, pageQuery, recordPage } from '../paging.js';
import { guid, name, projectParams, type Scope } from '../schemas.js';
import type { lineage } from './analysis.js';

export const blockSchema = z
  .object({ id: guid, projectId: guid, notebookId: guid, position: z.number().int(), name: z.string(), spec: blockSpecSchema, createdAt: z.string(), updatedAt: z.string() })
  .meta({ id: 'Block' });
export const blockResultSchema = z
  .object({ blockId: guid, name: z.string(), type: z.string(), dataVersion: z.number().int(), result: z.record(z.string(), z.unknown()) })
  .meta({ id: 'BlockResult' });
export const dashboardSchema = z
  .object({ id: guid, projectId: guid, name: z.string(), blockIds: z.array(guid), createdAt: z.string(), updatedAt: z.string() })
  .meta({ id: 'Dashboard' });

const notebookParams = projectParams.extend({ investigationId: guid, notebookId: guid });
const blockParams = notebookParams.extend({ blockId: guid });
const dashboardParams = projectParams.extend({ dashboardId: guid });

const blockView = (r: ProjectRecord) => ({
  id: r.id,
  projectId: r.projectId,
  notebookId: r.parentId!,
  position: r.position,
  name: r.name,
  spec: blockSpecSchema.parse(r.body.spec),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/** Block results are sent with a graph block's document spliced in as served (JsonText), never parsed on the loop. */
const json = (reply: FastifyReply, value: unknown) => reply.type('application/json; charset=utf-8').send(stringifyWithText(value));

/** Blocks (typed steps of a notebook), running them, and dashboards over their results. */
export function blockRoutes(ctx: AppContext, service: PcgService, l: ReturnType<typeof lineage>) {
  const { blocks, notebooks, investigations, dashboards } = ctx.catalog;
  const read = { tenant: 'read' as const };
  const write = { tenant: 'write' as const };
  const base = '/api/:tenantId/project/:projectId/investigation/:investigationId/notebook/:notebookId';

  const block = (p: z.infer<typeof blockParams>) => {
    l.notebook(p.tenantId, p.projectId, p.investigationId, p.notebookId);
    const b = blocks.get(p.tenantId, p.projectId, p.blockId);
    return b && b.parentId === p.notebookId ? b : notFound('block');
  };
  /** A stored block run by the service (api/service/blocks.ts), for a caller granted its project. */
  const execute = async (principal: Principal | undefined, b: ProjectRecord, scopes: Scope[]) => {
    const spec = blockSpecSchema.parse(b.body.spec) as BlockSpec;
    const grant = service.access.grant(principal!, b.tenantId, b.projectId, 'read');
    const { dataVersion, result } = await service.blocks.run(grant, spec, `block:${b.id}`, scopes);
    return { blockId: b.id, name: b.name, type: spec.type, dataVersion, result };
  };
  /** A block's own scope when run alone or on a dashboard: its investigation's. */
  const scopeOfBlock = (b: ProjectRecord): Scope[] => {
    const nb = notebooks.get(b.tenantId, b.projectId, b.parentId!);
    const inv = nb && investigations.get(b.tenantId, b.projectId, nb.parentId!);
    return inv ? [l.scopeOf(inv)] : [];
  };
  const dashboardView = (r: ProjectRecord) => ({ id: r.id, projectId: r.projectId, name: r.name, blockIds: (r.body.blockIds ?? []) as string[], createdAt: r.createdAt, updatedAt: r.updatedAt });
  const checkBlocks = (t: string, p: string, ids: string[]) => {
    for (const id of ids) if (!blocks.get(t, p, id)) throw new ApiError('validation_failed', `body.blockIds: no block ${id} in this project`);
  };
  const dashboard = (t: string, p: string, d: string) => {
    projectOr404(ctx, t, p);
    return dashboards.get(t, p, d) ?? notFound('dashboard');
  };
  const page = pageQuery(ctx.config);
  const maxBlocks = ctx.config.limitBlocksPerNotebook;
  /** PCG_LIMIT_BLOCKS_PER_NOTEBOOK: a notebook runs its blocks one after another, and 2,037 of them ran 107 s. */
  const blockCap = (what: string, blocksNow: number) =>
    new ApiError('limit_exceeded', `limit ${limitName('limitBlocksPerNotebook')}: a notebook may have at most ${maxBlocks} blocks; ${what} has ${blocksNow}`);
  const dashBody = z.object({ name, blockIds: z.array(guid).max(200).default([]) }).strict();
  const dashPatch = z.object({ name: name.optional(), blockIds: z.array(guid).max(200).optional() }).strict();

  return [
    route({
      method: 'POST', url: `${base}/block`, summary: 'Append a block (filter, graph, variants, kpi, conformance) to a notebook', tag: 'blocks', access: write, params: notebookParams,
      body: z.object({ name: name.optional(), spec: blockSpecSchema }).strict(), status: 201, response: blockSchema,
      handler: ({ params, body }) => {
        l.notebook(params.tenantId, params.projectId, params.investigationId, params.notebookId);
        const has = blocks.count(params.tenantId, params.projectId, params.notebookId);
        if (has >= maxBlocks) throw blockCap('this one', has);
        ctx.usage.checkRecords(params.tenantId);
        return blockView(blocks.create(params.tenantId, params.projectId, params.notebookId, body.name ?? body.spec.type, { spec: body.spec }));
      },
    }),
    route({
      method: 'GET', url: `${base}/block`, summary: 'List the blocks of a notebook in order, a page at a time', tag: 'blocks', access: read, params: notebookParams, query: page, response: pageOf(blockSchema),
      handler: ({ params, query }) => {
        l.notebook(params.tenantId, params.projectId, params.investigationId, params.notebookId);
        return mapPage(recordPage(blocks, params.tenantId, params.projectId, params.notebookId, query), blockView);
      },
    }),
    route({ method: 'GET', url: `${base}/block/:blockId`, summary: 'Read a block', tag: 'blocks', access: read, params: blockParams, response: blockSchema, handler: ({ params }) => blockView(block(params)) }),
    route({
      method: 'PUT', url: `${base}/block/:blockId`, summary: 'Update a block (name, spec, position)', tag: 'blocks', access: write, params: blockParams,
      body: z.object({ name: name.optional(), spec: blockSpecSchema.optional(), position: z.number().int().min(0).max(1_000_000).optional() }).strict(), response: blockSchema,
      handler: ({ params, body }) => {
        const old = block(params);
        return blockView(blocks.update(params.tenantId, params.projectId, old.id, { name: body.name, position: body.position, body: body.spec ? { spec: body.spec } : old.body })!);
      },
    }),
    route({
      method: 'DELETE', url: `${base}/block/:blockId`, summary: 'Delete a block', tag: 'blocks', access: write, params: blockParams, status: 204,
      handler: ({ params }) => {
        block(params);
        blocks.delete(params.tenantId, params.projectId, params.blockId);
      },
    }),
    route({
      method: 'POST', url: `${base}/block/:blockId/execute`, summary: "Run one block alone over its investigation's scope", tag: 'blocks', access: read, params: blockParams, response: blockResultSchema,
      handler: async ({ params, reply, principal }) => json(reply, await execute(principal, block(params), scopeOfBlock(block(params)))),
    }),
    route({
      method: 'POST', url: `${base}/execute`, summary: 'Run a notebook: its blocks in order, each filter narrowing the blocks after it', tag: 'notebooks', access: read, params: notebookParams,
      response: z.object({ notebookId: guid, results: z.array(blockResultSchema) }),
      handler: async ({ params, reply, principal }) => {
        const inv = l.investigation(params.tenantId, params.projectId, params.investigationId);
        l.notebook(params.tenantId, params.projectId, params.investigationId, params.notebookId);
        // A notebook made before the cap may have more: it is not run (its blocks run one by one).
        const has = blocks.count(params.tenantId, params.projectId, params.notebookId);
        if (has > maxBlocks) throw blockCap('this one, made before the limit,', has);
        const scopes: Scope[] = [l.scopeOf(inv)];
        const results = [];
        for (const b of blocks.list(params.tenantId, params.projectId, params.notebookId)) {
          results.push(await execute(principal, b, [...scopes]));
          const spec = b.body.spec as BlockSpec;
          if (spec.type === 'filter') scopes.push(spec.scope);
        }
        return json(reply, { notebookId: params.notebookId, results });
      },
    }),
    route({
      method: 'POST', url: '/api/:tenantId/project/:projectId/dashboard', summary: 'Create a dashboard: a named set of blocks whose results it shows', tag: 'dashboards', access: write, params: projectParams,
      body: dashBody, status: 201, response: dashboardSchema,
      handler: ({ params, body }) => {
        projectOr404(ctx, params.tenantId, params.projectId);
        checkBlocks(params.tenantId, params.projectId, body.blockIds);
        ctx.usage.checkRecords(params.tenantId);
        return dashboardView(dashboards.create(params.tenantId, params.projectId, null, body.name, { blockIds: body.blockIds }));
      },
    }),
    route({
      method: 'GET', url: '/api/:tenantId/project/:projectId/dashboard', summary: 'List dashboards, a page at a time', tag: 'dashboards', access: read, params: projectParams, query: page, response: pageOf(dashboardSchema),
      handler: ({ params, query }) => {
        projectOr404(ctx, params.tenantId, params.projectId);
        return mapPage(recordPage(dashboards, params.tenantId, params.projectId, null, query), dashboardView);
      },
    }),
    route({
      method: 'GET', url: '/api/:tenantId/project/:projectId/dashboard/:dashboardId', summary: 'Read a dashboard', tag: 'dashboards', access: read, params: dashboardParams, response: dashboardSchema,
      handler: ({ params }) => dashboardView(dashboard(params.tenantId, params.projectId, params.dashboardId)),
    }),
    route({
      method: 'PUT', url: '/api/:tenantId/project/:projectId/dashboard/:dashboardId', summary: 'Update a dashboard', tag: 'dashboards', access: write, params: dashboardParams, body: dashPatch, response: dashboardSchema,
      handler: ({ params, body }) => {
        const old = dashboard(params.tenantId, params.projectId, params.dashboardId);
        if (body.blockIds) checkBlocks(params.tenantId, params.projectId, body.blockIds);
        return dashboardView(dashboards.update(params.tenantId, params.projectId, old.id, { name: body.name, body: { blockIds: body.blockIds ?? old.body.blockIds ?? [] } })!);
      },
    }),
    route({
      method: 'DELETE', url: '/api/:tenantId/project/:projectId/dashboard/:dashboardId', summary: 'Delete a dashboard', tag: 'dashboards', access: write, params: dashboardParams, status: 204,
      handler: ({ params }) => {
        dashboard(params.tenantId, params.projectId, params.dashboardId);
        dashboards.delete(params.tenantId, params.projectId, params.dashboardId);
      },
    }),
    route({
      method: 'GET', url: '/api/:tenantId/project/:projectId/dashboard/:dashboardId/results', summary: "The current results of a dashboard's blocks (blocks deleted since are left out)", tag: 'dashboards', access: read, params: dashboardParams,
      response: z.object({ dashboardId: guid, results: z.array(blockResultSchema) }),
      handler: async ({ params, reply, principal }) => {
        const d = dashboardView(dashboard(params.tenantId, params.projectId, params.dashboardId));
        const results = [];
        for (const id of d.blockIds) {
          const b = blocks.get(params.tenantId, params.projectId, id);
          if (b) results.push(await execute(principal, b, scopeOfBlock(b)));
        }
        return json(reply, { dashboardId: d.id, results });
      },
    }),
  ];
}
