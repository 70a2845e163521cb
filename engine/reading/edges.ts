import type { EdgeKind, GraphEdge, GraphNode, Variant } from '../document/types.js';
import { parallel, pct, q, type Facts } from './facts.js';

export const REWORK_ORDER = 0.9;
export const SKIP_STEP_SHARE = 0.5;
export const RARE_ACTIVITY_SHARE = 0.05;

/**
 * Each edge's kind by a fixed order of stated cuts: escalation (see
 * escalations), rework (back to a step whose first occurrence comes earlier
 * in at least 90% of the cases with both, or a step repeating itself;
 * concurrent pairs, see facts.parallel, are neither rework nor skips), normal
 * (a hand-off of a variant classed main), skip (jumps over a main-path step
 * that at least half of all cases do and that lies between the two in at
 * least 90% of the cases with them), exception (touches an activity of fewer
 * than 5% of the cases, or enters a failure ending), else allowed.
 */
export function readEdgeKinds(
  f: Facts,
  nodes: readonly GraphNode[],
  edges: readonly GraphEdge[],
  variants: readonly Variant[],
  escalationEdges: Set<string>,
  failureEnds: readonly string[],
): { kinds: Map<string, { kind: EdgeKind; method: string }>; assumption: string } {
  const label = new Map(nodes.map((n) => [n.id, n.kind === 'activity' ? n.label : '']));
  const START = '';
  const mainPairs = new Set<string>();
  const mainVariants = variants.filter((v) => v.class === 'main');
  const paths = mainVariants.length ? mainVariants.map((v) => v.path.map(String)) : f.variants.slice(0, 1).map((v) => v.path);
  for (const p of paths) {
    const padded = [START, ...p, START];
    for (let i = 0; i + 1 < padded.length; i++) mainPairs.add(`${padded[i]}\u0000${padded[i + 1]}`);
  }
  const failure = new Set(failureEnds);
  const rare = (a: string) => a !== '' && (f.activityCases.get(a) ?? 0) < RARE_ACTIVITY_SHARE * f.cases;
  const kinds = new Map<string, { kind: EdgeKind; method: string }>();
  for (const e of edges) {
    const from = label.get(e.from) ?? '';
    const to = label.get(e.to) ?? '';
    const key = `${from}\u0000${to}`;
    let kind: EdgeKind = 'allowed';
    let why = 'not on a main variant, no rework, skip, escalation or exception cut applies';
    if (from && to && escalationEdges.has(key)) {
      kind = 'escalation';
      why = `${q(to)} follows ${q(from)} mainly after a long wait (see escalations)`;
    } else if (from && to && (from === to || (earlier(f, to, from) && !parallel(f, from, to)))) {
      kind = 'rework';
      const o = f.order(to, from);
      why = from === to ? `${q(from)} repeats directly` : `back to ${q(to)}, whose first occurrence precedes ${q(from)} in ${pct(o.aFirst / o.both)} of the ${o.both} cases with both (cut ${REWORK_ORDER * 100}%)`;
    } else if (mainPairs.has(key)) {
      kind = 'normal';
      why = 'a hand-off of a variant classed main';
    } else if (from && to) {
      const skipped = f.mainPath.find(
        (b) =>
          b !== from && b !== to && (f.activityCases.get(b) ?? 0) >= SKIP_STEP_SHARE * f.cases && earlier(f, from, b) && earlier(f, b, to) && !parallel(f, from, b) && !parallel(f, b, to),
      );
      if (skipped !== undefined) {
        kind = 'skip';
        why = `jumps over ${q(skipped)}, done by ${pct((f.activityCases.get(skipped) ?? 0) / f.cases)} of cases and lying between the two in at least ${REWORK_ORDER * 100}% of the cases with them`;
      }
    }
    if (kind === 'allowed' && (rare(from) || rare(to) || failure.has(to))) {
      kind = 'exception';
      why = failure.has(to) ? `enters the failure ending ${q(to)}` : `touches an activity of fewer than ${RARE_ACTIVITY_SHARE * 100}% of cases`;
    }
    kinds.set(e.id, { kind, method: `${kind}: ${why}` });
  }
  const assumption =
    `Edge kinds, first cut that applies: escalation (a step taken mainly after a long wait), rework (back to a step whose first occurrence comes earlier in at least ${REWORK_ORDER * 100}% of cases with both, or a direct repeat), ` +
    `normal (a hand-off of a variant classed main), skip (jumps over a main-path step done by at least ${SKIP_STEP_SHARE * 100}% of cases that lies between the two in at least ${REWORK_ORDER * 100}% of cases), ` +
    `exception (touches an activity of fewer than ${RARE_ACTIVITY_SHARE * 100}% of cases or enters a failure ending), else allowed.`;
  return { kinds, assumption };
}

/** a's first occurrence precedes b's in at least REWORK_ORDER of the cases with both. */
export function earlier(f: Facts, a: string, b: string): boolean {
  const o = f.order(a, b);
  return o.both > 0 && o.aFirst >= REWORK_ORDER * o.both;
}
