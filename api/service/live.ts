import type { CaseReads, LiveState, ProjectRegistry } from '../../engine/projects/index.js';
import type { ProjectGrant } from './access.js';

/** The live state answered (HTTP's `…/live`, MCP's `live_state`): the project and the data version the cases were read at. */
export type LiveAnswer = LiveState & { projectId: string; dataVersion: number };

/** Answers kept per project for the data version they were read at, at most this many projects. */
const KEPT = 256;

/**
 * Where the open cases of a project are now (engine/projects/live.ts), read
 * from every kept case (off the loop in `pcg serve`: CaseReads' reader). Every
 * open page reads it after each new version, and a read passes over every kept
 * case: one read per project and data version serves them all, whichever face
 * asks (a read under way is shared too).
 */
export class LiveStates {
  private readonly kept = new Map<string, { version: number; answer: Promise<LiveAnswer> }>();

  constructor(
    private readonly states: Pick<ProjectRegistry, 'state'>,
    private readonly reads: CaseReads,
  ) {}

  live(grant: ProjectGrant): Promise<LiveAnswer> {
    const projectId = grant.projectId;
    const version = this.states.state(projectId).dataVersion;
    const hit = this.kept.get(projectId);
    if (hit && hit.version === version) return hit.answer;
    const answer = this.read(projectId);
    this.kept.delete(projectId);
    this.kept.set(projectId, { version, answer });
    if (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value!);
    answer.catch(() => this.kept.get(projectId)?.answer === answer && this.kept.delete(projectId));
    return answer;
  }

  private async read(projectId: string): Promise<LiveAnswer> {
    const { dataVersion, result } = await this.reads.run(projectId, [], { type: 'live' });
    return { projectId, dataVersion, ...(result as unknown as LiveState) };
  }
}
