/**
 * Folds the case cache's ring gave up, kept as text (CaseFold.pack): a
 * live fold is about 1.2 KB of heap in a dozen objects, its text about 240
 * characters in one, which the garbage collector does not look into. A
 * stream whose cases wait long between events (an order paid a month after
 * it shipped) has more of them open than the ring holds; each one it lost was re-read from the event log and recounted, about
 * 120 µs against 4 µs to restore its text (measured on the 10M ingest, where
 * those misses made the later millions half as fast as the first).
 *
 * Bounded in bytes of heap, oldest given up first: an entry is charged its
 * characters (ids and names are ASCII: one byte each) plus ENTRY_BYTES for the
 * string's header, its map entry and its place in the queue (a soak's heap
 * snapshot showed about 480 bytes an entry where the texts averaged 250).
 * The order is a queue of (case, sequence) pairs in arrays rather than a
 * Map's insertion order, for the same reason as the ring's (see CaseCache); a
 * case taken back leaves a stale pair, skipped when reached and compacted
 * away when they pile up.
 */
export class ColdFolds {
  private readonly texts = new Map<string, { text: string; seq: number }>();
  private ids: string[] = [];
  private seqs: number[] = [];
  private head = 0;
  private seq = 0;
  private held = 0;

  constructor(private readonly onBytes: (delta: number) => void = () => {}) {}

  /** Heap the texts take, as charged (see ENTRY_BYTES). */
  get bytes(): number {
    return this.held;
  }

  put(caseId: string, text: string): void {
    this.take(caseId);
    const seq = ++this.seq;
    this.texts.set(caseId, { text, seq });
    this.ids.push(caseId);
    this.seqs.push(seq);
    this.change(cost(text));
    if (this.ids.length - this.head > 2 * this.texts.size + 1024) this.compact();
  }

  /** The case's text, which leaves (it is about to become a live fold again). */
  take(caseId: string): string | undefined {
    const entry = this.texts.get(caseId);
    if (!entry) return undefined;
    this.texts.delete(caseId);
    this.change(-cost(entry.text));
    return entry.text;
  }

  /** Gives up the oldest text; the bytes freed (0 when empty). */
  dropOldest(): number {
    while (this.head < this.ids.length) {
      const at = this.head++;
      const entry = this.texts.get(this.ids[at]!);
      if (entry && entry.seq === this.seqs[at]) {
        this.texts.delete(this.ids[at]!);
        this.change(-cost(entry.text));
        if (this.head > 1024 && this.head * 2 > this.ids.length) this.compact();
        return cost(entry.text);
      }
    }
    return 0;
  }

  clear(): void {
    this.texts.clear();
    this.ids = [];
    this.seqs = [];
    this.head = 0;
    this.change(-this.held);
  }

  private change(delta: number): void {
    this.held += delta;
    if (delta !== 0) this.onBytes(delta);
  }

  /** Keeps the queue's live pairs only, in order. */
  private compact(): void {
    const ids: string[] = [];
    const seqs: number[] = [];
    for (let i = this.head; i < this.ids.length; i++) {
      if (this.texts.get(this.ids[i]!)?.seq === this.seqs[i]) {
        ids.push(this.ids[i]!);
        seqs.push(this.seqs[i]!);
      }
    }
    this.ids = ids;
    this.seqs = seqs;
    this.head = 0;
  }
}

/** Heap an entry takes besides its characters: string header, map entry, the entry object, two queue slots. */
export const ENTRY_BYTES = 128;

const cost = (text: string) => text.length + ENTRY_BYTES;
