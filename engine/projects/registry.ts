import { EventEmitter } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ApplyResult, Batch, Position } from '../store/project-store.js';
import type { Tally } from '../tally.js';
import { ProjectStore } from '../store/project-store.js';

/** What a writer other than the store's owner needs of a project: apply batches, set meta, read the tally. */
export interface IngestTarget {
  apply(batch: Batch, position?: Position): ApplyResult;
  setMeta(key: string, value: string): void;
  currentTally(): Tally;
}

/**
 * The open project state files of a data directory, one ProjectStore per
 * project, opened on first use and kept open; what the API, a worker, an
 * agent server and a page all share, free of any framework. Every write path
 * (HTTP ingestion, dataset upload, the demo feed, stream sources) goes
 * through `ingest`, which applies a batch and then announces the new data
 * version on `changes` (the graph stream, and later metrics, listen there).
 */
export class ProjectRegistry {
  readonly changes = new EventEmitter();
  private readonly open = new Map<string, ProjectStore>();

  constructor(readonly dataDir: string) {
    this.changes.setMaxListeners(0);
  }

  dirOf(projectId: string): string {
    return join(this.dataDir, 'projects', projectId);
  }
  fileOf(projectId: string): string {
    return join(this.dirOf(projectId), 'state.sqlite');
  }

  store(projectId: string): ProjectStore {
    let s = this.open.get(projectId);
    if (!s) {
      s = ProjectStore.open(this.fileOf(projectId));
      this.open.set(projectId, s);
    }
    return s;
  }

  /** Applies a batch to the project (exactly once per position) and announces the new data version, if there is one. */
  ingest(projectId: string, batch: Batch, position?: Position): ApplyResult {
    const store = this.store(projectId);
    const before = store.dataVersion;
    const result = store.apply(batch, position);
    // Any change counts (new events, replaced bodies, OCEL objects), not only accepted events.
    if (store.dataVersion !== before) this.changes.emit(projectId, store.dataVersion);
    return result;
  }

  /**
   * The project as a write target for importers: its batches go through `ingest` (so every
   * batch is announced, as for any stream), its meta and tally straight to the store.
   */
  target(projectId: string): IngestTarget {
    const store = this.store(projectId);
    return {
      apply: (batch, position) => this.ingest(projectId, batch, position),
      setMeta: (key, value) => store.setMeta(key, value),
      currentTally: () => store.currentTally(),
    };
  }

  /** Closes the store and deletes every file of the project. */
  remove(projectId: string): void {
    this.open.get(projectId)?.close();
    this.open.delete(projectId);
    this.changes.emit(`${projectId}:deleted`);
    rmSync(this.dirOf(projectId), { recursive: true, force: true });
  }

  close(): void {
    for (const s of this.open.values()) s.close();
    this.open.clear();
  }
}
