import type { CaseFold } from '../contribution.js';

/**
 * Recently touched cases' folds, so a stream that keeps appending to open
 * cases continues their contribution instead of re-reading and recounting
 * them. Only folds are held, not events: a fold is what an append needs, and
 * anything else (a late or replaced event) reads the case back from SQLite.
 * Bounded by the number of cases; the least recently used goes first. Only a
 * copy: the store clears it whenever a transaction fails.
 */
export class CaseCache {
  private readonly folds = new Map<string, CaseFold>();

  constructor(private readonly maxCases: number) {}

  get(caseId: string): CaseFold | undefined {
    const fold = this.folds.get(caseId);
    if (fold) {
      this.folds.delete(caseId);
      this.folds.set(caseId, fold);
    }
    return fold;
  }

  /** Stores (or replaces) a case's fold; an empty fold removes it. */
  set(caseId: string, fold: CaseFold): void {
    this.folds.delete(caseId);
    if (fold.size === 0 || this.maxCases === 0) return;
    this.folds.set(caseId, fold);
    if (this.folds.size > this.maxCases) this.folds.delete(this.folds.keys().next().value!);
  }

  delete(caseId: string): void {
    this.folds.delete(caseId);
  }

  clear(): void {
    this.folds.clear();
  }
}
