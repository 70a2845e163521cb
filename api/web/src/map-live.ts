/**
 * The live state on the map (the service's `…/live`, beside the document):
 * a badge on each node with the cases open there, and the hand-offs to end
 * counted for the cases that did not stop open. The document's edge X → end
 * counts every case whose last step is X, open ones too; the open ones at X
 * are those cases' subset, so the rest (finished, or stalled long ago) is its
 * count less the open count. Waits are those of the open cases since their
 * last step, against the step's usual (median) wait.
 */
import type { LiveActivity, LiveState } from '../../../engine/projects/live-types.js';
import { hours, int } from './format.js';
import type { GraphDocument, GraphEdge } from './types.js';

export type LiveAnswer = LiveState & { projectId: string; dataVersion: number };
export type { LiveActivity };

/** The open cases per document node id. */
export function openByNode(doc: GraphDocument, live: LiveAnswer | undefined): Map<string, LiveActivity> {
  const out = new Map<string, LiveActivity>();
  if (!live) return out;
  const byLabel = new Map(live.activities.map((a) => [a.activity, a]));
  for (const n of doc.nodes) {
    const a = n.kind === 'activity' ? byLabel.get(n.label) : undefined;
    if (a && a.openCases > 0) out.set(n.id, a);
  }
  return out;
}

/** Cases of a hand-off as the live map counts them: into end, only those not open at its source. */
export function finishedCases(e: GraphEdge, endId: string | undefined, open: ReadonlyMap<string, LiveActivity>): number {
  if (e.to !== endId) return e.cases;
  return Math.max(0, e.cases - (open.get(e.from)?.openCases ?? 0));
}

/** How far past the usual wait the open cases' median wait is: 0 within it, up to 1 at three times it or more. */
export function lateness(a: LiveActivity): number {
  if (!(a.usualWaitHours > 0)) return 0;
  return Math.min(1, Math.max(0, (a.waitedHours.median / a.usualWaitHours - 1) / 2));
}

export function badge(a: LiveActivity, waits: boolean): { text: string; fill: string; w: number; full: string } {
  const text = waits ? `${int(a.openCases)} · ${hours(a.waitedHours.median)} / ${a.usualWaitHours > 0 ? hours(a.usualWaitHours) : '—'}` : `${int(a.openCases)} open`;
  const late = lateness(a);
  // Within the usual wait: teal; past it: orange to red.
  const fill = waits ? (late === 0 ? '#00897b' : late < 0.5 ? '#ef6c00' : '#c62828') : '#ef6c00';
  const full =
    `${int(a.openCases)} open cases wait after this step: median ${hours(a.waitedHours.median)}, longest ${hours(a.waitedHours.max)}` +
    (a.usualWaitHours > 0 ? `; the usual wait here is ${hours(a.usualWaitHours)} (${int(a.overUsual)} past it)` : '');
  return { text, fill, w: Math.round(12 + text.length * 6.6), full };
}
