/**
 * The log digest: the sum, modulo 2^128, of the 128-bit digests of the kept
 * events. A sum does not depend on the order events arrived in, duplicates add
 * nothing (they are not kept), and a replaced event is subtracted.
 */
const MOD = 1n << 128n;

export const EMPTY_DIGEST = '0'.repeat(32);

export function addDigest(sum: string, eventDigest: string, sign: 1 | -1): string {
  const next = (BigInt(`0x${sum}`) + BigInt(sign) * BigInt(`0x${eventDigest}`)) % MOD;
  return ((next + MOD) % MOD).toString(16).padStart(32, '0');
}
