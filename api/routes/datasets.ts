import { createWriteStream, rmSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { z } from 'zod';
import type { ProjectRecord } from '../catalog/index.js';
import type { AppContext } from '../context.js';
import { notFound, projectOr404 } from '../context.js';
import { DatasetImports, fileError, type DatasetBody } from '../datasets.js';
import { limitName } from '../config.js';
import { FORMAT_NAMES, LIFECYCLE_MODES } from '../../connectors/files/index.js';
import { ApiError } from '../errors.js';
import { route } from '../route.js';
import { mapPage, pageOf, pageQuery, recordPage } from '../paging.js';
import { guid, name, projectParams } from '../schemas.js';

const column = z.string().min(1).max(200);

/** Import options travel in the query string next to the raw file body. */
export const uploadQuery = z
  .object({
    name: name.optional(),
    format: z.enum(FORMAT_NAMES).optional(),
    lifecycle: z.enum(LIFECYCLE_MODES).optional(),
    classifier: column.optional(),
    caseColumn: column.optional(),
    activityColumn: column.optional(),
    timestampColumn: column.optional(),
    resourceColumn: column.optional(),
    startTimestampColumn: column.optional(),
    delimiter: z.string().min(1).max(8).optional(),
    timezone: column.optional(),
    caseNotion: column.optional(),
    partial: z.enum(['keep']).optional().describe('keep: import the complete events of a damaged file (a .gz cut short, XML ending inside an element, a torn last line) instead of refusing it'),
  })
  .strict();

export const datasetSchema = z
  .object({
    id: guid,
    projectId: guid,
    name: z.string(),
    state: z.enum(['importing', 'ready', 'deleting']).describe('importing until its last batch is applied (a restart resumes it), then ready; deleting while its events are taken back'),
    bytes: z.number().int(),
    options: z.record(z.string(), z.string()),
    summary: z.record(z.string(), z.unknown()).describe("the dataset's own counts: accepted, duplicates, rejected, events and cases it holds, its first rejections"),
    progress: z
      .object({ items: z.number().int(), total: z.number().int() })
      .nullable()
      .describe('while importing in this server: records (and rejected lines) applied of those the file holds; null otherwise'),
    createdAt: z.string(),
  })
  .meta({ id: 'Dataset' });

const datasetParams = z.object({ tenantId: guid, projectId: guid, datasetId: guid });

const view = (r: ProjectRecord, progress: { items: number; total: number } | undefined = undefined) => ({
  id: r.id,
  projectId: r.projectId,
  name: r.name,
  state: (r.body as unknown as DatasetBody).state ?? 'ready',
  bytes: Number(r.body.bytes ?? 0),
  options: (r.body.options ?? {}) as Record<string, string>,
  summary: (r.body.summary ?? {}) as Record<string, unknown>,
  progress: progress ?? null,
  createdAt: r.createdAt,
});

function limited(max: number): Transform & { seen: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      t.seen += chunk.length;
      if (t.seen > max) done(new ApiError('payload_too_large', `limit ${limitName('uploadLimitBytes')}: an upload may hold at most ${max} bytes`));
      else done(null, chunk);
    },
  }) as Transform & { seen: number };
  t.seen = 0;
  return t;
}

/**
 * Datasets: a log file uploaded as the raw body, kept under the project's folder, checked whole,
 * and imported into its state as one unit under its own source (see api/datasets.ts).
 */
export function datasetRoutes(ctx: AppContext, jobs: DatasetImports) {
  const { datasets } = ctx.catalog;
  return [
    route({
      method: 'POST',
      url: '/api/:tenantId/project/:projectId/dataset',
      summary:
        'Upload an XES, CSV, NDJSON or OCEL file (Content-Type application/octet-stream) and import it; options in the query. A damaged file is refused unless partial=keep',
      tag: 'datasets',
      access: { tenant: 'write' },
      params: projectParams,
      query: uploadQuery,
      bodyKind: 'raw',
      status: 201,
      response: datasetSchema,
      handler: async ({ params, query, body }) => {
        const { tenantId, projectId } = params;
        projectOr404(ctx, tenantId, projectId);
        // A tenant at its quota is refused before the upload takes any disk; one whose file would take it past, once counted.
        await ctx.usage.check(tenantId);
        const { name: given, partial, ...options } = query;
        const shown = given ?? 'upload';
        // 1. Staged: the bytes on disk, then the whole file read once; nothing is applied of a file that fails here.
        const staged = jobs.stagingFile(projectId);
        let bytes: number;
        let checked;
        const out = createWriteStream(staged);
        try {
          const counter = limited(ctx.config.uploadLimitBytes);
          await pipeline(body as Readable, counter, out);
          bytes = counter.seen;
          checked = await jobs.check(staged, options, partial, shown);
          await ctx.usage.check(tenantId, checked.items);
        } catch (error) {
          // A failed pipeline does not wait for the file to finish opening: removed before, it would appear after.
          if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
          rmSync(staged, { force: true });
          throw fileError(error, [staged], shown);
        }
        // 2. The record (importing) before the first batch; 3. the batches under its own source; 4. ready, with its own counts.
        const { damage, items, format, contentBytes } = checked;
        const record = jobs.create(tenantId, projectId, shown, staged, { options, bytes, items, format, contentBytes, ...(partial ? { partial } : {}), ...(damage ? { damage } : {}) });
        try {
          return view(await jobs.import(record));
        } catch (error) {
          // Stopped from outside: the server is stopping (a restart resumes it) or the project is gone.
          if (DatasetImports.interrupted(error)) throw error;
          try {
            await jobs.rollback(record);
          } catch (again) {
            ctx.logger.error({ err: again, projectId, datasetId: record.id }, 'a failed upload could not be rolled back; it stays importing until the next start or its deletion');
          }
          throw fileError(error, [jobs.fileOf(projectId, record.id)], shown);
        }
      },
    }),
    route({
      method: 'GET',
      url: '/api/:tenantId/project/:projectId/dataset',
      summary: 'List the datasets of a project, a page at a time',
      tag: 'datasets',
      access: { tenant: 'read' },
      params: projectParams,
      query: pageQuery(ctx.config),
      response: pageOf(datasetSchema),
      handler: ({ params, query }) => {
        projectOr404(ctx, params.tenantId, params.projectId);
        return mapPage(recordPage(datasets, params.tenantId, params.projectId, null, query), (r) => view(r, jobs.progressOf(r.id)));
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
      handler: ({ params }) => {
        const r = datasets.get(params.tenantId, params.projectId, params.datasetId) ?? notFound('dataset');
        return view(r, jobs.progressOf(r.id));
      },
    }),
    route({
      method: 'DELETE',
      url: '/api/:tenantId/project/:projectId/dataset/:datasetId',
      summary: 'Delete a dataset: its events leave the project state (those another source also sent stay), then its record and file go. 409 while it is importing',
      tag: 'datasets',
      access: { tenant: 'write' },
      params: datasetParams,
      status: 204,
      handler: async ({ params }) => {
        await jobs.remove(datasets.get(params.tenantId, params.projectId, params.datasetId) ?? notFound('dataset'));
      },
    }),
  ];
}
