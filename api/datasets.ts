import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { checkLog, importLog, type FileDamage, type ImportOptions } from '../connectors/files/index.js';
import type { ProjectRecord } from './catalog/index.js';
import type { AppContext } from './context.js';
import { ApiError } from './errors.js';
import type { SourceRetractor } from '../engine/projects/index.js';

/**
 * A dataset's life: `importing` from the moment its checked file is in place
 * until its last batch is applied, then `ready`; `deleting` while its events
 * are being taken back. A restart finds every dataset in one of these states
 * and finishes what was started (see `resume`).
 */
export type DatasetState = 'importing' | 'ready' | 'deleting';

/** What a dataset record holds besides its name. */
export interface DatasetBody {
  /** Absent on datasets uploaded before datasets had states: those are ready. */
  state?: DatasetState;
  /** The source its batches are positioned and its events held under; absent on datasets uploaded before that (their events stay when they are deleted). */
  source?: string;
  options: Record<string, string>;
  /** `keep`: the file was damaged and its complete events were kept, as asked. */
  partial?: 'keep';
  /** Where the file was damaged, when it was imported anyway. */
  damage?: FileDamage;
  bytes: number;
  /** Records and rejections the check pass read: the import's total, for its progress. */
  items?: number;
  summary: Record<string, unknown>;
  /** The project's reading facts (READING_META) just before this dataset's import set them: given back when it goes and no other dataset set them since. */
  before?: ReadingMeta;
  /** The reading facts its import set. */
  reading?: ReadingMeta;
}

/** The meta an import sets about how the file was read (importLog): the document's case notion comes from here. */
const READING_META = ['case_notion', 'case_notion_reason', 'events_without_case_object', 'object_type_activities', 'format', 'timezone'] as const;
type ReadingMeta = Partial<Record<(typeof READING_META)[number], string | null>>;

/** A dataset's own source: deleting it takes back exactly what it brought, and the same file uploaded twice is two holders of one set of events. */
export const datasetSource = (datasetId: string): string => `dataset:${datasetId}`;

/** An import stopped from outside (the server stopping, the project deleted): nothing to roll back. */
class Interrupted extends ApiError {}

/** Uploads are written under this prefix until checked; a restart removes those left behind. */
const STAGED = '.upload-';

/**
 * Dataset uploads as units: the file is staged and checked whole before
 * anything is applied; the record exists (importing) before the first batch;
 * the batches go through the project's one write path under the dataset's own
 * source position, so an interrupted import resumes where it stopped and
 * counts every event once; deletion takes the dataset's events back.
 */
export class DatasetImports {
  private readonly running = new Map<string, Promise<ProjectRecord>>();
  /** How far each import under way in this process has got: items applied of the items the check pass read. */
  private readonly progress = new Map<string, { items: number; total: number }>();

  /** The progress of a dataset importing in this process, if it is. */
  progressOf(id: string): { items: number; total: number } | undefined {
    return this.progress.get(id);
  }
  private readonly stopping = new AbortController();

  /** Projects with an import running in this process, by dataset id. */
  private readonly importingIn = new Map<string, string>();

  /** `retractor`: where a deleted or failed dataset's events are taken back (a thread in `pcg serve`); in process without. */
  constructor(
    private readonly ctx: AppContext,
    private readonly retractor?: SourceRetractor,
  ) {}

  /**
   * Takes a dataset's events back from its project. On the retractor's thread when there is one: the
   * transaction grows with the dataset, and the project answers 503 meanwhile. In process when another
   * import of the project runs here (its batches must not meet a closed store) or there is no retractor.
   */
  private async retract(projectId: string, source: string): Promise<void> {
    if (this.retractor && ![...this.importingIn.values()].includes(projectId)) await this.ctx.states.retractElsewhere(projectId, source, this.retractor);
    else this.ctx.states.retract(projectId, source);
  }

  dirOf(projectId: string): string {
    return join(this.ctx.states.dirOf(projectId), 'datasets');
  }

  fileOf(projectId: string, datasetId: string): string {
    return join(this.dirOf(projectId), datasetId);
  }

  /** A fresh path for an upload's bytes: no dataset's until `create` moves it. */
  stagingFile(projectId: string): string {
    mkdirSync(this.dirOf(projectId), { recursive: true });
    return join(this.dirOf(projectId), `${STAGED}${randomUUID()}`);
  }

  /**
   * Reads a staged file whole once, applying nothing: a file that cannot be imported is a 400,
   * and so is a damaged one (a .gz cut short, XML ending inside an element, a torn last line)
   * unless `partial` is `keep`; then the damage is returned, to be shown in the summary.
   */
  async check(staged: string, options: ImportOptions, partial: 'keep' | undefined, shown: string): Promise<{ damage: FileDamage | undefined; items: number }> {
    const { damage, records, rejected } = await checkLog(staged, options);
    if (damage && partial !== 'keep') {
      throw new ApiError(
        'validation_failed',
        `the file is damaged at ${damage.location}: ${hidePath(damage.reason, [staged], shown)}; nothing was imported (add partial=keep to the query to import its complete events)`,
      );
    }
    return { damage, items: records + rejected };
  }

