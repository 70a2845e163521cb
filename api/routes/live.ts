import { z } from 'zod';
import type { PcgService } from '../service/index.js';
import { route } from '../route.js';
import { projectParams } from '../schemas.js';

const hours = z.number().min(0);

/** The live state beside the document (engine/projects/live.ts): not part of the document, whose fields are fixed. */
export const liveStateSchema = z
  .object({
    projectId: z.string(),
    dataVersion: z.number().int().describe('the data version the cases were read at'),
    asOf: z.string().nullable().describe('the log end waits are counted up to (ISO 8601); null without events'),
    cases: z.number().int().describe('cases read (every kept case)'),
    openCases: z.number().int(),
    activities: z
      .array(
        z.object({
          activity: z.string(),
          openCases: z.number().int().describe('open cases whose last event is this activity'),
          waitedHours: z.object({ median: hours, max: hours }).describe('hours since those cases\' last event, up to asOf'),
          usualWaitHours: hours.describe("the step's median wait to the next step (the node's median_hours_to_next)"),
          overUsual: z.number().int().describe('open cases here waiting longer than the usual wait'),
        }),
      )
      .describe('activities with open cases, most first'),
    method: z.string(),
  })
  .meta({ id: 'LiveState' });

/** Where the open cases are now (api/service/live.ts: one read per project and data version, shared with MCP's `live_state`). */
export function liveRoutes(service: PcgService) {
  return [
    route({
      method: 'GET',
      url: '/api/:tenantId/project/:projectId/live',
      summary:
        'Where the open cases are now: per activity, the open cases whose last event it is (by the document\'s outcome rule, counted case by case: the same totals as its `open` outcomes), how long they have waited and the step\'s usual wait. Read from every kept case, on a work thread',
      tag: 'graph',
      access: { tenant: 'read' },
      params: projectParams,
      response: liveStateSchema,
      handler: ({ params, principal }) => service.live.live(service.access.grant(principal!, params.tenantId, params.projectId, 'read')),
    }),
  ];
}
