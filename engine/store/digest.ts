/**
 * The log digest: the sum, modulo 2^128, of the 128-bit digests of the kept
 * events. A sum does not depend on the order events arrived in, duplicates add
 * nothing (they are not kept), and a replaced event is subtracted.
 */
const MOD = 1n << 128n;

export const EMPTY_DIGEST = '0'.repeat(32);

/** A running sum for one batch: hex is parsed and printed once, not per event. */
export class DigestSum {
  private sum: bigint;

  constructor(hex: string) {
    this.sum = BigInt(`0x${hex}`);
  }

  add(eventDigest: string, sign: 1 | -1): void {
    this.sum += sign === 1 ? BigInt(`0x${eventDigest}`) : -BigInt(`0x${eventDigest}`);
  }

  toHex(): string {
    return (((this.sum % MOD) + MOD) % MOD).toString(16).padStart(32, '0');
  }
}
