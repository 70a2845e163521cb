import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DigestSum, EMPTY_DIGEST } from '../../engine/store/digest.js';

/** The log digest's running sum against plain bigint arithmetic modulo 2^128. */
describe('DigestSum', () => {
  const digest = (n: number) => createHash('sha256').update(String(n)).digest('hex').slice(0, 32);

  it('adds and subtracts event digests modulo 2^128', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 60 }), (start, changes) => {
        const hex = start.toString(16).padStart(32, '0');
        const sum = new DigestSum(hex);
        let expected = start;
        for (const [n, add] of changes) {
          sum.add(digest(n), add ? 1 : -1);
          expected += (add ? 1n : -1n) * BigInt(`0x${digest(n)}`);
        }
        const mod = 1n << 128n;
        expect(sum.toHex()).toBe((((expected % mod) + mod) % mod).toString(16).padStart(32, '0'));
      }),
    );
    const all = new DigestSum(EMPTY_DIGEST);
    all.add('ffffffffffffffffffffffffffffffff', 1);
    all.add('00000000000000000000000000000001', 1);
    expect(all.toHex()).toBe(EMPTY_DIGEST);
  });

  it('stays exact past 2^21 events (it carries its words itself), and reading it midway changes nothing', () => {
    // The largest digest every time: each 32-bit word would pass 2^53 after 2^21 adds without the carry.
    const max = 'ffffffffffffffffffffffffffffffff';
    const sum = new DigestSum(EMPTY_DIGEST);
    const n = 3_000_001;
    for (let i = 0; i < n; i++) {
      sum.add(max, 1);
      if (i === 1_500_000) sum.toHex();
    }
    const mod = 1n << 128n;
    expect(sum.toHex()).toBe(((BigInt(n) * BigInt(`0x${max}`)) % mod).toString(16).padStart(32, '0'));
  });
});
