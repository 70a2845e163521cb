import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { FORMAT_NAMES, LIFECYCLE_MODES } from '../../connectors/files/index.js';
import { route } from '../route.js';
import { pageOf, pageQuery } from '../paging.js';
import type { PcgService } from '../service/index.js';
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

/**
 * Datasets: a log file uploaded as the raw body, kept under the project's folder, checked whole,
 * and imported into its state as one unit under its own source: the use cases of api/service/datasets.ts.
 */
export function datasetRoutes(ctx: AppContext, service: PcgService) {
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
      handler: ({ params, query, body, principal }) => service.datasets.upload(service.access.grant(principal!, params.tenantId, params.projectId, 'write'), body as Readable, query),
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
      handler: ({ params, query, principal }) => service.datasets.list(service.access.grant(principal!, params.tenantId, params.projectId, 'read'), query),
    }),
    route({
      method: 'GET',
      url: '/api/:tenantId/project/:projectId/dataset/:datasetId',
      summary: 'Read a dataset and its import summary',
      tag: 'datasets',
      access: { tenant: 'read' },
      params: datasetParams,
      response: datasetSchema,
      handler: ({ params, principal }) => service.datasets.get(service.access.grant(principal!, params.tenantId, params.projectId, 'read'), params.datasetId),
    }),
    route({
      method: 'DELETE',
      url: '/api/:tenantId/project/:projectId/dataset/:datasetId',
      summary: 'Delete a dataset: its events leave the project state (those another source also sent stay), then its record and file go. 409 while it is importing',
      tag: 'datasets',
      access: { tenant: 'write' },
      params: datasetParams,
      status: 204,
      handler: ({ params, principal }) => service.datasets.remove(service.access.grant(principal!, params.tenantId, params.projectId, 'write'), params.datasetId),
    }),
  ];
}
