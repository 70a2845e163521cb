import type { CaseFold } from '../contribution.js';

interface Entry {
  fold: CaseFold;
  /** Touched since the eviction hand last passed it. */
  used: boolean;
}

/**
 * Recently touched cases' folds, so a stream that keeps appending to open
 * cases continues their contribution instead of re-reading and recounting
 * them. Only folds are held, not events: a fold is what an append needs, and
 * anything else (a late or replaced event) reads the case back from SQLite.
 * Bounded by the number of cases. Only a copy: the store clears it whenever a
 * transaction fails.
 *
 * Eviction is CLOCK (second chance), an approximation of least recently
 * used: a hit sets a flag instead of moving the entry to the back of the map,
 * which for a stream touching ~10k cases a batch was a delete and re-insert
 * per case per batch.
 */
export class CaseCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxCases: number) {}

  get(caseId: string): CaseFold | undefined {
    const entry = this.entries.get(caseId);
    if (!entry) return undefined;
    entry.used = true;
    return entry.fold;
  }

  /** Stores (or replaces) a case's fold; an empty fold removes it. */
  set(caseId: string, fold: CaseFold): void {
    if (fold.size === 0 || this.maxCases === 0) {
      this.entries.delete(caseId);
      return;
    }
    const entry = this.entries.get(caseId);
    if (entry) {
      entry.fold = fold;
      entry.used = true;
      return;
    }
    this.entries.set(caseId, { fold, used: false });
    if (this.entries.size > this.maxCases) this.evictOne();
  }

  /** Moves the hand past entries used since its last pass (clearing their flag) and drops the first unused one. */
  private evictOne(): void {
    for (const [caseId, entry] of this.entries) {
      this.entries.delete(caseId);
      if (!entry.used) return;
      entry.used = false;
      this.entries.set(caseId, entry);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
