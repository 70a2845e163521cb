/**
 * The log digest: the sum, modulo 2^128, of the 128-bit digests of the kept
 * events. A sum does not depend on the order events arrived in, duplicates add
 * nothing (they are not kept), and a replaced event is subtracted.
 */
const MOD = 1n << 128n;

export const EMPTY_DIGEST = '0'.repeat(32);

/**
 * A running sum for one batch. Each event's digest is added as four 32-bit
 * words into plain numbers (exact while a batch holds under 2^20 events, far
 * above any batch); words are carried into one bigint when the sum is read.
 */
export class DigestSum {
  private readonly base: bigint;
  private readonly words = [0, 0, 0, 0];

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
  }

  toHex(): string {
    let sum = this.base;
    for (let i = 0; i < 4; i++) sum += BigInt(this.words[i]!) << BigInt(96 - 32 * i);
    return (((sum % MOD) + MOD) % MOD).toString(16).padStart(32, '0');
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
