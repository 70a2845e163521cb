import type { ProjectRegistry } from './registry.js';
import { answerCases, type CaseQuery } from './case-queries.js';
import { liveState } from './live.js';
import { scopedCases, type Scope } from './scope.js';
import type { ProjectState } from './state.js';

/** An answer and the data version of the events it was read from. */
export interface CaseAnswer {
  dataVersion: number;
  result: Record<string, unknown>;
}

/** A query over the cases a scoped view keeps (a filter's own scope added). */
export function readCases(state: ProjectState, scopes: readonly Scope[], query: CaseQuery): CaseAnswer {
  // The counted state and the events, read in one read transaction (StateFiles.read), are of one data version.
  if (query.type === 'live') return { dataVersion: state.dataVersion, result: liveState(state.snapshot(), state.traces()) as unknown as Record<string, unknown> };
  const all = query.type === 'filter' ? [...scopes, query.scope] : scopes;
  return { dataVersion: state.dataVersion, result: answerCases(query, scopedCases(state, all)) };
}

/** Where a query's cases are read: this process's state, or the project's files (by a reader on another thread). */
export interface CaseSource {
  /** Whose cases (a reader on another thread queues its work by project and tenant). */
  projectId?: string;
  state(): ProjectState;
  files(): string[];
}

export type CaseReader = (source: CaseSource, scopes: readonly Scope[], query: CaseQuery) => Promise<CaseAnswer>;

export const readCasesInProcess: CaseReader = async (source, scopes, query) => readCases(source.state(), scopes, query);

/**
 * Queries that read every kept case's events (blocks, pages of cases): their
 * cost grows with the project, never with what is in memory, so the API hands
 * them to a reader on another thread (api/document-pool.ts), which opens the
 * project's files itself. In process by default (tests, `pcg mcp --data-dir`).
 */
export class CaseReads {
  constructor(
    private readonly projects: ProjectRegistry,
    private readonly reader: CaseReader = readCasesInProcess,
  ) {}

  run(projectId: string, scopes: readonly Scope[], query: CaseQuery): Promise<CaseAnswer> {
    // Opened here first: a project without events yet gets its file before another thread looks for it.
    const state = this.projects.state(projectId);
    return this.reader({ projectId, state: () => state, files: () => this.projects.filesOf(projectId) }, scopes, query);
  }
}
