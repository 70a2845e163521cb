import { z } from 'zod';
import type { ProjectRecord } from '../catalog/index.js';
import type { AppContext } from '../context.js';
import { notFound, projectOr404 } from '../context.js';
import type { PcgService } from '../service/index.js';
import { route } from '../route.js';
import { mapPage, pageOf, pageQuery, recordPage } from '../paging.js';
import { description, guid, name, projectParams, scopeSchema, type Scope } from '../schemas.js';
import { blockRoutes } from './blocks.js';

export const investigationSchema = z
  .object({ id: guid, projectId: guid, name: z.string(), description: z.string(), scope: scopeSchema, createdAt: z.string(), updatedAt: z.string() })
  .meta({ id: 'Investigation' });
export const notebookSchema = z
  .object({ id: guid, projectId: guid, investigationId: guid, name: z.string(), description: z.string(), blockIds: z.array(guid), createdAt: z.string(), updatedAt: z.string() })
  .meta({ id: 'Notebook' });

const investigationParams = projectParams.extend({ investigationId: guid });
const notebookParams = investigationParams.extend({ notebookId: guid });

/** Ancestry checks shared by notebooks, blocks and dashboards: every id must belong to the one above it. */
export function lineage(ctx: AppContext) {
  const { investigations, notebooks, blocks } = ctx.catalog;
  const investigation = (t: string, p: string, i: string) => {
    projectOr404(ctx, t, p);
    return investigations.get(t, p, i) ?? notFound('investigation');
  };
  const notebook = (t: string, p: string, i: string, n: string) => {
    investigation(t, p, i);
    const nb = notebooks.get(t, p, n);
    return nb && nb.parentId === i ? nb : notFound('notebook');
  };
  const scopeOf = (inv: ProjectRecord): Scope => scopeSchema.parse(inv.body.scope ?? {});
  const investigationView = (r: ProjectRecord) => ({
    id: r.id,
    projectId: r.projectId,
    name: r.name,
    description: String(r.body.description ?? ''),
    scope: scopeOf(r),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  });
  const notebookView = (r: ProjectRecord) => ({
    id: r.id,
    projectId: r.projectId,
    investigationId: r.parentId!,
    name: r.name,
    description: String(r.body.description ?? ''),
    blockIds: blocks.list(r.tenantId, r.projectId, r.id).map((b) => b.id),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  });
  return { investigation, notebook, scopeOf, investigationView, notebookView };
}

