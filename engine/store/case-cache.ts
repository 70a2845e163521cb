import type { CaseFold } from '../contribution.js';
import { ColdFolds } from './cold-folds.js';

/** A store's folds kept as text by default: 64 MiB, about 180k cases at the 240 characters (plus ENTRY_BYTES) a simulated order's packed fold takes. */
export const DEFAULT_COLD_FOLD_BYTES = 64 * 2 ** 20;

/** How a cache turns a fold it gives up into text and back (the store's: CaseFold.pack and CaseFold.unpack under its current book). */
export interface FoldCodec {
  text(fold: CaseFold): string;
  fold(text: string): CaseFold;
}

/**
 * Recently touched cases' folds, so a stream that keeps appending to open
 * cases continues their contribution instead of re-reading and recounting
 * them. Only folds are held, not events: a fold is what an append needs, and
 * anything else (a late or replaced event) reads the case back from SQLite.
 * Bounded by the number of cases, plus, with a codec, the folds it gave up
 * kept as text up to a number of bytes (ColdFolds). Only a copy: the store
 * clears it whenever a transaction fails.
 *
 * Eviction is CLOCK (second chance), an approximation of least recently
 * used: a hit sets a flag instead of moving the entry to the back, and a hand
 * sweeps a ring of slots, clearing flags, to the first unflagged entry. The
 * ring is arrays, not the order of a Map: deleting a Map's oldest entries
 * leaves holes that every new iterator walks again, so once a store's cache
 * was full each eviction cost the number of evictions before it (a fifth of
 * the apply time by the second million events of a stream).
 */
export class CaseCache {
  /** Case id -> its slot in the ring. */
  private readonly slots = new Map<string, number>();
  private ids: (string | undefined)[] = [];
  private folds: (CaseFold | undefined)[] = [];
  /** Touched since the hand last passed the slot. */
  private used: boolean[] = [];
  /** Slots emptied by a removal, to be filled first. */
  private free: number[] = [];
  private hand = 0;
  private readonly cold: ColdFolds | undefined;

  constructor(
    private readonly maxCases: number,
    /** A cap shared with the other stores of a process, on top of this cache's own. */
    private readonly budget?: FoldBudget,
    private readonly codec?: FoldCodec,
    /** Bytes of given-up folds kept as text (0: none). */
    private readonly maxColdBytes = 0,
  ) {
    if (codec && maxColdBytes > 0 && maxCases > 0) this.cold = new ColdFolds((delta) => budget?.coldChanged(this, delta));
    budget?.join(this);
  }

  get size(): number {
    return this.slots.size;
  }

  /** Bytes of folds held as text. */
  get coldBytes(): number {
    return this.cold?.bytes ?? 0;
  }

  get(caseId: string): CaseFold | undefined {
    const slot = this.slots.get(caseId);
    if (slot !== undefined) {
      this.used[slot] = true;
      return this.folds[slot];
    }
    const text = this.cold?.take(caseId);
    if (text === undefined) return undefined;
    const fold = this.codec!.fold(text);
    this.insert(caseId, fold, true);
    return fold;
  }

  /** Stores (or replaces) a case's fold; an empty fold removes it. */
  set(caseId: string, fold: CaseFold): void {
    const slot = this.slots.get(caseId);
    if (fold.size === 0 || this.maxCases === 0) {
      this.cold?.take(caseId);
      if (slot === undefined) return;
      this.drop(slot);
      this.budget?.released(1);
      return;
    }
    if (slot !== undefined) {
      this.folds[slot] = fold;
      this.used[slot] = true;
      return;
    }
    this.cold?.take(caseId);
    this.insert(caseId, fold, false);
  }

  /** Moves the hand past entries used since its last pass (clearing their flag) and gives up the first unused one (kept as text if it can be). */
  evictOne(): void {
    if (this.slots.size === 0) return;
    for (;;) {
      if (this.hand >= this.ids.length) this.hand = 0;
      const at = this.hand++;
      if (this.ids[at] === undefined) continue;
      if (this.used[at]) {
        this.used[at] = false;
        continue;
      }
      const caseId = this.ids[at]!;
      const fold = this.folds[at]!;
      this.drop(at);
      if (this.cold) {
        this.cold.put(caseId, this.codec!.text(fold));
        while (this.cold.bytes > this.maxColdBytes && this.cold.dropOldest() > 0);
      }
      return;
    }
  }

  /** Gives up the oldest fold kept as text; the bytes freed (for the shared budget). */
  dropCold(): number {
    return this.cold?.dropOldest() ?? 0;
  }

  clear(): void {
    this.budget?.released(this.slots.size);
    this.slots.clear();
    this.ids = [];
    this.folds = [];
    this.used = [];
    this.free = [];
    this.hand = 0;
    this.cold?.clear();
  }

  /** Empties the cache and leaves its budget (the store closed). */
  dispose(): void {
    this.clear();
    this.budget?.leave(this);
  }

  private insert(caseId: string, fold: CaseFold, used: boolean): void {
    const at = this.free.pop() ?? this.ids.length;
    this.ids[at] = caseId;
    this.folds[at] = fold;
    this.used[at] = used;
    this.slots.set(caseId, at);
    if (this.slots.size > this.maxCases) this.evictOne();
    else this.budget?.added(this);
  }

  private drop(slot: number): void {
    this.slots.delete(this.ids[slot]!);
    this.ids[slot] = undefined;
    this.folds[slot] = undefined;
    this.free.push(slot);
  }
}

/**
 * The folds all open stores of a process may keep together. Each store's
 * cache has its own cap (cacheCases), but a process may hold hundreds of
 * stores (PCG_MAX_OPEN_STORES), so without a shared cap its memory would
 * grow with their number (soak run: about 240 MiB per busy store). Over
 * budget, the cache that just grew gives up a fold if it holds more than its
 * share (budget / caches); otherwise the next cache in turn that does. The
 * folds kept as text have a budget of their own, in bytes, shared the same way.
 */
export class FoldBudget {
  private readonly caches = new Set<CaseCache>();
  private used = 0;
  private coldUsed = 0;
  private turn: Iterator<CaseCache> | undefined;

  constructor(
    readonly limit: number,
    readonly coldLimit = Infinity,
  ) {}

  /** Folds held by all caches together. */
  get size(): number {
    return this.used;
  }

  /** Bytes of folds all caches hold as text. */
  get coldBytes(): number {
    return this.coldUsed;
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

  /** A cache's text grew or shrank by delta bytes; over budget, the caches over their share give up their oldest. */
  coldChanged(by: CaseCache, delta: number): void {
    this.coldUsed += delta;
    if (delta <= 0) return;
    const share = this.coldLimit / Math.max(1, this.caches.size);
    // Each drop reports back here (a negative delta), which lowers coldUsed.
    while (this.coldUsed > this.coldLimit && by.coldBytes > share && by.dropCold() > 0);
    for (let i = 0; i < this.caches.size && this.coldUsed > this.coldLimit; i++) {
      let next = this.turn?.next();
      if (!next || next.done) next = (this.turn = this.caches.values()).next();
      if (next.done) break;
      while (this.coldUsed > this.coldLimit && next.value.coldBytes > share && next.value.dropCold() > 0);
    }
  }

  private evictFrom(cache: CaseCache): void {
    cache.evictOne();
    this.used -= 1;
  }
}
