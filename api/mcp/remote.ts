import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { GraphDocument } from '../../engine/document/types.js';
import type { BlockSpec } from '../../engine/projects/index.js';
import { ApiError } from '../errors.js';
import { viewOf, type GraphViewRequest } from './views.js';
import { apiErrorOf, type BlockAnswer, type CasePage, type CaseQuery, type GraphAnswer, type GraphViewAnswer, type Identity, type IngestAnswer, type LiveAnswer, type PcgBackend, type ProjectInfo } from './backend.js';
import { lowerGuid as lower } from '../service/access.js';

const VERSION = '0.1.0';

/**
 * The tools' backend over a running `pcg serve` (`pcg mcp --url U --key K`): the
 * HTTP API with the key as Bearer token for the projects, documents, kept
 * versions and ingestion; the service's own `/mcp` endpoint (same key) for what
 * the HTTP API has no route for: who the key is (its tenant), a page of cases
 * with their events, and a block run without storing it in a notebook. Errors
 * arrive in the API's format and are thrown with the same codes.
 */
export class RemoteBackend implements PcgBackend {
  private readonly base: URL;
  private client: Promise<Client> | undefined;
  private tenantId: Promise<string> | undefined;

  constructor(
    url: string,
    private readonly key: string,
  ) {
    this.base = new URL(url.endsWith('/') ? url : `${url}/`);
  }

  private async http(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(new URL(path.replace(/^\//, ''), this.base), {
        method,
        headers: { authorization: `Bearer ${this.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (error) {
      throw new ApiError('unavailable', `cannot reach ${this.base.origin}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`);
    }
    if (!res.ok) {
      const text = await res.text();
      let parsed: { error?: unknown; message?: unknown } = {};
      try {
        parsed = JSON.parse(text) as typeof parsed;
      } catch {
        // not the API's error format: the status speaks
      }
      throw apiErrorOf(parsed.error, parsed.message ?? `HTTP ${res.status} from ${method} ${path}`);
    }
    return res;
  }

  private async json<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    return (await (await this.http(method, path, body)).json()) as T;
  }

  /** The service's MCP endpoint, connected once. */
  private mcp(): Promise<Client> {
    this.client ??= (async () => {
      const client = new Client({ name: 'pcg-mcp-remote', version: VERSION });
      const transport = new StreamableHTTPClientTransport(new URL('mcp', this.base), { requestInit: { headers: { authorization: `Bearer ${this.key}` } } });
      try {
        await client.connect(transport);
      } catch (error) {
        this.client = undefined;
        const text = String((error as Error).message ?? error);
        const body = /\{.*\}/s.exec(text)?.[0];
        if (body) {
          try {
            const parsed = JSON.parse(body) as { error?: unknown; message?: unknown };
            if (parsed.error) throw apiErrorOf(parsed.error, parsed.message);
          } catch (inner) {
            if (inner instanceof ApiError) throw inner;
          }
        }
        throw new ApiError('unavailable', `cannot use ${new URL('mcp', this.base).href}: ${text}`);
      }
      return client;
    })();
    return this.client;
  }

  /** Calls one of the service's tools; its error answer (`code: message`) is thrown as an ApiError. */
  private async tool<T>(name: string, args: Record<string, unknown>): Promise<T> {
    const client = await this.mcp();
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) {
      const text = (result.content as { type: string; text?: string }[]).find((c) => c.type === 'text')?.text ?? 'the service failed';
      const m = /^([a-z_]+): ([\s\S]*)$/.exec(text);
      throw m ? apiErrorOf(m[1], m[2]) : apiErrorOf(undefined, text);
    }
    return result.structuredContent as T;
  }

  /** Asked of the service each time: a key's permissions and scope follow its user's membership. */
  async whoami(): Promise<Identity> {
    const r = await this.tool<{ tenantId: string; permissions: Identity['permissions']; projectScope: string[] | null }>('list_projects', { limit: 1 });
    return { tenantId: r.tenantId, permissions: r.permissions, projectIds: r.projectScope };
  }

  /** The key's tenant (fixed for a key), for the HTTP API's paths. */
  private tenant(): Promise<string> {
    this.tenantId ??= this.whoami().then(
      (who) => who.tenantId,
      (error: unknown) => {
        this.tenantId = undefined;
        throw error;
      },
    );
    return this.tenantId;
  }

  private async projectPath(projectId: string): Promise<string> {
    return `/api/${await this.tenant()}/project/${encodeURIComponent(lower(projectId))}`;
  }

  /** Every page of one of the service's lists (api/paging.ts), in order. */
  private async all<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: T[]; nextCursor?: string | null } = await this.json('GET', cursor ? `${path}?cursor=${encodeURIComponent(cursor)}` : path);
      items.push(...page.items);
      cursor = page.nextCursor ?? null;
    } while (cursor);
    return items;
  }

  async listProjects(): Promise<ProjectInfo[]> {
    return this.all<ProjectInfo>(`/api/${await this.tenant()}/project`);
  }

  async graph(projectId: string, version?: number): Promise<GraphAnswer> {
    const res = await this.http('GET', `${await this.projectPath(projectId)}/graph${version === undefined ? '' : `?version=${version}`}`);
    const json = await res.text();
    const tag = /^"(\d+)"$/.exec(res.headers.get('etag') ?? '');
    return { projectId: lower(projectId), dataVersion: tag ? Number(tag[1]) : Number((JSON.parse(json) as GraphDocument).source.data_version), json };
  }

  /** Views are computed here, in the client's process, from the documents as served. */
  async graphView(projectId: string, versions: readonly (number | undefined)[], request: GraphViewRequest): Promise<GraphViewAnswer> {
    const answers: GraphAnswer[] = [];
    for (const v of versions) answers.push(await this.graph(projectId, v));
    const docs = answers.map((a) => ({ document: JSON.parse(a.json) as GraphDocument, chars: a.json.length }));
    return { projectId: lower(projectId), dataVersions: answers.map((a) => a.dataVersion), result: viewOf(docs, request) };
  }

  async versions(projectId: string): Promise<{ dataVersion: number; createdAt: string }[]> {
    return this.all<{ dataVersion: number; createdAt: string }>(`${await this.projectPath(projectId)}/graph/versions`);
  }

  cases(projectId: string, query: CaseQuery): Promise<CasePage> {
    const args: Record<string, unknown> = { projectId: lower(projectId), limit: query.limit, maxEvents: query.maxEvents };
    for (const k of ['variant', 'path', 'outcome', 'cursor'] as const) if (query[k] !== undefined) args[k] = query[k];
    return this.tool<CasePage>('list_cases', args);
  }

  async live(projectId: string): Promise<LiveAnswer> {
    return this.json<LiveAnswer>('GET', `${await this.projectPath(projectId)}/live`);
  }

  runBlock(projectId: string, spec: BlockSpec): Promise<BlockAnswer> {
    return this.tool<BlockAnswer>('run_block', { projectId: lower(projectId), block: spec });
  }

  async ingest(projectId: string, events: unknown[]): Promise<IngestAnswer> {
    const r = await this.json<Omit<IngestAnswer, 'projectId'>>('POST', `${await this.projectPath(projectId)}/events`, events);
    return { projectId: lower(projectId), ...r };
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) await (await c.catch(() => undefined))?.close();
  }
}
