import { z } from 'zod';
import type { CaseReads } from './case-reads.js';
import { documentText, type Graphs } from './graphs.js';
import { JsonText } from './json-text.js';
import { scopeSchema, type Scope } from './scope.js';

/** Typed analysis steps. A filter narrows the blocks after it when a notebook runs. */
export const blockSpecSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('filter'), scope: scopeSchema }).strict(),
    z.object({ type: z.literal('graph') }).strict(),
    z.object({ type: z.literal('variants'), limit: z.number().int().min(1).max(1000).default(10) }).strict(),
    z.object({ type: z.literal('kpi') }).strict(),
    z
      .object({
        type: z.literal('conformance'),
        allowedTransitions: z.array(z.tuple([z.string(), z.string()])).max(10_000).describe('directly-follows pairs the reference process allows'),
        startActivities: z.array(z.string()).max(1000).optional(),
        endActivities: z.array(z.string()).max(1000).optional(),
      })
      .strict(),
  ])
  .meta({ id: 'BlockSpec' });
export type BlockSpec = z.output<typeof blockSpecSchema>;

/**
 * Runs one block over the cases the scopes keep: the graph from the served documents, the others by
 * reading the cases (`reads`, off the request loop in the API). The answer's data version is the one read.
 */
export async function runBlock(spec: BlockSpec, projectId: string, key: string, scopes: readonly Scope[], graphs: Graphs, reads: CaseReads): Promise<{ dataVersion: number; result: Record<string, unknown> }> {
  if (spec.type !== 'graph') return reads.run(projectId, scopes, spec);
  const served = scopes.length ? await graphs.inScope(projectId, key, scopes) : await graphs.current(projectId);
  // The document as served, spliced into the answer as text (stringifyWithText).
  return { dataVersion: served.dataVersion, result: { dataVersion: served.dataVersion, etag: served.etag, document: new JsonText(await documentText(served)) } };
}
