import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { z } from 'zod';
import type { ProjectRecord } from '../catalog/index.js';
import type { AppContext } from '../context.js';
import { notFound, projectOr404 } from '../context.js';
import { importLog } from '../../connectors/files/index.js';
import { ApiError } from '../errors.js';
import { route } from '../route.js';
import { guid, listOf, name, projectParams } from '../schemas.js';

const formats = ['xes', 'csv', 'ndjson', 'ocel2-json', 'ocel2-xml', 'ocel2-sqlite', 'ocel1-json', 'ocel1-xml'] as const;
const column = z.string().min(1).max(200);

/** Import options travel in the query string next to the raw file body. */
const uploadQuery = z
  .object({
    name: name.optional(),
    format: z.enum(formats).optional(),
    lifecycle: z.enum(['all', 'complete', 'label']).optional(),
    classifier: column.optional(),
    caseColumn: column.optional(),
    activityColumn: column.optional(),
    timestampColumn: column.optional(),
    resourceColumn: column.optional(),
    startTimestampColumn: column.optional(),
    delimiter: z.string().min(1).max(8).optional(),
    timezone: column.optional(),
    caseNotion: column.optional(),
  })
  .strict();

export const datasetSchema = z
  .object({
    id: guid,
    projectId: guid,
    name: z.string(),
    bytes: z.number().int(),
    options: z.record(z.string(), z.string()),
    summary: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
  })
  .meta({ id: 'Dataset' });

const datasetParams = z.object({ tenantId: guid, projectId: guid, datasetId: guid });

const view = (r: ProjectRecord) => ({
  id: r.id,
  projectId: r.projectId,
  name: r.name,
  bytes: Number(r.body.bytes ?? 0),
  options: (r.body.options ?? {}) as Record<string, string>,
  summary: (r.body.summary ?? {}) as Record<string, unknown>,
  createdAt: r.createdAt,
});

function limited(max: number): Transform & { seen: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      t.seen += chunk.length;
      if (t.seen > max) done(new ApiError('payload_too_large', `an upload may hold at most ${max} bytes`));
      else done(null, chunk);
    },
  }) as Transform & { seen: number };
  t.seen = 0;
  return t;
}

/** Datasets: a log file uploaded as the raw body, kept under the project's folder, and imported into its state. */
export function datasetRoutes(ctx: AppContext) {
  const { datasets } = ctx.catalog;
  const fileOf = (projectId: string, id: string) => join(ctx.states.dirOf(projectId), 'datasets', id);
  return [
    route({
      method: 'POST',
      url: '/api/:tenantId/project/:projectId/dataset',
      summary: 'Upload an XES, CSV, NDJSON or OCEL file (Content-Type application/octet-stream) and import it; options in the query',
      tag: 'datasets',
      access: { tenant: 'write' },
      params: projectParams,
      query: uploadQuery,
      bodyKind: 'raw',
      status: 201,
      response: datasetSchema,
      handler: async ({ params, query, body }) => {
        projectOr404(ctx, params.tenantId, params.projectId);
        const { name: given, ...options } = query;
        const record = datasets.create(params.tenantId, params.projectId, null, given ?? 'upload', { options, bytes: 0, summary: {} });
        const file = fileOf(params.projectId, record.id);
        try {
          mkdirSync(join(ctx.states.dirOf(params.projectId), 'datasets'), { recursive: true });
          const counter = limited(ctx.config.uploadLimitBytes);
          await pipeline(body as Readable, counter, createWriteStream(file));
          const bytes = counter.seen;
          const summary = (await importLog(ctx.states.target(params.projectId), file, { ...options })) as unknown as Record<string, unknown>;
          return view(datasets.update(params.tenantId, params.projectId, record.id, { body: { options, bytes, summary } })!);
        } catch (error) {
          datasets.delete(params.tenantId, params.projectId, record.id);
          rmSync(file, { force: true });
          if (error instanceof ApiError) throw error;
          const e = error as { name?: string; code?: string; message?: string };
          // The readers' error classes (FileImportError, OcelError, XmlError, EngineError) describe the file, not the server.
          if (['FileImportError', 'OcelError', 'XmlError'].includes(e.name ?? '') || e.code === 'invalid_argument' || e.code === 'invalid_event') {
            throw new ApiError('validation_failed', `the file could not be imported (${e.code}): ${String(e.message).split(file).join(given ?? 'upload')}`);
          }
          throw error;
        }
      },
    }),
    route({
      method: 'GET',
      url: '/api/:tenantId/project/:projectId/dataset',
      summary: 'List the datasets of a project',
      tag: 'datasets',
      access: { tenant: 'read' },
      params: projectParams,
      response: listOf(datasetSchema),
      handler: ({ params }) => {
        projectOr404(ctx, params.tenantId, params.projectId);
        return { items: datasets.list(params.tenantId, params.projectId).map(view) };
      },
    }),
    route({
      method: 'GET',
      url: '/api/:tenantId/project/:projectId/dataset/:datasetId',
      summary: 'Read a dataset and its import summary',
      tag: 'datasets',
      access: { tenant: 'read' },
      params: datasetParams,
      response: datasetSchema,
      handler: ({ params }) => view(datasets.get(params.tenantId, params.projectId, params.datasetId) ?? notFound('dataset')),
    }),
    route({
      method: 'DELETE',
      url: '/api/:tenantId/project/:projectId/dataset/:datasetId',
      summary: 'Delete a dataset and its file (events it brought stay in the project state)',
      tag: 'datasets',
      access: { tenant: 'write' },
      params: datasetParams,
      status: 204,
      handler: ({ params }) => {
        if (!datasets.delete(params.tenantId, params.projectId, params.datasetId)) notFound('dataset');
        rmSync(fileOf(params.projectId, params.datasetId), { force: true });
      },
    }),
  ];
}