export function analysisRoutes(ctx: AppContext, service: PcgService) {
  const { investigations, notebooks } = ctx.catalog;
  const l = lineage(ctx);
  const page = pageQuery(ctx.config);
  const invBody = z.object({ name, description: description.optional(), scope: scopeSchema.default({}) }).strict();
  const invPatch = z.object({ name: name.optional(), description: description.optional(), scope: scopeSchema.optional() }).strict();
  const nbBody = z.object({ name, description: description.optional() }).strict();
  const nbPatch = z.object({ name: name.optional(), description: description.optional() }).strict();
  const read = { tenant: 'read' as const };
  const write = { tenant: 'write' as const };
  const base = '/api/:tenantId/project/:projectId/investigation';
  return [
    route({
      method: 'POST', url: base, summary: 'Create an investigation: a named scope (time window, variants, activities, attribute values)', tag: 'investigations',
      access: write, params: projectParams, body: invBody, status: 201, response: investigationSchema,
      handler: ({ params, body }) => {
        projectOr404(ctx, params.tenantId, params.projectId);
        ctx.usage.checkRecords(params.tenantId);
        return l.investigationView(investigations.create(params.tenantId, params.projectId, null, body.name, { description: body.description ?? '', scope: body.scope }));
      },
    }),
    route({
      method: 'GET', url: base, summary: 'List investigations, a page at a time', tag: 'investigations', access: read, params: projectParams, query: page, response: pageOf(investigationSchema),
      handler: ({ params, query }) => {
        projectOr404(ctx, params.tenantId, params.projectId);
        return mapPage(recordPage(investigations, params.tenantId, params.projectId, null, query), l.investigationView);
      },
    }),
    route({
      method: 'GET', url: `${base}/:investigationId`, summary: 'Read an investigation', tag: 'investigations', access: read, params: investigationParams, response: investigationSchema,
      handler: ({ params }) => l.investigationView(l.investigation(params.tenantId, params.projectId, params.investigationId)),
    }),
    route({
      method: 'PUT', url: `${base}/:investigationId`, summary: 'Update an investigation', tag: 'investigations', access: write, params: investigationParams, body: invPatch, response: investigationSchema,
      handler: ({ params, body }) => {
        const old = l.investigation(params.tenantId, params.projectId, params.investigationId);
        const next = { description: body.description ?? old.body.description ?? '', scope: body.scope ?? old.body.scope ?? {} };
        return l.investigationView(investigations.update(params.tenantId, params.projectId, old.id, { name: body.name, body: next })!);
      },
    }),
    route({
      method: 'DELETE', url: `${base}/:investigationId`, summary: 'Delete an investigation with its notebooks and blocks', tag: 'investigations', access: write, params: investigationParams, status: 204,
      handler: ({ params }) => {
        l.investigation(params.tenantId, params.projectId, params.investigationId);
        investigations.delete(params.tenantId, params.projectId, params.investigationId);
      },
    }),
    route({
      method: 'POST', url: `${base}/:investigationId/notebook`, summary: 'Create a notebook in an investigation', tag: 'notebooks', access: write, params: investigationParams, body: nbBody, status: 201, response: notebookSchema,
      handler: ({ params, body }) => {
        l.investigation(params.tenantId, params.projectId, params.investigationId);
        ctx.usage.checkRecords(params.tenantId);
        return l.notebookView(notebooks.create(params.tenantId, params.projectId, params.investigationId, body.name, { description: body.description ?? '' }));
      },
    }),
    route({
      method: 'GET', url: `${base}/:investigationId/notebook`, summary: 'List the notebooks of an investigation, a page at a time', tag: 'notebooks', access: read, params: investigationParams, query: page, response: pageOf(notebookSchema),
      handler: ({ params, query }) => {
        l.investigation(params.tenantId, params.projectId, params.investigationId);
        return mapPage(recordPage(notebooks, params.tenantId, params.projectId, params.investigationId, query), l.notebookView);
      },
    }),
    route({
      method: 'GET', url: `${base}/:investigationId/notebook/:notebookId`, summary: 'Read a notebook', tag: 'notebooks', access: read, params: notebookParams, response: notebookSchema,
      handler: ({ params }) => l.notebookView(l.notebook(params.tenantId, params.projectId, params.investigationId, params.notebookId)),
    }),
    route({
      method: 'PUT', url: `${base}/:investigationId/notebook/:notebookId`, summary: 'Update a notebook', tag: 'notebooks', access: write, params: notebookParams, body: nbPatch, response: notebookSchema,
      handler: ({ params, body }) => {
        const old = l.notebook(params.tenantId, params.projectId, params.investigationId, params.notebookId);
        return l.notebookView(notebooks.update(params.tenantId, params.projectId, old.id, { name: body.name, body: { description: body.description ?? old.body.description ?? '' } })!);
      },
    }),
    route({
      method: 'DELETE', url: `${base}/:investigationId/notebook/:notebookId`, summary: 'Delete a notebook and its blocks', tag: 'notebooks', access: write, params: notebookParams, status: 204,
      handler: ({ params }) => {
        l.notebook(params.tenantId, params.projectId, params.investigationId, params.notebookId);
        notebooks.delete(params.tenantId, params.projectId, params.notebookId);
      },
    }),
    ...blockRoutes(ctx, service, l),
  ];
}
