import type { BlockSpec } from '../../engine/projects/index.js';
import type { Permission } from '../catalog/index.js';
import { ApiError, apiErrorCodes, type ApiErrorCode } from '../errors.js';
import type { GraphViewRequest } from './views.js';
import type { CaseQuery, CaseRead, CaseSelection } from '../service/cases.js';
import type { LiveAnswer } from '../service/live.js';

/**
 * What the MCP tools need of pcg, whichever way they reach it: in this process
 * over the data directory (`LocalBackend`: `pcg mcp --data-dir`, and `/mcp` in
 * `pcg serve`), or a running service over HTTP (`RemoteBackend`: `pcg mcp --url`).
 * Every method answers for the caller's key and throws an `ApiError` (the HTTP
 * API's codes: `forbidden`, `not_found`, ...) when the key may not. The tools
 * (tools.ts) shape these answers for a model; nothing here is sized.
 */
export interface PcgBackend {
  /** The key's tenant, permissions and project scope (null: every project of the tenant). */
  whoami(): Promise<Identity>;
  /** The projects of the key's tenant it may see. */
  listProjects(): Promise<ProjectInfo[]>;
  /** The newest document (built if needed), or a version served before, as served. */
  graph(projectId: string, version?: number): Promise<GraphAnswer>;
  /** A view of documents (views.ts; each version as for `graph`, undefined for the newest): `diff` takes two, the others one. */
  graphView(projectId: string, versions: readonly (number | undefined)[], request: GraphViewRequest): Promise<GraphViewAnswer>;
  /** The data versions whose documents are kept. */
  versions(projectId: string): Promise<{ dataVersion: number; createdAt: string }[]>;
  /** One page of the cases of a variant or an outcome, with their events. */
  cases(projectId: string, query: CaseQuery): Promise<CasePage>;
  /** Where the open cases are now, per activity (engine/projects/live.ts; the HTTP API's `…/live`). */
  live(projectId: string): Promise<LiveAnswer>;
  /** Runs one notebook block over the whole project. */
  runBlock(projectId: string, spec: BlockSpec): Promise<BlockAnswer>;
  /** Ingests wire events through the one write path (write permission). */
  ingest(projectId: string, events: unknown[]): Promise<IngestAnswer>;
}

export interface Identity {
  tenantId: string;
  permissions: Permission[];
  projectIds: string[] | null;
}

export interface ProjectInfo {
  id: string;
  tenantId: string;
  name: string;
  description: string;
  dataVersion: number;
  createdAt: string;
  updatedAt: string;
}

export interface GraphAnswer {
  projectId: string;
  dataVersion: number;
  /** The document as served (the same bytes as the HTTP API's). */
  json: string;
}

export interface GraphViewAnswer {
  projectId: string;
  /** The data version of each document viewed, in the order asked. */
  dataVersions: number[];
  result: Record<string, unknown>;
}

export type { CaseEvent, CaseQuery } from '../service/cases.js';

export interface CasePage {
  projectId: string;
  dataVersion: number;
  selection: CaseSelection;
  /** Cases matching the selection, all pages together. */
  total: number;
  cases: CaseRead['cases'];
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
  note?: string;
}

export type { LiveAnswer } from '../service/live.js';

export interface BlockAnswer {
  projectId: string;
  dataVersion: number;
  type: string;
  result: Record<string, unknown>;
}

export interface IngestAnswer {
  projectId: string;
  accepted: number;
  duplicates: number;
  rejected: number;
  rejections: { location: string; reason: string }[];
  dataVersion: number;
}

/** An error answer of the HTTP API (or a tool's `code: message` text) as an ApiError. */
export function apiErrorOf(code: unknown, message: unknown): ApiError {
  const known = typeof code === 'string' && code in apiErrorCodes;
  return new ApiError(known ? (code as ApiErrorCode) : 'internal_error', typeof message === 'string' ? message : 'the service failed');
}
