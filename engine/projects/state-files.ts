import { existsSync } from 'node:fs';
import { ProjectStore, type ProjectSnapshot } from '../store/project-store.js';
import { mergedState, storeState } from './state.js';

/**
 * A project's state read from its files by a thread that does not own them (a
 * document build thread): the stores are opened here on first use and kept,
 * up to `maxOpen`, so their counted state stays in memory between builds while
 * nobody else writes them. Reads only; a file that is gone (the project was
 * deleted) is not made again.
 */
export class StateFiles {
  private readonly open = new Map<string, ProjectStore>();

  constructor(private readonly maxOpen = 16) {}

  /** The snapshot `ProjectRegistry.state` gives for these files (the own store, then the partition states). */
  snapshot(files: readonly string[]): ProjectSnapshot {
    const [own, ...parts] = files.map((f) => this.store(f));
    if (!own) throw new Error('no state files');
    return (parts.length ? mergedState(own, parts) : storeState(own)).snapshot();
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
    s = ProjectStore.open(file);
    this.open.set(file, s);
    return s;
  }
}
