import { createHash } from 'node:crypto';
import { cmp } from '../event.js';
import { variantPath } from '../tally.js';
import { shareOf } from './evidence.js';
import type { Variant } from './types.js';

/** Variants below this share are left off the document (the main path never is). */
export const MIN_VARIANT_SHARE = 0.01;

/**
 * The listed variants: main = the commonest path (ties: first in name order);
 * allowed = a path the discovered process tree accepts; exception = one it
 * does not. Ids are digests of the path, so a variant keeps its id while
 * counts change.
 */
export function listVariants(variants: ReadonlyMap<string, number>, cases: number, accepted: ReadonlyMap<string, boolean>): { variants: Variant[]; leftOff: number; leftOffCases: number } {
  const sorted = [...variants.entries()].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0]));
  const out: Variant[] = [];
  let leftOff = 0;
  let leftOffCases = 0;
  sorted.forEach(([key, n], i) => {
    const share = shareOf(n, cases);
    if (i > 0 && share < MIN_VARIANT_SHARE) {
      leftOff += 1;
      leftOffCases += n;
      return;
    }
    out.push({
      id: `v-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`,
      path: variantPath(key),
      class: i === 0 ? 'main' : accepted.get(key) ? 'allowed' : 'exception',
      cases: n,
      share,
    });
  });
  return { variants: out, leftOff, leftOffCases };
}