  /** The dataset's record, importing, with the staged file moved to the dataset's name: from here on a restart resumes it. */
  create(tenantId: string, projectId: string, name: string, staged: string, body: Pick<DatasetBody, 'options' | 'bytes' | 'partial' | 'damage' | 'items'>): ProjectRecord {
    const { datasets } = this.ctx.catalog;
    const before = this.readingOf(projectId);
    const made = datasets.create(tenantId, projectId, null, name, { ...body, state: 'importing', summary: {}, before });
    const source = datasetSource(made.id);
    const record = datasets.update(tenantId, projectId, made.id, { body: { ...body, state: 'importing', source, summary: {}, before } })!;
    try {
      renameSync(staged, this.fileOf(projectId, record.id));
    } catch (error) {
      datasets.delete(tenantId, projectId, record.id);
      throw error;
    }
    return record;
  }

  /** Applies the dataset's file under its source (from where an earlier run stopped), then marks it ready with its own counts. */
  import(record: ProjectRecord): Promise<ProjectRecord> {
    const running = this.running.get(record.id);
    if (running) return running;
    const job = this.run(record).finally(() => {
      this.running.delete(record.id);
      this.importingIn.delete(record.id);
    });
    this.running.set(record.id, job);
    this.importingIn.set(record.id, record.projectId);
    return job;
  }

  private async run(record: ProjectRecord): Promise<ProjectRecord> {
    const { tenantId, projectId, id } = record;
    // Another dataset of the project being taken back elsewhere: this one waits for it (a deletion that starts
    // now sees this import and runs in process).
    await this.ctx.states.whenWritable(projectId);
    const body = record.body as unknown as DatasetBody;
    const source = body.source ?? datasetSource(id);
    const stop = new AbortController();
    const onStop = () => stop.abort(new Interrupted('unavailable', 'the server is stopping; the import resumes when it starts again'));
    const onDeleted = () => stop.abort(new Interrupted('not_found', 'project not found'));
    const deleted = `${projectId}:deleted`;
    if (this.stopping.signal.aborted) onStop();
    this.stopping.signal.addEventListener('abort', onStop);
    this.ctx.states.changes.on(deleted, onDeleted);
    try {
      const total = body.items ?? 0;
      this.progress.set(id, { items: 0, total });
      const read = await importLog(this.ctx.states.target(projectId), this.fileOf(projectId, id), body.options as ImportOptions, {
        source,
        signal: stop.signal,
        onProgress: (items) => this.progress.set(id, { items, total: Math.max(total, items) }),
      });
      const store = this.ctx.states.store(projectId);
      const summary = {
        format: read.format,
        case_notion: read.case_notion,
        source,
        ...store.sourceCounts(source),
        rejections: store.deadLetters({ source, limit: 20 }).map(({ location, reason }) => ({ location, reason })),
        ...(body.damage ? { damage: body.damage } : {}),
      };
      // The body as it is now: a deletion meanwhile may have handed this dataset its `before`.
      const now = (this.ctx.catalog.datasets.get(tenantId, projectId, id)?.body ?? body) as unknown as DatasetBody;
      const done = this.ctx.catalog.datasets.update(tenantId, projectId, id, { body: { ...now, source, state: 'ready', summary, reading: this.readingOf(projectId) } });
      if (!done) throw new ApiError('not_found', 'dataset not found');
      return done;
    } finally {
      this.progress.delete(id);
      this.stopping.signal.removeEventListener('abort', onStop);
      this.ctx.states.changes.off(deleted, onDeleted);
    }
  }

  /** Whether an import stopped because the server is stopping or the project went: then nothing is rolled back (a restart resumes; the project is gone). */
  static interrupted(error: unknown): boolean {
    return error instanceof Interrupted;
  }

  /** Undoes a dataset that did not finish: its events are taken back, its record and file deleted. */
  async rollback(record: ProjectRecord): Promise<void> {
    const body = record.body as unknown as DatasetBody;
    if (body.source && this.ctx.catalog.projects.get(record.tenantId, record.projectId)) {
      await this.retract(record.projectId, body.source);
      this.handReadingOn(record);
    }
    this.ctx.catalog.datasets.delete(record.tenantId, record.projectId, record.id);
    rmSync(this.fileOf(record.projectId, record.id), { force: true });
  }

  /**
   * Deletes a dataset: marked deleting, its events taken back from the project (one transaction:
   * those another source also sent stay), then its record and file deleted. A dataset still
   * importing here is a 409; one left importing by a stopped server can be deleted.
   */
  async remove(record: ProjectRecord): Promise<void> {
    if (this.running.has(record.id)) throw new ApiError('conflict', 'the dataset is still importing; delete it once it is ready');
    const body = record.body as unknown as DatasetBody;
    if (body.source) {
      if (body.state !== 'deleting') this.ctx.catalog.datasets.update(record.tenantId, record.projectId, record.id, { body: { ...body, state: 'deleting' } });
      await this.retract(record.projectId, body.source);
      this.handReadingOn(record);
    }
    this.ctx.catalog.datasets.delete(record.tenantId, record.projectId, record.id);
    rmSync(this.fileOf(record.projectId, record.id), { force: true });
  }

