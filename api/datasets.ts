import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { importLog, inputFormats, SOURCE_META_KEYS, type FileDamage, type ImportOptions, type InputLimits, type ReadLimits } from '../connectors/files/index.js';
import { FileImportError } from '../connectors/files/errors.js';
import { EngineError } from '../engine/errors.js';
import { THREAD_MIN_BYTES, worthAThread } from '../connectors/files/reader-thread.js';
import type { ProjectRecord } from './catalog/index.js';
import { eventLimitsOf, inputLimitsOf } from './config.js';
import type { AppContext } from './context.js';
import { fileToApi } from './error-tables.js';
import { ApiError } from './errors.js';
import type { UploadChecks } from './upload-checks.js';
import type { IngestTarget, SourceRetractor } from '../engine/projects/index.js';
import { READING_TRAIT_META } from '../engine/reading/traits.js';

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
  /** What the check pass found the file to be, and its bytes of content: whether its import reads on a thread of its own. */
  format?: string;
  contentBytes?: number;
  summary: Record<string, unknown>;
  /** The project's reading facts (READING_META) just before this dataset's import set them: given back when it goes and no other dataset set them since. */
  before?: ReadingMeta;
  /** The reading facts its import set. */
  reading?: ReadingMeta;
}

/** The meta an import sets about how the file was read (importLog): the document's case notion comes from here. */
const READING_META = SOURCE_META_KEYS;
/**
 * The reader's traits, which a dataset recorded before they were kept lacks in its `before`: they are taken away
 * when that is given back, so the reading goes by the format given back (engine/reading/traits.ts).
 */
const TRAIT_KEYS: ReadonlySet<string> = new Set(Object.values(READING_TRAIT_META));

/** Whether the check pass found a format read whole at open (OCEL): its import never runs on the request loop. */
const readWhole = (format: string | undefined): boolean => format !== undefined && Object.hasOwn(inputFormats, format) && inputFormats[format as keyof typeof inputFormats].traits.readWhole;
type ReadingMeta = Partial<Record<(typeof READING_META)[number], string | null>>;

/** A dataset's own source: deleting it takes back exactly what it brought, and the same file uploaded twice is two holders of one set of events. */
export const datasetSource = (datasetId: string): string => `dataset:${datasetId}`;

/** An import stopped from outside (the server stopping, the project deleted): nothing to roll back. */
class Interrupted extends ApiError {}

