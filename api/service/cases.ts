import type { CasePageAnswer, CaseReads } from '../../engine/projects/index.js';
import { ApiError } from '../errors.js';
import { offsetOf } from '../mcp/views.js';
import type { ProjectGrant } from './access.js';
import type { ServedGraphs } from './graphs.js';

/** Which cases: exactly one of a variant of the newest document, an activity sequence, or an outcome. */
export interface CaseQuery {
  /** A variant id of the newest document (`v-…`). */
  variant?: string | undefined;
  /** An activity sequence, instead of a variant id (variants under 1% of cases are not in the document). */
  path?: string[] | undefined;
  /** An outcome id of the newest document (`success-…`) or an end activity. */
  outcome?: string | undefined;
  cursor?: string | undefined;
  limit: number;
  /** Events shown per case; the rest are counted. */
  maxEvents: number;
}

export interface CaseEvent {
  activity: string;
  timestamp: string;
  eventId?: string;
  resource?: string;
  attributes?: Record<string, unknown>;
  objects?: unknown[];
}

/** The selection read, as answered: what was asked, what it resolved to, and the rule the cases were matched by. */
export type CaseSelection = { variant?: string; outcome?: string; path?: string[]; endActivity?: string; rule: string };

export interface CaseRead {
  dataVersion: number;
  /** Where the page starts (the query's cursor). */
  offset: number;
  selection: CaseSelection;
  /** Cases matching the selection, all pages together. */
  total: number;
  /** The page asked: at most `limit` cases from `offset` on. */
  cases: { caseId: string; eventCount: number; events: CaseEvent[] }[];
}

/**
 * Pages of a project's cases by variant, path or outcome (MCP's `list_cases`):
 * a variant or an outcome is resolved against the newest document, then every
 * kept case is read (off the loop in `pcg serve`), every match counted and
 * only the asked page kept.
 */
export class CasePages {
  constructor(
    private readonly graphs: ServedGraphs,
    private readonly reads: CaseReads,
  ) {}

  async read(grant: ProjectGrant, query: CaseQuery): Promise<CaseRead> {
    const chosen = [query.variant, query.path, query.outcome].filter((x) => x !== undefined).length;
    if (chosen !== 1) throw new ApiError('validation_failed', 'give exactly one of variant, path or outcome');
    const offset = offsetOf(query.cursor);
    let selection: CaseSelection;
    let select: { path: string[] } | { endActivity: string };
    if (query.outcome !== undefined) {
      const end = (await this.graphs.view(grant, [undefined], { kind: 'outcome', id: query.outcome })).result.endActivity as string;
      selection = {
        outcome: query.outcome,
        endActivity: end,
        rule: `cases whose last event is '${end}'; the document splits them by kind (success, failure, open, other) from counts, which are not kept per case`,
      };
      select = { endActivity: end };
    } else {
      let path = query.path;
      if (query.variant !== undefined) {
        const v = (await this.graphs.view(grant, [undefined], { kind: 'variant', id: query.variant })).result as { id: string; path: string[] };
        path = v.path;
        selection = { variant: v.id, path, rule: 'cases whose activity sequence is exactly the path' };
      } else selection = { path: path!, rule: 'cases whose activity sequence is exactly the path' };
      select = { path: path! };
    }
    const read = await this.reads.run(grant.projectId, [], { type: 'cases', ...select, offset, limit: query.limit, maxEvents: query.maxEvents });
    const { total, cases } = read.result as unknown as CasePageAnswer;
    return { dataVersion: read.dataVersion, offset, selection, total, cases: cases as CaseRead['cases'] };
  }
}
