/**
 * The log digest: the sum, modulo 2^128, of the 128-bit digests of the kept
 * events. A sum does not depend on the order events arrived in, duplicates add
 * nothing (they are not kept), and a replaced event is subtracted.
 */
const MOD = 1n << 128n;

export const EMPTY_DIGEST = '0'.repeat(32);

/** Adds after which DigestSum carries its words (each word stays under 2^53 for 2^21 adds of 32 bits). */
const CARRY_EVERY = 1 << 20;

/**
 * A running sum of event digests. Each is added as four 32-bit words into
 * plain numbers, which stay exact for 2^21 adds of either sign; every 2^20
 * adds the words are carried into one bigint, so a sum of any length is exact
 * and the per-event cost stays a few additions.
 */
export class DigestSum {
  private base: bigint;
  private readonly words = [0, 0, 0, 0];
  private adds = 0;

  constructor(hex: string) {
    this.base = BigInt(`0x${hex}`);
  }

  /** Adds (or takes away) an event's digest: 32 hex digits, read in place. */
  add(eventDigest: string, sign: 1 | -1): void {
    const w = this.words;
    for (let i = 0; i < 4; i++) {
      let word = 0;
      for (let j = i * 8; j < i * 8 + 8; j++) word = word * 16 + hexValue(eventDigest.charCodeAt(j));
      w[i]! += sign * word;
    }
    if (++this.adds === CARRY_EVERY) this.carry();
  }

  toHex(): string {
    this.carry();
    return this.base.toString(16).padStart(32, '0');
  }

  private carry(): void {
    let sum = this.base;
    for (let i = 0; i < 4; i++) {
      sum += BigInt(this.words[i]!) << BigInt(96 - 32 * i);
      this.words[i] = 0;
    }
    this.base = ((sum % MOD) + MOD) % MOD;
    this.adds = 0;
  }
}

/** The sum of log digests (the digest of the union of their disjoint event sets). */
export function sumDigests(hexes: Iterable<string>): string {
  let sum = 0n;
  for (const hex of hexes) sum = (sum + BigInt(`0x${hex}`)) % MOD;
  return sum.toString(16).padStart(32, '0');
}

/** The value of one hex digit's character code (either case). */
function hexValue(code: number): number {
  return code <= 57 ? code - 48 : (code | 32) - 87;
}
