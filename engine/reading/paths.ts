/**
 * Whether a log has a main path at all. A variant's count is a count of cases only when cases repeat
 * paths: where nearly every case has a path of its own (a log of unique cases, or a sample keeping one
 * case per variant, which the data cannot tell apart), the share of a variant is a share of distinct paths,
 * not how often the process goes that way. And where the commonest path is followed about as often as the
 * next (equal counts, or a gap within sampling noise), naming one of them "main" is a coin toss (ties were
 * broken by name order). Both are read from the counts alone, so the document builder (which classes the
 * variants) and the reading (which words the backbone) state the same verdict.
 */

/** Variants per case from which nearly every case has a path of its own. */
export const DISTINCT_PATHS = 0.9;
/**
 * The commonest path is the main one only when it leads the next by at least this many standard deviations of a
 * fair split between the two (a sign test: under a tie, top - next has variance top + next).
 */
export const MAIN_PATH_Z = 2;

export type PathVerdict =
  /** One path leads the others beyond sampling noise. */
  | { kind: 'main'; top: number; next: number; variants: number; cases: number }
  /** The commonest path and the next (and `tied` paths in all) are within sampling noise of each other. */
  | { kind: 'tied'; top: number; next: number; tied: number; variants: number; cases: number }
  /** Nearly every case has a path of its own: variant shares count distinct paths. */
  | { kind: 'distinct'; top: number; next: number; variants: number; cases: number };

/** A gap between two path counts within sampling noise (equal counts included). */
export function withinNoise(top: number, other: number): boolean {
  return top - other < MAIN_PATH_Z * Math.sqrt(top + other);
}

/** The verdict from the variant counts (in any order; two passes, no sort) and the number of cases. */
export function pathVerdict(counts: readonly number[], cases: number): PathVerdict {
  let top = 0;
  let next = 0;
  for (const c of counts) {
    if (c > top) [top, next] = [c, top];
    else if (c > next) next = c;
  }
  const variants = counts.length;
  if (variants >= 2 && variants >= DISTINCT_PATHS * cases) return { kind: 'distinct', top, next, variants, cases };
  if (variants < 2 || !withinNoise(top, next)) return { kind: 'main', top, next, variants, cases };
  // The commonest itself counts once: a gap of 0 is within noise.
  let tied = 0;
  for (const c of counts) if (withinNoise(top, c)) tied++;
  return { kind: 'tied', top, next, tied, variants, cases };
}

/** The verdict in words, with the figures the audit recomputes (test/document/audit-reading.ts reads them back). */
export function verdictText(v: PathVerdict): string {
  const pct = (x: number) => `${Math.round((v.cases ? x / v.cases : 0) * 1000) / 10}%`;
  switch (v.kind) {
    case 'main':
      return v.variants < 2
        ? `here every case follows the one path (${v.top} cases)`
        : `here the commonest path (${v.top} cases, ${pct(v.top)}) leads the next (${v.next} cases) beyond sampling noise: it is the main path`;
    case 'tied':
      return `here no path is main: the commonest path (${v.top} cases) and the next (${v.next} cases) are within sampling noise of each other (${v.tied} paths are within it of the commonest), so which is commoner is not known and their order in the list is no ranking`;
    case 'distinct':
      return `here no path is main: ${v.variants} distinct paths for ${v.cases} cases (${pct(v.variants)}); the commonest has ${v.top} ${v.top === 1 ? 'case' : 'cases'}. Nearly every case has a path of its own, as in a log of unique cases or in a sample keeping one case per variant, which the data cannot tell apart: variant shares count distinct paths, not how often the process goes a way, and in such a sample so does every other share of cases in this document (the backbone, stages, decisions, rules and outcomes rest on case counts)`;
  }
}

/**
 * Variants that differ only in the order of concurrent activities (engine/reading/concurrency.ts) are one behaviour:
 * the log's order of two steps that neither waits for says when each was recorded, not a different way of working.
 * Each path is brought to its lexicographically least form under swaps of adjacent concurrent activities (the
 * normal form of a Mazurkiewicz trace), and counts are summed per form. Linear in the path for short windows of
 * concurrent steps: a step concurrent with nothing ends the window a step can be moved forward through.
 */
export function behaviourCounts(variants: readonly { ids: Int32Array; count: number }[], concurrent: (a: number, b: number) => boolean, involved: ReadonlySet<number>): Map<string, { count: number; variants: number }> {
  const out = new Map<string, { count: number; variants: number }>();
  for (const v of variants) {
    const key = (v.ids.some((k) => involved.has(k)) ? normalForm(Array.from(v.ids), concurrent, involved) : Array.from(v.ids)).join(',');
    const b = out.get(key);
    if (b) {
      b.count += v.count;
      b.variants++;
    } else out.set(key, { count: v.count, variants: 1 });
  }
  return out;
}

function normalForm(ids: number[], concurrent: (a: number, b: number) => boolean, involved: ReadonlySet<number>): number[] {
  // Greedy: take the least step that every step still before it is concurrent with. Taken steps are flagged, not
  // spliced out, and the scan stops at the first step concurrent with nothing: linear for short windows.
  const n = ids.length;
  const gone = new Uint8Array(n);
  const out: number[] = [];
  let head = 0;
  while (out.length < n) {
    while (gone[head]) head++;
    let best = head;
    const before: number[] = [ids[head]!];
    if (involved.has(ids[head]!)) {
      for (let i = head + 1; i < n; i++) {
        if (gone[i]) continue;
        const x = ids[i]!;
        if (before.every((y) => y !== x && concurrent(y, x)) && x < ids[best]!) best = i;
        if (!involved.has(x)) break;
        before.push(x);
      }
    }
    gone[best] = 1;
    out.push(ids[best]!);
  }
  return out;
}