  /** The project's reading facts now. */
  private readingOf(projectId: string): ReadingMeta {
    const store = this.ctx.states.store(projectId);
    return Object.fromEntries(READING_META.map((k) => [k, store.getMeta(k) ?? null]));
  }

  /**
   * A deleted dataset's reading facts leave with it: when it was the newest dataset, the project
   * gets back those of the newest one left (or, with none left, those from before it); when a newer
   * one exists, that one's `before` becomes the deleted one's, so a later deletion gives back the
   * right facts. (Only datasets set these facts.)
   */
  private handReadingOn(record: ProjectRecord): void {
    const { datasets } = this.ctx.catalog;
    const body = record.body as unknown as DatasetBody;
    if (!body.before) return;
    const all = datasets.list(record.tenantId, record.projectId);
    const at = all.findIndex((d) => d.id === record.id);
    const newer = all.slice(at + 1).find((d) => (d.body as unknown as DatasetBody).before);
    if (newer) {
      datasets.update(record.tenantId, record.projectId, newer.id, { body: { ...newer.body, before: body.before } });
      return;
    }
    const older = all
      .slice(0, Math.max(at, 0))
      .reverse()
      .find((d) => (d.body as unknown as DatasetBody).reading);
    const restore = older ? (older.body as unknown as DatasetBody).reading! : body.before;
    const store = this.ctx.states.store(record.projectId);
    for (const key of READING_META) {
      const value = restore[key];
      if (value === undefined) continue;
      if (value === null) store.deleteMeta(key);
      else store.setMeta(key, value);
    }
  }

  /**
   * What a stopped server left: uploads still staged are removed; importing datasets resume from
   * their stored position (importLog is exactly once per position), or roll back when their file
   * is gone; deleting ones finish. Run once at start, before anything else writes datasets.
   */
  async resume(): Promise<void> {
    const projects = join(this.ctx.config.dataDir, 'projects');
    if (existsSync(projects)) {
      for (const p of readdirSync(projects)) {
        const dir = join(projects, p, 'datasets');
        if (!existsSync(dir)) continue;
        for (const f of readdirSync(dir)) if (f.startsWith(STAGED)) rmSync(join(dir, f), { force: true });
      }
    }
    const left = this.ctx.catalog.db
      .prepare<[], { tenantId: string; projectId: string; id: string }>(
        `SELECT tenant_id AS tenantId, project_id AS projectId, id FROM dataset WHERE json_extract(body, '$.state') IN ('importing', 'deleting') ORDER BY created_at, id`,
      )
      .all();
    for (const { tenantId, projectId, id } of left) {
      if (this.stopping.signal.aborted) return;
      const record = this.ctx.catalog.datasets.get(tenantId, projectId, id);
      if (!record) continue;
      const body = record.body as unknown as DatasetBody;
      try {
        if (body.state === 'deleting') await this.remove(record);
        else if (!existsSync(this.fileOf(projectId, id))) await this.rollback(record);
        else await this.import(record);
        this.ctx.logger.info({ projectId, datasetId: id, state: body.state }, body.state === 'deleting' ? 'dataset deletion finished' : 'dataset import resumed');
      } catch (error) {
        if (DatasetImports.interrupted(error)) continue;
        this.ctx.logger.error({ err: error, projectId, datasetId: id }, 'a dataset left by a stopped server could not be finished; it is rolled back');
        try {
          await this.rollback(record);
        } catch (again) {
          this.ctx.logger.error({ err: again, projectId, datasetId: id }, 'the rollback failed too; the dataset stays importing until the next start or its deletion');
        }
      }
    }
  }

  /** Stops the imports running here between two batches (they resume at the next start) and waits for them. */
  async close(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.running.values()]);
  }
}

/** A reader's error about the file as a 400 that names the upload, never a path on the server; other errors as they are. */
export function fileError(error: unknown, paths: string[], shown: string): unknown {
  if (error instanceof ApiError) return error;
  const e = error as { name?: string; code?: string; message?: string };
  // The readers' error classes (FileImportError, OcelError, XmlError, EngineError) describe the file, not the server.
  if (['FileImportError', 'OcelError', 'XmlError'].includes(e.name ?? '') || e.code === 'invalid_argument' || e.code === 'invalid_event') {
    return new ApiError('validation_failed', `the file could not be imported (${e.code}): ${hidePath(String(e.message), paths, shown)}`);
  }
  return error;
}

function hidePath(text: string, paths: string[], shown: string): string {
  for (const p of paths) text = text.split(p).join(shown);
  return text;
}