const stoppingNow = () => new Interrupted('unavailable', 'the server is stopping; the import resumes when it starts again');

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

  /** Checks of uploads running now (waited for by close). */
  private readonly checking = new Set<Promise<unknown>>();

  /** The bounds on reading an upload, from the configuration. */
  private readonly inputLimits: InputLimits;
  private readonly readLimits: ReadLimits;

  /**
   * `checks`: the threads uploads are checked on (api/upload-checks.ts); `retractor`: where a deleted or failed
   * dataset's events are taken back (a thread in `pcg serve`); in process without.
   */
  constructor(
    private readonly ctx: AppContext,
    private readonly checks: UploadChecks,
    private readonly retractor?: SourceRetractor,
  ) {
    this.inputLimits = inputLimitsOf(ctx.config);
    this.readLimits = Object.freeze({ ...this.inputLimits, ...eventLimitsOf(ctx.config) });
  }

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
  async check(
    staged: string,
    options: ImportOptions,
    partial: 'keep' | undefined,
    shown: string,
  ): Promise<{ damage: FileDamage | undefined; items: number; format: string; contentBytes: number }> {
    const stopped = new AbortController();
    const onStop = () => stopped.abort(new Interrupted('unavailable', 'the server is stopping; nothing was imported: upload the file again once it is back'));
    if (this.stopping.signal.aborted) onStop();
    this.stopping.signal.addEventListener('abort', onStop);
    const running = this.checks.check({ path: staged, options, limits: this.readLimits }, stopped.signal);
    this.checking.add(running);
    let checked;
    try {
      checked = await running;
    } finally {
      this.checking.delete(running);
      this.stopping.signal.removeEventListener('abort', onStop);
    }
    const { damage, records, rejected, format, contentBytes } = checked;
    if (damage && partial !== 'keep') {
      throw new ApiError(
        'validation_failed',
        `the file is damaged at ${damage.location}: ${hidePath(damage.reason, [staged], shown)}; nothing was imported (add partial=keep to the query to import its complete events)`,
      );
    }
    return { damage, items: records + rejected, format, contentBytes };
  }

  /** The dataset's record, importing, with the staged file moved to the dataset's name: from here on a restart resumes it. */
  create(tenantId: string, projectId: string, name: string, staged: string, body: Pick<DatasetBody, 'options' | 'bytes' | 'partial' | 'damage' | 'items' | 'format' | 'contentBytes'>): ProjectRecord {
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
    const onStop = () => stop.abort(stoppingNow());
    const onDeleted = () => stop.abort(new Interrupted('not_found', 'project not found'));
    const deleted = `${projectId}:deleted`;
    if (this.stopping.signal.aborted) onStop();
    this.stopping.signal.addEventListener('abort', onStop);
    this.ctx.states.changes.on(deleted, onDeleted);
    try {
      const total = body.items ?? 0;
      this.progress.set(id, { items: 0, total });
      const file = this.fileOf(projectId, id);
      const read = await importLog(this.targetOf(tenantId, projectId, stop.signal), file, body.options as ImportOptions, {
        source,
        signal: stop.signal,
        onProgress: (items) => this.progress.set(id, { items, total: Math.max(total, items) }),
        limits: this.inputLimits,
        // OCEL is read whole at open, in one synchronous call: never on the request loop. Nor a file whose content
        // is large whatever its size on disk (a gzip trailer states its size modulo 4 GiB). A smaller CSV, XES or
        // NDJSON file is read here, a batch per turn of the loop (its batches are applied on a work thread): a
        // reader thread costs more than it saves there. Measured on a busy machine (load 8-9): a 100 KiB CSV read
        // here held the loop at most 15-16 ms (once 200 ms, cold), read on a thread it took 1.3-1.5 s of CPU to
        // start the thread and held the loop 60-400 ms meanwhile; an 8 MiB file read here held it at most one
        // batch's parse at a time (CSV 91 ms, XES 114 ms, NDJSON 12 ms).
        thread: readWhole(body.format) || (body.contentBytes ?? 0) >= THREAD_MIN_BYTES || worthAThread(file),
      });
      const store = this.ctx.states.store(projectId);
      const summary = {
        format: read.format,
        case_notion: read.case_notion,
        source,
        ...(await inTurn(() => this.ctx.sourceCounts(tenantId, projectId, source), stop.signal)),
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

  /**
   * Where an import's batches go: a work thread, in the tenant's fair queue (the project's write lane, beside its
   * HTTP batches: one writer per project), so a dataset of millions of events never holds the request loop (a batch
   * of 5,000 events applied on it took about 200 ms, every other tenant waiting). A tenant whose queue is full
   * waits its turn rather than failing the import; `signal` (stopping, the project deleted) ends the wait.
   */
  private targetOf(tenantId: string, projectId: string, signal: AbortSignal): IngestTarget {
    const target = this.ctx.states.target(projectId);
    return {
      ...target,
      apply: (batch, position) => inTurn(() => this.ctx.ingest(tenantId, projectId, { batch, position: position! }, signal), signal),
    };
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
      if (value === undefined && TRAIT_KEYS.has(key)) store.deleteMeta(key);
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

  /**
   * Stops the checks and imports running here, at once: a check's thread is ended (its upload is answered 503 and
   * its staged file removed, nothing applied), an import stops between two batches, or its reader thread is ended
   * wherever it stands (the request gets 503; the dataset stays importing, and the next start resumes it from its
   * stored position, as after a crash). `pcg serve` calls it as soon as it is told to stop.
   */
  stop(): void {
    if (!this.stopping.signal.aborted) this.stopping.abort();
  }

  /** Stops what runs here (stop) and waits for it. */
  async close(): Promise<void> {
    this.stop();
    await Promise.allSettled([...this.running.values(), ...this.checking]);
  }
}

/**
 * A reader's error about the file as a 4xx that names the upload, never a path on the server; other errors as they
 * are. A file over a size limit (content_too_large) is 413, over another limit (limit_exceeded) 422, naming the
 * setting; any other refusal 400.
 */
export function fileError(error: unknown, paths: string[], shown: string): unknown {
  if (error instanceof ApiError) return error;
  // The readers' errors describe the file, not the server: a FileImportError (an OcelError, an XmlError) by the file
  // table, and EngineError's event codes. A check thread's refusal arrives in its class (api/upload-checks.ts).
  const file = error instanceof FileImportError;
  if (file || (error instanceof EngineError && (error.code === 'invalid_argument' || error.code === 'invalid_event'))) {
    const status = file ? fileToApi[error.code] : 'validation_failed';
    return new ApiError(status, `the file could not be imported (${error.code}): ${hidePath(error.message, paths, shown)}; nothing was imported`);
  }
  return error;
}

function hidePath(text: string, paths: string[], shown: string): string {
  for (const p of paths) text = text.split(p).join(shown);
  return text;
}

/** Runs a task of an import in its tenant's queue, waiting its turn while the queue is full (429) until `signal` ends it. */
async function inTurn<T>(task: () => Promise<T>, signal: AbortSignal): Promise<T> {
  for (;;) {
    try {
      return await task();
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (!(error instanceof ApiError && error.code === 'rate_limited')) throw error;
      await sleep(1000, undefined, { signal }).catch(() => {});
    }
  }
}
