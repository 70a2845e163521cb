import { z } from 'zod';
import type { AppContext } from '../context.js';
import { projectOr404 } from '../context.js';
import type { CaseReads, LiveState } from '../../engine/projects/index.js';
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

/** The live state of a project, read from every kept case (off the loop in `pcg serve`: CaseReads' reader). */
async function readLive(cases: CaseReads, projectId: string) {
  const { dataVersion, result } = await cases.run(projectId, [], { type: 'live' });
  return { projectId, dataVersion, ...(result as unknown as LiveState) };
}

/** Answers kept per project for the data version they were read at, at most this many projects. */
const KEPT = 256;

export function liveRoutes(ctx: AppContext, cases: CaseReads) {
  // Every open page reads …/live after each new version, and a read passes over every kept case: one read per
  // project and data version serves them all (a read under way is shared too).
  const kept = new Map<string, { version: number; answer: ReturnType<typeof readLive> }>();
  const live = (projectId: string) => {
    const version = ctx.states.state(projectId).dataVersion;
    const hit = kept.get(projectId);
    if (hit && hit.version === version) return hit.answer;
    const answer = readLive(cases, projectId);
    kept.delete(projectId);
    kept.set(projectId, { version, answer });
    if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
    answer.catch(() => kept.get(projectId)?.answer === answer && kept.delete(projectId));
    return answer;
  };
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
      handler: async ({ params }) => {
        projectOr404(ctx, params.tenantId, params.projectId);
        return live(params.projectId);
      },
    }),
  ];
}
