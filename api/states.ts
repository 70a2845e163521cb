import { EventEmitter } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ProjectStore } from '../engine/index.js';

/**
 * The open project state files, one ProjectStore per project, opened on first
 * use and kept open. Writers announce new data versions on `changes`, which the
 * graph stream listens to.
 */
export class ProjectStates {
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

  /** Called after every write path (ingestion, import, live feed). */
  changed(projectId: string): void {
    const s = this.open.get(projectId);
    if (s) this.changes.emit(projectId, s.dataVersion);
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
