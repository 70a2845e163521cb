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

  constructor(
    private readonly maxCases: number,
    /** A cap shared with the other stores of a process, on top of this cache's own. */
    private readonly budget?: FoldBudget,
  ) {
    budget?.join(this);
  }

  get size(): number {
    return this.entries.size;
  }

  get(caseId: string): CaseFold | undefined {
    const entry = this.entries.get(caseId);
    if (!entry) return undefined;
    entry.used = true;
    return entry.fold;
  }

  /** Stores (or replaces) a case's fold; an empty fold removes it. */
  set(caseId: string, fold: CaseFold): void {
    if (fold.size === 0 || this.maxCases === 0) {
      if (this.entries.delete(caseId)) this.budget?.released(1);
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
    else this.budget?.added(this);
  }

  /** Moves the hand past entries used since its last pass (clearing their flag) and drops the first unused one. */
  evictOne(): void {
    for (const [caseId, entry] of this.entries) {
      this.entries.delete(caseId);
      if (!entry.used) return;
      entry.used = false;
      this.entries.set(caseId, entry);
    }
  }

  clear(): void {
    this.budget?.released(this.entries.size);
    this.entries.clear();
  }

  /** Empties the cache and leaves its budget (the store closed). */
  dispose(): void {
    this.clear();
    this.budget?.leave(this);
  }
}

/**
 * The folds all open stores of a process may keep together. Each store's
 * cache has its own cap (cacheCases), but a process may hold hundreds of
 * stores (PCG_MAX_OPEN_STORES), so without a shared cap its memory would
 * grow with their number (soak run: about 240 MiB per busy store). Over
 * budget, the cache that just grew gives up a fold if it holds more than its
 * share (budget / caches); otherwise the next cache in turn that does.
 */
export class FoldBudget {
  private readonly caches = new Set<CaseCache>();
  private used = 0;
  private turn: Iterator<CaseCache> | undefined;

  constructor(readonly limit: number) {}

  /** Folds held by all caches together. */
  get size(): number {
    return this.used;
  }

  join(cache: CaseCache): void {
    this.caches.add(cache);
  }

  leave(cache: CaseCache): void {
    this.caches.delete(cache);
    this.turn = undefined;
  }

  released(count: number): void {
    this.used -= count;
  }

  added(by: CaseCache): void {
    this.used += 1;
    if (this.used <= this.limit) return;
    const share = this.limit / Math.max(1, this.caches.size);
    if (by.size > share) return this.evictFrom(by);
    // Every cache at most once: one of them holds more than its share, since together they hold more than the limit.
    for (let i = 0; i < this.caches.size; i++) {
      let next = this.turn?.next();
      if (!next || next.done) next = (this.turn = this.caches.values()).next();
      if (!next.done && next.value.size > share) return this.evictFrom(next.value);
    }
  }

  private evictFrom(cache: CaseCache): void {
    cache.evictOne();
    this.used -= 1;
  }
}
