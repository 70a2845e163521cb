/**
 * A seeded pseudo-random generator of our own (xoshiro128**, seeded through
 * splitmix32), so a log is the same on every machine and Node version:
 * Math.random cannot be seeded and its algorithm is not specified.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spare: number | undefined;

  constructor(...seeds: number[]) {
    let s = 0x9e3779b9;
    for (const seed of seeds) s = mix32(s ^ (seed >>> 0) ^ Math.floor(seed / 0x1_0000_0000));
    // splitmix32 spreads the seed over the four state words.
    this.a = mix32((s = (s + 0x9e3779b9) | 0));
    this.b = mix32((s = (s + 0x9e3779b9) | 0));
    this.c = mix32((s = (s + 0x9e3779b9) | 0));
    this.d = mix32((s = (s + 0x9e3779b9) | 0));
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** A uniform 32-bit unsigned integer. */
  uint32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 0x1_0000_0000;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  uniform(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks by weight; weights need not sum to one. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of items) total += w;
    let u = this.next() * total;
    for (const [item, w] of items) {
      u -= w;
      if (u < 0) return item;
    }
    return (items[items.length - 1] as readonly [T, number])[0];
  }

  /** Standard normal (Box-Muller, both values used). */
  normal(): number {
    if (this.spare !== undefined) {
      const v = this.spare;
      this.spare = undefined;
      return v;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Lognormal with the given median and log-space spread: a wait with a slow tail. */
  lognormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  exponential(mean: number): number {
    let u = 0;
    while (u === 0) u = this.next();
    return -mean * Math.log(u);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

function mix32(x: number): number {
  let z = x | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}
