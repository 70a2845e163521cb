/**
 * The de-duplication index of a project's kept events: event key -> row id,
 * in memory. Kept in SQLite it would be a B-tree whose every insert lands on a
 * random page (keys have no relation to arrival order), so each batch would
 * dirty most of its pages; here an insert is a few array writes.
 *
 * Keys are held as two independent 32-bit hashes in an open-addressing table
 * (16 bytes a slot, at most half full). A hash match is only a candidate: the
 * caller reads the row and compares the key, so a collision can never merge
 * two events. Rows are never deleted from the event log (a replaced event
 * keeps its row), so entries are never deleted either.
 */
export class KeyIndex {
  private hi: Int32Array;
  private lo: Int32Array;
  /** Row ids; 0 marks an empty slot (SQLite row ids start at 1). */
  private ids: Float64Array;
  private used = 0;

  constructor(capacity = 1024) {
    const size = 2 ** Math.ceil(Math.log2(Math.max(16, capacity * 2)));
    this.hi = new Int32Array(size);
    this.lo = new Int32Array(size);
    this.ids = new Float64Array(size);
  }

  get size(): number {
    return this.used;
  }

  /** The first row id whose key hashes like `key` and that `matches` (which reads the row and compares keys). */
  find(key: string, matches: (id: number) => boolean): number | undefined {
    const [h1, h2] = keyHashes(key);
    const mask = this.ids.length - 1;
    for (let i = h1 & mask; this.ids[i] !== 0; i = (i + 1) & mask) {
      if (this.hi[i] === h1 && this.lo[i] === h2 && matches(this.ids[i]!)) return this.ids[i];
    }
    return undefined;
  }

  add(key: string, id: number): void {
    if ((this.used + 1) * 2 > this.ids.length) this.grow();
    const [h1, h2] = keyHashes(key);
    this.place(h1, h2, id);
    this.used += 1;
  }

  private place(h1: number, h2: number, id: number): void {
    const mask = this.ids.length - 1;
    let i = h1 & mask;
    while (this.ids[i] !== 0) i = (i + 1) & mask;
    this.hi[i] = h1;
    this.lo[i] = h2;
    this.ids[i] = id;
  }

  private grow(): void {
    const { hi, lo, ids } = this;
    this.hi = new Int32Array(ids.length * 2);
    this.lo = new Int32Array(ids.length * 2);
    this.ids = new Float64Array(ids.length * 2);
    for (let i = 0; i < ids.length; i++) if (ids[i] !== 0) this.place(hi[i]!, lo[i]!, ids[i]!);
  }
}

const pair: [number, number] = [0, 0];

/**
 * Two 32-bit hashes of a key in one pass: FNV-1a and a multiply-xorshift mix.
 * The returned pair is reused between calls.
 */
export function keyHashes(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  pair[0] = a | 0;
  pair[1] = (b ^ key.length) | 0;
  return pair;
}
