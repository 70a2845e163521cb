import { EventEmitter } from 'node:events';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { ApplyResult, Batch, Position, RetractResult, StoreOptions } from '../store/project-store.js';
import { DEFAULT_EVENT_LIMITS, type EventLimits } from '../event.js';
import { EngineError } from '../errors.js';
import { ProjectStore } from '../store/project-store.js';
import { FoldBudget } from '../store/case-cache.js';
import { mergedState, storeState, type ProjectState } from './state.js';
import type { PreparedBatch } from '../store/prepare.js';
import { prunePass, type PassOptions, type PassResult, type RetentionPolicy, type StoreRef } from './retention.js';

/**
 * Emitted on `changes` with the project id when a project is removed, so that per-project series and caches let go
 * of it. (Names with a colon are never taken for project ids by `watch`.)
 */
export const PROJECT_DELETED = ':project-deleted';

/** A stream partition's state file: `<source id>.<partition>.sqlite` under the project's `parts/` folder. */
/**
 * Folds of recently touched cases a partition store keeps in memory: a worker
 * holds many partitions, and a time-ordered stream has far fewer cases in
 * flight per partition than a project's own store may be sent (100k).
 */
const PART_CACHE_CASES = 20_000;

/** Stores open at once by default: up to 1,024 descriptors (four each, api/descriptors.ts); `pcg serve` checks its cap against the descriptor limit. */
export const DEFAULT_MAX_OPEN = 256;

const PART_FILE = /^([A-Za-z0-9_-]+)\.(\d+)\.sqlite$/;

/** Told of every applied batch (metrics listen here): which project, which kind of store, the result and how long it took. */
export type ApplyObserver = (projectId: string, store: 'project' | 'partition', result: ApplyResult, seconds: number) => void;

export interface RegistryOptions {
  /** Stores open at once (default DEFAULT_MAX_OPEN). */
  maxOpen?: number;
  observe?: ApplyObserver;
  /** Bounds on one event, handed to every store (project and partition) it opens (default DEFAULT_EVENT_LIMITS). */
  limits?: EventLimits;
  /** Case folds all its open stores may cache together (default DEFAULT_CACHED_CASES). */
  cachedCases?: number;
  /** Bytes of given-up folds all its open stores may keep as text together (default DEFAULT_CACHED_CASE_TEXT_BYTES). */
  cachedCaseTextBytes?: number;
}

/** About 400 MB of folds at their usual 1 to 1.5 KB: the cases a few busy streams have open. */
export const DEFAULT_CACHED_CASES = 300_000;

/** 128 MiB: about 280k cases' folds as text, twice a single store's own cap. */
export const DEFAULT_CACHED_CASE_TEXT_BYTES = 128 * 2 ** 20;

/** What a writer other than the store's owner needs of a project: apply batches, set meta, read the tally. */
export interface IngestTarget {
  /**
   * A batch, or one prepared under `limits` (by `prepareBatch`, say on a reader thread); applied here, or handed
   * to where the project is written (a work thread in `pcg serve`, api/datasets.ts) and answered when it is in.
   */
  apply(batch: Batch | PreparedBatch, position?: Position): ApplyResult | Promise<ApplyResult>;
  /** The bounds a prepared batch must have been checked against. */
  readonly limits: EventLimits;
  setMeta(key: string, value: string): void;
  /** Cases and events counted now (an import's summary). */
  totals(): { cases: number; events: number };
}

/**
 * Takes back every event of one source from a project's store file on a connection of its own (another
 * thread: api/retract-thread.ts), while the registry keeps the file closed.
 */
export type SourceRetractor = (file: string, source: string) => Promise<RetractResult>;

/**
 * The open project state files of a data directory, opened on first use and
 * kept open up to `maxOpen` (least recently used closed first: each open
 * SQLite file in WAL mode holds three descriptors, four once another thread's
 * connection to it closed: api/descriptors.ts; and one tenant's many
 * projects must not use up the process's); what the API, a worker, an agent server and a page all share,
 * free of any framework. A project's state is its own store (HTTP ingestion,
 * dataset upload, the demo feed) plus one store per partition of each stream
 * source (written only by the process that holds the partition); readers see
 * them merged (`state`). Every write goes through `ingest` or `ingestPart`,
 * which apply a batch and then announce the project's new data version on
 * `changes` (the graph stream listens there); `watch` announces the versions
 * other processes write.
 */
