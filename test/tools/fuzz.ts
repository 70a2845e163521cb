/**
 * What the seeded fuzzers (test/api/fuzz/*.test.ts, test/files/fuzz/*.test.ts,
 * test/kafka/fuzz.test.ts) share: a small deterministic PRNG, edge-case text
 * and byte mutations. Every fuzzer prints its seed with each failure; run it
 * again with PCG_FUZZ_SEED=<seed> to get the same inputs in the same order.
 */

/** The seed of a run: PCG_FUZZ_SEED when set (decimal or 0x hex), else the fixed default. */
export function fuzzSeed(fallback = 0x14f022): number {
  const given = process.env.PCG_FUZZ_SEED;
  if (given === undefined || given === '') return fallback >>> 0;
  const n = Number(given);
  if (!Number.isFinite(n)) throw new Error(`PCG_FUZZ_SEED must be a number, not ${given}`);
  return n >>> 0;
}

/** FNV-1a of a text, for deriving one stream per case from the run's seed. */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h >>> 0;
}

/** mulberry32: tiny, fast, good enough to pick mutations; the same seed gives the same sequence everywhere. */
export class Prng {
  private state: number;
  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** An independent stream for one case (`seed`/`label`): a case's input does not depend on how many numbers earlier cases drew. */
  fork(label: string | number): Prng {
    return new Prng(fnv(`${this.seed}/${label}`));
  }

  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** 0 ≤ n < below. */
  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  /** lo ≤ n ≤ hi. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error('pick from nothing');
    return items[this.int(items.length)]!;
  }

  /** One of `choices`, each as likely as its weight. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    const total = choices.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [v, w] of choices) if ((r -= w) < 0) return v;
    return choices[choices.length - 1]![0];
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }

  /** Letters and digits only. */
  word(length: number): string {
    const abc = 'abcdefghijklmnopqrstuvwxyz0123456789';
    let s = '';
    for (let i = 0; i < length; i++) s += abc[this.int(abc.length)];
    return s;
  }
}

/** Text that has broken parsers, encoders, databases and plain-object lookups before. */
export const EDGE_TEXT: readonly string[] = [
  '',
  ' ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  'x\ud83d', // cut emoji
  '\ude00y',
  '\ud83d\ude00', // 😀, 4 bytes in UTF-8
  '\uffff',
  '\ufffe',
  '\ufeff', // BOM
  '\u2028\u2029',
  '\u202e', // right-to-left override
  '\u200b', // zero width space
  'e\u0301', // combining accent
  'é',
  '€',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  '../../etc/passwd',
  '%zz',
  '%00',
  '<x>&amp;</x>',
  '"',
  '\\',
  "'; DROP TABLE event; --",
  '${x}',
  '\r\n',
  'NaN',
  'null',
  '1e309',
  '-0',
];

/** A string of `bytes` UTF-8 bytes (or as close as `unit` allows) made of `unit` repeated: for limits counted in bytes. */
export function textOfBytes(bytes: number, unit = 'x'): string {
  const size = Buffer.byteLength(unit, 'utf8');
  let s = unit.repeat(Math.floor(bytes / size));
  while (Buffer.byteLength(s, 'utf8') < bytes) s += 'x';
  return s;
}

/** Nested arrays `depth` deep around `inner` (as JSON text). */
export function nestedJson(depth: number, inner = '1', open = '[', close = ']'): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

/** Byte sequences that are not UTF-8: a lone continuation byte, an overlong form, a surrogate in CESU-8, bytes never used. */
export const INVALID_UTF8: readonly Buffer[] = [
  Buffer.from([0x80]),
  Buffer.from([0xc3]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  Buffer.from([0xfe, 0xff]),
  Buffer.from([0xff]),
];

/** One random change of a byte string, and what it was. */
export function mutateBytes(rng: Prng, input: Buffer): { bytes: Buffer; op: string } {
  const b = Buffer.from(input);
  const at = (extra = 0) => rng.int(Math.max(1, b.length + extra));
  const op = rng.pick(['truncate', 'flip', 'set', 'insert', 'delete', 'duplicate', 'nul', 'invalid-utf8', 'swap'] as const);
  switch (op) {
    case 'truncate': {
      const n = at();
      return { bytes: b.subarray(0, n), op: `truncate@${n}` };
    }
    case 'flip': {
      if (!b.length) return { bytes: b, op: 'flip(empty)' };
      const i = at();
      const bit = rng.int(8);
      b[i] = b[i]! ^ (1 << bit);
      return { bytes: b, op: `flip@${i}.${bit}` };
    }
    case 'set': {
      if (!b.length) return { bytes: b, op: 'set(empty)' };
      const i = at();
      b[i] = rng.int(256);
      return { bytes: b, op: `set@${i}` };
    }
    case 'insert': {
      const i = at(1);
      return { bytes: Buffer.concat([b.subarray(0, i), rng.bytes(rng.between(1, 8)), b.subarray(i)]), op: `insert@${i}` };
    }
    case 'delete': {
      const i = at();
      const n = rng.between(1, 16);
      return { bytes: Buffer.concat([b.subarray(0, i), b.subarray(i + n)]), op: `delete@${i}+${n}` };
    }
    case 'duplicate': {
      const i = at();
      const n = rng.between(1, 64);
      const j = at(1);
      return { bytes: Buffer.concat([b.subarray(0, j), b.subarray(i, i + n), b.subarray(j)]), op: `duplicate@${i}+${n}->${j}` };
    }
    case 'nul': {
      const i = at(1);
      return { bytes: Buffer.concat([b.subarray(0, i), Buffer.from([0]), b.subarray(i)]), op: `nul@${i}` };
    }
    case 'invalid-utf8': {
      const i = at(1);
      const bad = rng.pick(INVALID_UTF8);
      return { bytes: Buffer.concat([b.subarray(0, i), bad, b.subarray(i)]), op: `invalid-utf8(${bad.toString('hex')})@${i}` };
    }
    case 'swap': {
      if (b.length < 2) return { bytes: b, op: 'swap(short)' };
      const i = at();
      const j = at();
      [b[i], b[j]] = [b[j]!, b[i]!];
      return { bytes: b, op: `swap@${i},${j}` };
    }
  }
}
