import { existsSync } from 'node:fs';
import { ProjectStore, type ApplyResult, type Batch, type Position, type ProjectSnapshot, type SourceCounts, type StoreOptions, type TallyChange } from '../store/project-store.js';
import type { PreparedBatch } from '../store/prepare.js';
import type { CaseQuery } from './case-queries.js';
import { readCases, type CaseAnswer } from './case-reads.js';
import { scopedSnapshot, type Scope } from './scope.js';
import { mergedState, storeState, type ProjectState } from './state.js';

/**
 * A project's state read from its files by a thread that does not own them (a
 * work thread of `pcg serve`): the stores are opened here on first use and
 * kept, up to `maxOpen`, so their counted state stays in memory between builds
 * while nobody else writes them. The same thread may also write a project's own
 * store (`apply`: HTTP ingestion off the request loop); a store it writes keeps
 * its key index, case folds and counted state warm for its next batch and its
 * next build, as long as no other connection wrote between (the store checks
 * the file's data version and drops what another writer made stale). A file
 * that is gone (the project was deleted) is not made again.
 */
export class StateFiles {
  private readonly open = new Map<string, ProjectStore>();

  constructor(
    private readonly maxOpen = 16,
    /** How stores are opened here (limits and a fold budget for a thread that writes). */
    private readonly options: StoreOptions = {},
  ) {}

  /**
   * Applies a batch to a store file that exists, exactly once per position, in the store's one immediate
   * transaction (engine/store/project-store.ts), and says how long the transaction took. Merges a batch makes
   * due wait for `settle`, which the caller runs once the batch is answered. `change` is the batch's counted
   * change, for the other threads that hold the file open (`follow`).
   */
  apply(file: string, batch: Batch | PreparedBatch, position?: Position): { result: ApplyResult; seconds: number; change?: TallyChange } {
    const store = this.store(file);
    const started = performance.now();
    const result = store.apply(batch, position);
    const seconds = (performance.now() - started) / 1000;
    const change = store.takeChange();
    return change ? { result, seconds, change } : { result, seconds };
  }

  /** Carries the tally of `file`, if it is open here, forward by a batch another thread applied (ProjectStore.followChange). */
  follow(file: string, change: TallyChange): boolean {
    const s = this.open.get(file);
    return s?.db.open ? s.followChange(change) : false;
  }

  /** Runs the merges the store's batches left due, if it is open here (see ProjectStore.settle). */
  settle(file: string): void {
    const s = this.open.get(file);
    if (s?.db.open) s.settle();
  }

  /** The snapshot `ProjectRegistry.state` gives for these files (the own store, then the partition states). */
  snapshot(files: readonly string[]): ProjectSnapshot {
    return this.state(files).snapshot();
  }

  /**
   * The snapshot of a scoped view of these files (engine/projects/scope.ts). A project kept in one file is
   * read in one read transaction, so the version is that of the events replayed, though its writer goes on.
   */
  scopedSnapshot(files: readonly string[], scopes: readonly Scope[]): ProjectSnapshot {
    const state = this.state(files);
    if (files.length > 1) return scopedSnapshot(state, scopes);
    return this.store(files[0]!).db.transaction(() => scopedSnapshot(state, scopes))();
  }

  /** A query over the cases of these files' scoped view (engine/projects/case-reads.ts), one read transaction for a one-file project. */
  read(files: readonly string[], scopes: readonly Scope[], query: CaseQuery): CaseAnswer {
    const state = this.state(files);
    if (files.length > 1) return readCases(state, scopes, query);
    return this.store(files[0]!).db.transaction(() => readCases(state, scopes, query))();
  }

  /** What one source brought to the project kept in `file` (ProjectStore.sourceCounts). */
  sourceCounts(file: string, source: string): SourceCounts {
    return this.store(file).sourceCounts(source);
  }

  private state(files: readonly string[]): ProjectState {
    const [own, ...parts] = files.map((f) => this.store(f));
    if (!own) throw new Error('no state files');
    return parts.length ? mergedState(own, parts) : storeState(own);
  }

  /** Stores open here now (for metrics). */
  get openCount(): number {
    return this.open.size;
  }

  /** Counter keys the stores open here hold in memory together (for metrics). */
  get counterKeys(): number {
    let n = 0;
    for (const s of this.open.values()) if (s.db.open) n += s.counterKeys;
    return n;
  }

  close(): void {
    for (const s of this.open.values()) s.close({ discard: true });
    this.open.clear();
  }

  private store(file: string): ProjectStore {
    let s = this.open.get(file);
    if (!existsSync(file)) {
      // Deleted since it was opened here: let its space go.
      s?.close({ discard: true });
      this.open.delete(file);
      throw new Error(`${file} is gone`);
    }
    if (s?.db.open) {
      this.open.delete(file);
      this.open.set(file, s);
      return s;
    }
    for (const [old, store] of this.open) {
      if (this.open.size < this.maxOpen) break;
      store.close({ discard: true });
      this.open.delete(old);
    }
    s = ProjectStore.open(file, this.options);
    this.open.set(file, s);
    return s;
  }
}
