/**
 * The de-duplication index of a project's kept events: event key -> row id,
 * in memory. Kept in SQLite it would be a B-tree whose every insert lands on a
 * random page (keys have no relation to arrival order), so each batch would
 * dirty most of its pages; here an insert is a few array writes.
 *
 * A key is held as one 32-bit hash beside its row id in an open-addressing
 * table: 8 bytes a slot, at most MAX_LOAD full, so 11 to 23 bytes a key (a
 * 10M-event project: about 134 MB; this was 32 to 64 bytes with a second hash
 * and float ids). A hash match is only a candidate: the caller reads the row
 * and compares the key, so a collision can never merge two events; with a
 * full 32-bit hash compared, a probe meets a false candidate about once in
 * 4 billion, so the second hash saved no reads worth its memory. Rows are
 * deleted from the event log only by a retraction (which drops the whole
 * index) and by pruning (engine/store/retention.ts: `remove` drops their
 * entries; a replaced event keeps its row).
 */
export class KeyIndex {
  private hashes: Int32Array;
  /** Row ids; 0 marks an empty slot (SQLite row ids start at 1). Float64 only once an id passes 2^32 - 1. */
  private ids: Uint32Array | Float64Array;
  private used = 0;

  constructor(capacity = 1024) {
    const size = 2 ** Math.ceil(Math.log2(Math.max(16, capacity / MAX_LOAD + 1)));
    this.hashes = new Int32Array(size);
    this.ids = new Uint32Array(size);
  }

  get size(): number {
    return this.used;
  }

  /** Bytes the table holds (for the memory figures in BENCHMARKS.md). */
  get bytes(): number {
    return this.hashes.byteLength + this.ids.byteLength;
  }

  /** The first row id whose key hashes like `key` and that `matches` (which reads the row and compares keys). */
  find(key: string, matches: (id: number) => boolean): number | undefined {
    const h = keyHash(key);
    const { hashes, ids } = this;
    const mask = ids.length - 1;
    for (let i = h & mask; ids[i] !== 0; i = (i + 1) & mask) {
      if (hashes[i] === h && matches(ids[i]!)) return ids[i];
    }
    return undefined;
  }

  add(key: string, id: number): void {
    if (this.used + 1 > this.ids.length * MAX_LOAD) this.resize(this.ids.length * 2, id);
    else if (id > 0xffffffff && this.ids instanceof Uint32Array) this.resize(this.ids.length, id);
    this.place(keyHash(key), id);
    this.used += 1;
  }

  /**
   * Drops the entry of row `id` under `key` (its row was pruned), shifting the entries after it back
   * so that no probe sequence breaks. Returns whether it was there.
   */
  remove(key: string, id: number): boolean {
    const h = keyHash(key);
    const { hashes, ids } = this;
    const mask = ids.length - 1;
    let i = h & mask;
    while (ids[i] !== 0 && !(ids[i] === id && hashes[i] === h)) i = (i + 1) & mask;
    if (ids[i] === 0) return false;
    for (let j = (i + 1) & mask; ids[j] !== 0; j = (j + 1) & mask) {
      // An entry stays where it is when its home slot lies cyclically in (i, j]; otherwise it moves into the hole.
      const home = hashes[j]! & mask;
      if (i <= j ? i < home && home <= j : i < home || home <= j) continue;
      hashes[i] = hashes[j]!;
      ids[i] = ids[j]!;
      i = j;
    }
    ids[i] = 0;
    hashes[i] = 0;
    this.used -= 1;
    return true;
  }

  private place(h: number, id: number): void {
    const { hashes, ids } = this;
    const mask = ids.length - 1;
    let i = h & mask;
    while (ids[i] !== 0) i = (i + 1) & mask;
    hashes[i] = h;
    ids[i] = id;
  }

  /** A table of `size` slots with every entry moved over; ids past 32 bits move it to float ids. */
  private resize(size: number, nextId: number): void {
    const { hashes, ids } = this;
    this.hashes = new Int32Array(size);
    this.ids = ids instanceof Float64Array || nextId > 0xffffffff ? new Float64Array(size) : new Uint32Array(size);
    for (let i = 0; i < ids.length; i++) if (ids[i] !== 0) this.place(hashes[i]!, ids[i]!);
  }
}

/** Largest share of slots in use: linear probing stays short (about 2 probes to find, 6 to miss at this load). */
const MAX_LOAD = 0.7;

/** A 32-bit hash of a key: FNV-1a over its UTF-16 units, then MurmurHash3's finaliser so the low bits (the slot) mix well. */
export function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}
