/**
 * The page's only way out: requests to the service it was served from, each
 * with the tenant key as a Bearer header. The key lives in this object (and,
 * when the reader asks, in the tab's session storage): never a cookie, never
 * a URL.
 */
import { SseParser, type SseEvent } from './sse.js';
import type { LiveAnswer } from './map-live.js';
import type { GraphDocument } from './types.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Project {
  id: string;
  name: string;
  description?: string;
  dataVersion: number;
  createdAt?: string;
}

export interface Dataset {
  id: string;
  name: string;
  state?: 'importing' | 'ready' | 'deleting';
  bytes: number;
  summary: Record<string, unknown>;
  /** While importing: records applied of those the file holds. */
  progress?: { items: number; total: number } | null;
}

export interface VersionEvent {
  dataVersion: number;
  etag?: string;
  document?: GraphDocument;
}

export type UploadOptions = Partial<
  Record<
    | 'name'
    | 'format'
    | 'lifecycle'
    | 'classifier'
    | 'caseColumn'
    | 'activityColumn'
    | 'timestampColumn'
    | 'resourceColumn'
    | 'startTimestampColumn'
    | 'delimiter'
    | 'timezone'
    | 'caseNotion',
    string
  >
>;

export interface UploadProgress {
  phase: 'uploading' | 'importing';
  sent: number;
  total: number;
}

async function errorOf(response: Response): Promise<ApiError> {
  let code = 'http_' + response.status;
  let message = response.statusText || `HTTP ${response.status}`;
  try {
    const body = (await response.json()) as { error?: string; message?: string };
    if (body.error) code = body.error;
    if (body.message) message = body.message;
  } catch {
    // not the service's error body: keep the status line
  }
  return new ApiError(response.status, code, message);
}

export class Client {
  constructor(
    readonly tenantId: string,
    private readonly key: string,
  ) {}

  private get base(): string {
    return `/api/${encodeURIComponent(this.tenantId)}`;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.key}`, ...extra };
  }

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(this.base + path, {
      method,
      headers: this.headers(body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' }),
      body: body === undefined ? null : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
    if (!response.ok) throw await errorOf(response);
    return (await response.json()) as T;
  }

  /** Every page of a list (the service answers lists a page at a time, with the cursor of the next). */
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

  projects(): Promise<Project[]> {
    return this.all<Project>('/project');
  }

  datasets(projectId: string): Promise<Dataset[]> {
    return this.all<Dataset>(`/project/${encodeURIComponent(projectId)}/dataset`);
  }

  createProject(name: string): Promise<Project> {
    return this.json<Project>('POST', '/project', { name, description: 'created from the web page' });
  }

  /** Deletes a project with its records, state and files (204, no body). */
  deleteProject(projectId: string): Promise<void> {
    return this.remove(`/project/${encodeURIComponent(projectId)}`);
  }

  /** Deletes a dataset: its events leave the project's state (204, no body). */
  deleteDataset(projectId: string, datasetId: string): Promise<void> {
    return this.remove(`/project/${encodeURIComponent(projectId)}/dataset/${encodeURIComponent(datasetId)}`);
  }

  private async remove(path: string): Promise<void> {
    const response = await fetch(this.base + path, { method: 'DELETE', headers: this.headers({ accept: 'application/json' }), cache: 'no-store', credentials: 'omit' });
    if (!response.ok) throw await errorOf(response);
  }

  graph(projectId: string): Promise<GraphDocument> {
    return this.json<GraphDocument>('GET', `/project/${encodeURIComponent(projectId)}/graph`);
  }

  /** Where the open cases are now (`…/live`): beside the document, not part of it. */
  live(projectId: string): Promise<LiveAnswer> {
    return this.json<LiveAnswer>('GET', `/project/${encodeURIComponent(projectId)}/live`);
  }

  /**
   * Reads the project's graph stream until it ends or `signal` aborts. SSE
   * over fetch: EventSource cannot send the Authorization header.
   */
  async stream(projectId: string, includeDocument: boolean, signal: AbortSignal, onEvent: (event: SseEvent) => void): Promise<void> {
    const query = includeDocument ? '?include=document' : '';
    const response = await fetch(`${this.base}/project/${encodeURIComponent(projectId)}/graph/stream${query}`, {
      headers: this.headers({ accept: 'text/event-stream' }),
      cache: 'no-store',
      credentials: 'omit',
      signal,
    });
    if (!response.ok || !response.body) throw await errorOf(response);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new SseParser();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        for (const event of parser.push(value)) onEvent(event);
      }
    } finally {
      reader.releaseLock();
    }
  }

  /**
   * Uploads a log file as the raw body (application/octet-stream, import
   * options in the query) with XMLHttpRequest, whose upload progress fetch
   * does not give. The import runs on the server once the body is in; the
   * answer is the dataset with its import summary.
   */
  upload(projectId: string, file: Blob, options: UploadOptions, onProgress: (p: UploadProgress) => void): { done: Promise<Dataset>; abort(): void } {
    const xhr = new XMLHttpRequest();
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(options)) if (v) query.set(k, v);
    const qs = query.toString();
    const done = new Promise<Dataset>((resolve, reject) => {
      xhr.open('POST', `${this.base}/project/${encodeURIComponent(projectId)}/dataset${qs ? `?${qs}` : ''}`);
      xhr.withCredentials = false;
      xhr.setRequestHeader('authorization', `Bearer ${this.key}`);
      xhr.setRequestHeader('content-type', 'application/octet-stream');
      xhr.setRequestHeader('accept', 'application/json');
      xhr.responseType = 'text';
      xhr.upload.onprogress = (e) => onProgress({ phase: 'uploading', sent: e.loaded, total: e.lengthComputable ? e.total : file.size });
      xhr.upload.onload = () => onProgress({ phase: 'importing', sent: file.size, total: file.size });
      xhr.onload = () => {
        let body: { error?: string; message?: string } & Partial<Dataset> = {};
        try {
          body = JSON.parse(xhr.responseText || '{}');
        } catch {
          // keep the status line
        }
        if (xhr.status >= 200 && xhr.status < 300) resolve(body as Dataset);
        else reject(new ApiError(xhr.status, body.error ?? `http_${xhr.status}`, body.message ?? xhr.statusText));
      };
      xhr.onerror = () => reject(new ApiError(0, 'network_error', 'the upload did not reach the service'));
      xhr.onabort = () => reject(new ApiError(0, 'aborted', 'the upload was cancelled'));
      onProgress({ phase: 'uploading', sent: 0, total: file.size });
      xhr.send(file);
    });
    return { done, abort: () => xhr.abort() };
  }
}

/** Where the key may be kept: this tab's session storage, only when the reader ticks the box. */
const STORE = 'pcg.session';

export interface Session {
  tenantId: string;
  key: string;
}

export function savedSession(): Session | undefined {
  try {
    const raw = sessionStorage.getItem(STORE);
    if (!raw) return undefined;
    const s = JSON.parse(raw) as Session;
    return typeof s.tenantId === 'string' && typeof s.key === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(s: Session | undefined): void {
  try {
    if (s) sessionStorage.setItem(STORE, JSON.stringify(s));
    else sessionStorage.removeItem(STORE);
  } catch {
    // storage refused (private mode): the key stays in memory only
  }
}