export class ProjectRegistry {
  readonly changes = new EventEmitter();
  /** Every open store by file path, least recently used first (a Map keeps insertion order; a use re-inserts). */
  private readonly open = new Map<string, ProjectStore>();
  /** The version last announced per project, so the watcher announces each once. */
  private readonly announced = new Map<string, number>();
  private watcher: NodeJS.Timeout | undefined;
  /** Stores with a settle scheduled (see settleSoon). */
  private readonly settling = new Set<ProjectStore>();
  /** Projects whose own store another thread is rewriting (retractElsewhere): closed here until it is done. */
  private readonly away = new Map<string, Promise<void>>();

  /** Stores open at once at most. */
  readonly maxOpen: number;
  private readonly observe: ApplyObserver | undefined;
  /** Bounds on one event: every store of the registry checks its batches against them, whatever the source. */
  readonly limits: EventLimits;
  /** The case folds its stores cache, together: bounded whatever the number of open stores. */
  readonly folds: FoldBudget;

  constructor(
    readonly dataDir: string,
    options: RegistryOptions = {},
  ) {
    this.maxOpen = options.maxOpen ?? DEFAULT_MAX_OPEN;
    this.observe = options.observe;
    this.limits = options.limits ?? DEFAULT_EVENT_LIMITS;
    this.folds = new FoldBudget(options.cachedCases ?? DEFAULT_CACHED_CASES, options.cachedCaseTextBytes ?? DEFAULT_CACHED_CASE_TEXT_BYTES);
    this.changes.setMaxListeners(0);
  }

  /** The store of a file, opened if needed, marked as just used; opening past `maxOpen` closes the least recently used. */
  private openFile(file: string, options: StoreOptions): ProjectStore {
    let s = this.open.get(file);
    if (s) {
      this.open.delete(file);
      this.open.set(file, s);
      return s;
    }
    for (const [old, store] of this.open) {
      if (this.open.size < this.maxOpen) break;
      try {
        store.close();
      } catch {
        // A store a reader is still iterating cannot close now; the next one goes instead.
        continue;
      }
      this.open.delete(old);
    }
    s = ProjectStore.open(file, { ...options, limits: this.limits, foldBudget: this.folds, deferMerges: true });
    this.open.set(file, s);
    return s;
  }

  /** Stores open now (for metrics and tests). */
  get openCount(): number {
    return this.open.size;
  }

  /** Counter keys the open stores hold in memory together (each store at most its maxCounterIds). */
  get counterKeys(): number {
    let n = 0;
    for (const s of this.open.values()) n += s.counterKeys;
    return n;
  }

  dirOf(projectId: string): string {
    return join(this.dataDir, 'projects', projectId);
  }
  fileOf(projectId: string): string {
    return join(this.dirOf(projectId), 'state.sqlite');
  }

  partsDir(projectId: string): string {
    return join(this.dirOf(projectId), 'parts');
  }

  /** The state file of one partition of a stream source. */
  part(projectId: string, source: string, partition: number): ProjectStore {
    if (!/^[A-Za-z0-9_-]+$/.test(source) || !Number.isInteger(partition) || partition < 0) throw new Error(`bad partition name ${source}.${partition}`);
    return this.partFile(join(this.partsDir(projectId), `${source}.${partition}.sqlite`));
  }

  private partFile(file: string): ProjectStore {
    return this.openFile(file, { cacheCases: PART_CACHE_CASES });
  }

  /** The partition stores found on disk (any process may have made them). */
  parts(projectId: string): ProjectStore[] {
    return this.filesOf(projectId)
      .slice(1)
      .map((f) => this.partFile(f));
  }

  /** The files `state` reads, in its order: the project's own store, then its partition states found on disk. */
  filesOf(projectId: string): string[] {
    const dir = this.partsDir(projectId);
    const parts = existsSync(dir) ? readdirSync(dir).filter((f) => PART_FILE.test(f)).sort().map((f) => join(dir, f)) : [];
    return [this.fileOf(projectId), ...parts];
  }

  /** The partition stores of one source, by partition. */
  partsOf(projectId: string, source: string): { partition: number; store: ProjectStore }[] {
    const dir = this.partsDir(projectId);
    if (!existsSync(dir)) return [];
    const out: { partition: number; store: ProjectStore }[] = [];
    for (const f of readdirSync(dir)) {
      const m = PART_FILE.exec(f);
      if (m && m[1] === source) out.push({ partition: Number(m[2]), store: this.partFile(join(dir, f)) });
    }
    return out.sort((a, b) => a.partition - b.partition);
  }

