import { createHash } from 'node:crypto';
import { cmp } from '../event.js';
import { variantPath } from '../tally.js';
import { shareOf } from './evidence.js';
import { pathVerdict, type PathVerdict } from '../reading/paths.js';
import type { Variant } from './types.js';

/** Variants below this share are left off the document (the main path never is). */
export const MIN_VARIANT_SHARE = 0.01;
/** The commonest variants holding together up to this share of the cases are never exceptions. */
export const COMMON_HALF = 0.5;

/**
 * The listed variants: main = the commonest path, only where it leads the next beyond sampling noise and cases
 * repeat paths at all (engine/reading/paths.ts; else no variant is main, and the commonest is listed only as any
 * other, by its share);
 * allowed = a path the discovered process tree accepts, or one of the
 * commonest paths that together reach half of the cases; exception = any
 * other path the tree does not accept. Ids are digests of the path, so a variant keeps its id while
 * counts change.
 */
export function listVariants(
  variants: ReadonlyMap<string, number>,
  cases: number,
  accepted: ReadonlyMap<string, boolean>,
  /** Activities where the cases stopping were mostly cut off while running (engine/reading/window.ts): a path ending there is work in progress, no exception. */
  openStops: ReadonlySet<string> = new Set(),
): { variants: Variant[]; leftOff: number; leftOffCases: number; verdict: PathVerdict } {
  // Only the listed paths need ordering: those of at least MIN_VARIANT_SHARE (shares grow with
  // counts, so they are the head of the full order) and the main path, listed always.
  const byCount = (a: [string, number], b: [string, number]) => b[1] - a[1] || cmp(a[0], b[0]);
  let top: [string, number] | undefined;
  const big: [string, number][] = [];
  let total = 0;
  let totalCases = 0;
  for (const entry of variants) {
    total += 1;
    totalCases += entry[1];
    if (!top || byCount(entry, top) < 0) top = entry;
    if (shareOf(entry[1], cases) >= MIN_VARIANT_SHARE) big.push(entry);
  }
  const verdict = pathVerdict([...variants.values()], cases);
  const sorted = big.sort(byCount);
  if (top && verdict.kind === 'main' && sorted[0] !== top) sorted.unshift(top);
  // The commonest paths, until they hold half of the cases, are the process itself: a tree that
  // rejects one of them is too coarse there, so they are never classed as exceptions.
  let before = 0;
  const out: Variant[] = sorted.map(([key, n], i) => {
    const common = before < COMMON_HALF * cases;
    before += n;
    const path = variantPath(key);
    const running = path.length > 0 && openStops.has(path[path.length - 1]!);
    return {
      id: `v-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`,
      path,
      class: i === 0 && verdict.kind === 'main' ? 'main' : accepted.get(key) || common || running ? 'allowed' : 'exception',
      cases: n,
      share: shareOf(n, cases),
    };
  });
  const listedCases = sorted.reduce((n, [, c]) => n + c, 0);
  return { variants: out, leftOff: total - sorted.length, leftOffCases: totalCases - listedCases, verdict };
}
