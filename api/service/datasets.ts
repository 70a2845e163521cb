import { createWriteStream, rmSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ImportOptions } from '../../connectors/files/index.js';
import type { Catalog, ProjectRecord } from '../catalog/index.js';
import { limitName, type Config } from '../config.js';
import { DatasetImports, fileError, type DatasetBody, type DatasetState } from '../datasets.js';
import { ApiError } from '../errors.js';
import { mapPage, recordPage, type Page, type PageQuery } from '../paging.js';
import type { TenantUsage } from '../usage.js';
import type { ProjectGrant } from './access.js';

/** A dataset as every face answers it. */
export interface DatasetView {
  id: string;
  projectId: string;
  name: string;
  state: DatasetState;
  bytes: number;
  options: Record<string, string>;
  summary: Record<string, unknown>;
  /** While importing in this process: items applied of those the file holds; null otherwise. */
  progress: { items: number; total: number } | null;
  createdAt: string;
}

/** An upload's name (`upload` when none), whether a damaged file's complete events are kept, and the import options. */
export type UploadOptions = ImportOptions & { name?: string | undefined; partial?: 'keep' | undefined };

/** Where a failed upload's rollback failure is told (the server's log). */
export interface UploadLog {
  error(fields: object, message: string): void;
}

/**
 * Datasets of a project (`…/dataset` over HTTP): an upload staged, checked
 * whole and imported as one unit under its own source (api/datasets.ts has the
 * import's life), listed, read and deleted (its events taken back).
 */
export class DatasetFiles {
  constructor(
    private readonly catalog: Pick<Catalog, 'datasets'>,
    private readonly jobs: DatasetImports,
    private readonly config: Pick<Config, 'uploadLimitBytes'>,
    private readonly usage: Pick<TenantUsage, 'check'> | undefined,
    private readonly log: UploadLog,
  ) {}

  /**
   * The file's bytes staged (PCG_UPLOAD_LIMIT_BYTES, 413 past it), read whole once (nothing of a file that fails
   * there is applied), then imported under the dataset's own source; the tenant's quotas are held before the bytes
   * take any disk and again with the file's count of events (the grant's `write`).
   */
  async upload(grant: ProjectGrant, bytesIn: Readable, query: UploadOptions): Promise<DatasetView> {
    const { tenantId, projectId } = grant;
    const { jobs } = this;
    await this.usage?.check(tenantId);
    const { name: given, partial, ...options } = query;
    const shown = given ?? 'upload';
    // 1. Staged: the bytes on disk, then the whole file read once; nothing is applied of a file that fails here.
    const staged = jobs.stagingFile(projectId);
    let bytes: number;
    let checked;
    const out = createWriteStream(staged);
    try {
      const counter = limited(this.config.uploadLimitBytes);
      await pipeline(bytesIn, counter, out);
      bytes = counter.seen;
      checked = await jobs.check(staged, options, partial, shown);
      await this.usage?.check(tenantId, checked.items);
    } catch (error) {
      // A failed pipeline does not wait for the file to finish opening: removed before, it would appear after.
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      rmSync(staged, { force: true });
      throw fileError(error, [staged], shown);
    }
    // 2. The record (importing) before the first batch; 3. the batches under its own source; 4. ready, with its own counts.
    const { damage, items, format, contentBytes } = checked;
    const record = jobs.create(tenantId, projectId, shown, staged, { options: options as Record<string, string>, bytes, items, format, contentBytes, ...(partial ? { partial } : {}), ...(damage ? { damage } : {}) });
    try {
      return view(await jobs.import(record));
    } catch (error) {
      // Stopped from outside: the server is stopping (a restart resumes it) or the project is gone.
      if (DatasetImports.interrupted(error)) throw error;
      try {
        await jobs.rollback(record);
      } catch (again) {
        this.log.error({ err: again, projectId, datasetId: record.id }, 'a failed upload could not be rolled back; it stays importing until the next start or its deletion');
      }
      throw fileError(error, [jobs.fileOf(projectId, record.id)], shown);
    }
  }

  /** One page of the project's datasets, in upload order. */
  list(grant: ProjectGrant, query: PageQuery): Page<DatasetView> {
    return mapPage(recordPage(this.catalog.datasets, grant.tenantId, grant.projectId, null, query), (r) => view(r, this.jobs.progressOf(r.id)));
  }

  /** One dataset with its import summary, or 404. */
  get(grant: ProjectGrant, datasetId: string): DatasetView {
    const r = this.record(grant, datasetId);
    return view(r, this.jobs.progressOf(r.id));
  }

  /** The dataset gone: its events leave the project (those another source also sent stay), then its record and file; 409 while importing. */
  remove(grant: ProjectGrant, datasetId: string): Promise<void> {
    return this.jobs.remove(this.record(grant, datasetId));
  }

  private record(grant: ProjectGrant, datasetId: string): ProjectRecord {
    return this.catalog.datasets.get(grant.tenantId, grant.projectId, datasetId) ?? notFound();
  }
}

function view(r: ProjectRecord, progress: { items: number; total: number } | undefined = undefined): DatasetView {
  return {
    id: r.id,
    projectId: r.projectId,
    name: r.name,
    state: (r.body as unknown as DatasetBody).state ?? 'ready',
    bytes: Number(r.body.bytes ?? 0),
    options: (r.body.options ?? {}) as Record<string, string>,
    summary: (r.body.summary ?? {}) as Record<string, unknown>,
    progress: progress ?? null,
    createdAt: r.createdAt,
  };
}

/** The bytes passed through, counted; past `max` the upload fails (413, naming the setting). */
function limited(max: number): Transform & { seen: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      t.seen += chunk.length;
      if (t.seen > max) done(new ApiError('payload_too_large', `limit ${limitName('uploadLimitBytes')}: an upload may hold at most ${max} bytes`));
      else done(null, chunk);
    },
  }) as Transform & { seen: number };
  t.seen = 0;
  return t;
}

function notFound(): never {
  throw new ApiError('not_found', 'dataset not found');
}
