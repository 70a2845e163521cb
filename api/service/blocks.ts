import { runBlock, type BlockSpec, type CaseReads, type Graphs } from '../../engine/projects/index.js';
import type { Scope } from '../schemas.js';
import type { ProjectGrant } from './access.js';

/**
 * Running one notebook block over a project, in the scopes given (none: the
 * whole project): HTTP's block, notebook and dashboard runs and MCP's
 * `run_block` call this. A graph block's document comes back as served
 * (JsonText, spliced into the answer as it is).
 */
export class BlockRuns {
  constructor(
    private readonly graphs: Graphs,
    private readonly reads: CaseReads,
  ) {}

  /** `key` names a scoped graph in the graphs' memory cache (`block:{id}` for a stored block). */
  run(grant: ProjectGrant, spec: BlockSpec, key: string, scopes: readonly Scope[] = []): Promise<{ dataVersion: number; result: Record<string, unknown> }> {
    return runBlock(spec, grant.projectId, key, scopes, this.graphs, this.reads);
  }
}