  /** The project's state as readers see it: its own store, merged with its partition states when it has any. */
  state(projectId: string): ProjectState {
    const own = this.store(projectId);
    const parts = this.parts(projectId);
    return parts.length ? mergedState(own, parts) : storeState(own);
  }

  /** The project's own store, for reading (writers go through ingest, retract and target, which refuse while it is away). */
  store(projectId: string): ProjectStore {
    return this.openFile(this.fileOf(projectId), {});
  }

  /** Refuses a write while another thread rewrites the project's own store (retractElsewhere). */
  private writable(projectId: string): void {
    if (this.away.has(projectId)) throw new EngineError('state_busy', `project ${projectId} is taking back a dataset's events; write again shortly`);
  }

  /** Applies a batch to the project (exactly once per position) and announces the new data version, if there is one. */
  ingest(projectId: string, batch: Batch | PreparedBatch, position?: Position): ApplyResult {
    this.writable(projectId);
    const store = this.store(projectId);
    const before = store.dataVersion;
    const started = performance.now();
    const result = store.apply(batch, position);
    this.observe?.(projectId, 'project', result, (performance.now() - started) / 1000);
    this.settleSoon(store);
    // Any change counts (new events, replaced bodies, OCEL objects), not only accepted events.
    if (store.dataVersion !== before) this.announce(projectId);
    return result;
  }

  /** Applies a batch of one stream partition to that partition's state, exactly once per position, and announces the change. */
  ingestPart(projectId: string, batch: Batch | PreparedBatch, position: Position): ApplyResult {
    const store = this.part(projectId, position.source, position.partition);
    const before = store.dataVersion;
    const started = performance.now();
    const result = store.apply(batch, position);
    this.observe?.(projectId, 'partition', result, (performance.now() - started) / 1000);
    this.settleSoon(store);
    if (store.dataVersion !== before) this.announce(projectId);
    return result;
  }

  /**
   * Runs a store's due merges once the caller's turn is over (after the ingest request is answered, between a
   * source's batches), so that no batch waits for one; a store that is never settled merges inside a batch once
   * its merge is overdue (engine/store/batch-log.ts).
   */
  private settleSoon(store: ProjectStore): void {
    if (!store.settleDue || this.settling.has(store)) return;
    this.settling.add(store);
    setImmediate(() => {
      this.settling.delete(store);
      try {
        store.settle();
      } catch {
        // A busy or closed file: the merge stays due, and the next batch tries again (or merges itself once overdue).
      }
    });
  }

  /** Takes back from the project's own store every event of one source (a deleted dataset) and announces the change. */
  retract(projectId: string, source: string): RetractResult {
    this.writable(projectId);
    const store = this.store(projectId);
    const before = store.dataVersion;
    const result = store.retractSource(source);
    if (store.dataVersion !== before) this.announce(projectId);
    return result;
  }

  /**
   * `retract` done by another thread: its cost grows with the source's events (about 15 s for a million,
   * one transaction), which on this thread would hold every tenant's requests. Meanwhile writes to the
   * project answer `state_busy` (retriable) and reads go on: they see the state before the retraction until
   * its transaction commits, as readers of a file another thread writes do (partition states). The store
   * open here is dropped before and after (its pending merges stay in the batch log, whole), so what is
   * cached for writing (the key index, case folds) is never the old one.
   */
  async retractElsewhere(projectId: string, source: string, elsewhere: SourceRetractor): Promise<RetractResult> {
    // One at a time: a second would write the file beside the first.
    this.writable(projectId);
    const file = this.fileOf(projectId);
    const drop = () => {
      // Throws while a reader still iterates it (a reader runs to its end within one turn, so not here).
      this.open.get(file)?.close({ discard: true });
      this.open.delete(file);
    };
    drop();
    let done = () => {};
    this.away.set(projectId, new Promise<void>((resolve) => (done = resolve)));
    try {
      return await elsewhere(file, source);
    } finally {
      drop();
      this.away.delete(projectId);
      done();
      // A project deleted meanwhile has no listeners left, so nothing is opened (or made again) here.
      this.announce(projectId);
    }
  }

  /** Whether another thread is rewriting the project's own store now (retractElsewhere). */
  isAway(projectId: string): boolean {
    return this.away.has(projectId);
  }

