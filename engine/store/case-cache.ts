import type { CaseFold } from '../contribution.js';
import type { Event } from '../event.js';

/** A case as the store last left it: its events in case order and its contribution's fold. */
export interface CaseEntry {
  trace: Event[];
  fold: CaseFold;
}

/**
 * Recently touched cases, so a stream that keeps appending to open cases
 * neither re-reads them from SQLite nor recomputes their contribution.
 * Bounded by the number of events held; the least recently used case goes
 * first. Only a copy: the store clears it whenever a transaction fails.
 */
export class CaseCache {
  private readonly entries = new Map<string, CaseEntry>();
  private held = 0;

  constructor(private readonly maxEvents: number) {}

  get(caseId: string): CaseEntry | undefined {
    const entry = this.entries.get(caseId);
    if (entry) {
      this.entries.delete(caseId);
      this.entries.set(caseId, entry);
    }
    return entry;
  }

  /** Stores (or replaces) a case; an empty trace removes it. */
  set(caseId: string, entry: CaseEntry): void {
    this.delete(caseId);
    if (entry.trace.length === 0 || entry.trace.length > this.maxEvents) return;
    this.entries.set(caseId, entry);
    this.held += entry.trace.length;
    for (const [id, e] of this.entries) {
      if (this.held <= this.maxEvents) break;
      this.entries.delete(id);
      this.held -= e.trace.length;
    }
  }

  /** Call before an entry's trace grows in place, then set() it again. */
  delete(caseId: string): void {
    const old = this.entries.get(caseId);
    if (old) {
      this.held -= old.trace.length;
      this.entries.delete(caseId);
    }
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }
}
