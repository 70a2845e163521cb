/** A binary min-heap on (key, seq): equal keys leave in insertion order, so merges are deterministic. */
export class Heap<T> {
  private keys: number[] = [];
  private seqs: number[] = [];
  private values: T[] = [];
  private counter = 0;

  get size(): number {
    return this.values.length;
  }

  /** The smallest key, or Infinity when empty. */
  get topKey(): number {
    return this.values.length ? (this.keys[0] as number) : Infinity;
  }

  get top(): T | undefined {
    return this.values[0];
  }

  push(key: number, value: T): void {
    this.keys.push(key);
    this.seqs.push(this.counter++);
    this.values.push(value);
    this.up(this.values.length - 1);
  }

  pop(): T | undefined {
    const n = this.values.length;
    if (n === 0) return undefined;
    const top = this.values[0];
    const lastKey = this.keys.pop() as number;
    const lastSeq = this.seqs.pop() as number;
    const lastValue = this.values.pop() as T;
    if (n > 1) {
      this.keys[0] = lastKey;
      this.seqs[0] = lastSeq;
      this.values[0] = lastValue;
      this.down(0);
    }
    return top;
  }

  /** Gives the top a new key (cheaper than pop and push). */
  rekeyTop(key: number): void {
    this.keys[0] = key;
    this.seqs[0] = this.counter++;
    this.down(0);
  }

  private less(i: number, j: number): boolean {
    const a = this.keys[i] as number;
    const b = this.keys[j] as number;
    return a < b || (a === b && (this.seqs[i] as number) < (this.seqs[j] as number));
  }

  private swap(i: number, j: number): void {
    const k = this.keys[i] as number;
    this.keys[i] = this.keys[j] as number;
    this.keys[j] = k;
    const s = this.seqs[i] as number;
    this.seqs[i] = this.seqs[j] as number;
    this.seqs[j] = s;
    const v = this.values[i] as T;
    this.values[i] = this.values[j] as T;
    this.values[j] = v;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.values.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(l, m)) m = l;
      if (r < n && this.less(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