  /** Settles once the project may be written again (at once when nobody rewrites it elsewhere). */
  async whenWritable(projectId: string): Promise<void> {
    for (let gate = this.away.get(projectId); gate; gate = this.away.get(projectId)) await gate;
  }

  /** The project's state files that exist (its own store, then its partition states), each looked up when used. */
  storesOf(projectId: string): StoreRef[] {
    // A file deleted meanwhile (the project was) is not made again by looking it up.
    const existing = (file: string, open: () => ProjectStore): StoreRef => () => {
      if (!this.open.has(file) && !existsSync(file)) throw new Error(`${file} is gone`);
      return open();
    };
    const own = this.fileOf(projectId);
    const refs: StoreRef[] = existsSync(own)
      ? [
          existing(own, () => {
            // Retention writes: not while another thread rewrites the file.
            this.writable(projectId);
            return this.store(projectId);
          }),
        ]
      : [];
    const dir = this.partsDir(projectId);
    if (!existsSync(dir)) return refs;
    for (const f of readdirSync(dir).filter((f) => PART_FILE.test(f)).sort()) {
      const file = join(dir, f);
      refs.push(existing(file, () => this.partFile(file)));
    }
    return refs;
  }

  /**
   * One retention pass over the project's stores (engine/projects/retention.ts), announcing the new data
   * version if it made one (deleted dead letters change the `rejected` count; pruned events change nothing counted).
   */
  async prune(projectId: string, policy: RetentionPolicy, options: PassOptions = {}): Promise<PassResult> {
    const stores = this.storesOf(projectId);
    if (stores.length === 0) return { cases: 0, events: 0, deadLetters: 0 };
    // A project deleted during the pass stops it.
    const stop = new AbortController();
    const deleted = `${projectId}:deleted`;
    const onDeleted = () => stop.abort();
    this.changes.on(deleted, onDeleted);
    options.signal?.addEventListener('abort', onDeleted);
    if (options.signal?.aborted) stop.abort();
    try {
      const result = await prunePass(stores, policy, { ...options, signal: stop.signal });
      if (result.deadLetters > 0 && !stop.signal.aborted) this.announce(projectId);
      return result;
    } finally {
      this.changes.off(deleted, onDeleted);
      options.signal?.removeEventListener('abort', onDeleted);
    }
  }

  /** Tells the listeners of `changes` the project's data version, once per version. */
  announce(projectId: string): void {
    if (this.changes.listenerCount(projectId) === 0) return;
    const version = this.state(projectId).dataVersion;
    if (this.announced.get(projectId) === version) return;
    this.announced.set(projectId, version);
    this.changes.emit(projectId, version);
  }

  /**
   * Announces, every `intervalMs`, the versions of watched projects (those with
   * listeners) that changed without passing through this registry: written by a
   * `pcg worker` process or a source thread.
   */
  watch(intervalMs: number): void {
    if (this.watcher) return;
    this.watcher = setInterval(() => {
      for (const name of this.changes.eventNames()) {
        if (typeof name !== 'string' || name.includes(':')) continue;
        try {
          this.announce(name);
        } catch {
          // A busy or vanished file is tried again on the next tick.
        }
      }
    }, intervalMs);
    this.watcher.unref();
  }

  /**
   * The project as a write target for importers: its batches go through `ingest` (so every
   * batch is announced, as for any stream), its meta and tally straight to the store.
   */
  target(projectId: string): IngestTarget {
    // The store is looked up at each call: between two batches the LRU may have closed it.
    return {
      apply: (batch, position) => this.ingest(projectId, batch, position),
      limits: this.limits,
      setMeta: (key, value) => {
        this.writable(projectId);
        this.store(projectId).setMeta(key, value);
      },
      totals: () => this.store(projectId).totals(),
    };
  }

  /** Closes the store and deletes every file of the project. */
  remove(projectId: string): void {
    this.announced.delete(projectId);
    const dir = this.dirOf(projectId);
    for (const [file, s] of this.open) {
      if (file.startsWith(dir + sep)) {
        // Its files go next: pending changes are not worth merging.
        s.close({ discard: true });
        this.open.delete(file);
      }
    }
    this.changes.emit(`${projectId}:deleted`);
    this.changes.emit(PROJECT_DELETED, projectId);
    rmSync(this.dirOf(projectId), { recursive: true, force: true });
  }

  close(): void {
    if (this.watcher) clearInterval(this.watcher);
    this.watcher = undefined;
    for (const s of this.open.values()) s.close();
    this.open.clear();
  }
}
