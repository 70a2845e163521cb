/**
 * The report's performance section: how long cases run, which hand-offs wait
 * longest and after which steps cases wait longest. Only figures the document
 * holds: the case-duration service level (its 90th percentile), the edges'
 * median and 90th-percentile waits and the nodes' median time to the next
 * step. What the document does not hold (a median or maximum case duration,
 * the time a step itself takes) is said to be missing, never estimated.
 */
import type { GraphDocument } from '../document/types.js';
import { casesText, hours, labelsById, pct } from './format.js';
import type { Block, Section } from './report.js';

/** How many hand-offs and steps each list shows. */
export const SLOWEST = 10;
/** Waits seen by fewer cases than this share of all cases speak for a handful of cases: left out of the lists. */
export const SLOWEST_MIN_SHARE = 0.01;

/** The fewest cases a hand-off or step needs to be listed: SLOWEST_MIN_SHARE of the cases, at least 1. */
export function slowestFloor(doc: GraphDocument): number {
  return Math.max(1, Math.ceil(SLOWEST_MIN_SHARE * doc.source.cases));
}

export function performanceSection(doc: GraphDocument): Section {
  const blocks: Block[] = [{ kind: 'h3', text: 'Case duration' }];
  const level = doc.policies.find((p) => p.kind === 'service_level');
  if (level) {
    blocks.push({
      kind: 'p',
      text: `${level.statement.replace(/\.?\s*$/, '.')} ${level.evidence.cases} of ${casesText(level.evidence.of_cases)} are within it.`,
    });
    blocks.push({ kind: 'p', text: 'The document holds this 90th percentile only: no median or maximum case duration.' });
  } else blocks.push({ kind: 'p', text: 'The document holds no case duration (no service-level policy).' });

  const floor = slowestFloor(doc);
  const leftOut = `Only those taken by at least ${floor} ${floor === 1 ? 'case' : 'cases'} (${pct(SLOWEST_MIN_SHARE)} of the cases) are listed.`;
  const labels = labelsById(doc);
  const handoffs = doc.edges
    .filter((e) => e.cases >= floor && e.median_wait_hours > 0)
    .sort((a, b) => b.median_wait_hours - a.median_wait_hours || b.slow_wait_hours - a.slow_wait_hours || b.cases - a.cases || (a.id < b.id ? -1 : 1))
    .slice(0, SLOWEST);
  blocks.push({ kind: 'h3', text: 'Slowest hand-offs' });
  if (handoffs.length) {
    blocks.push({ kind: 'p', text: `The hand-offs with the longest median wait (from a step to the next event of its case). ${leftOut}` });
    blocks.push({
      kind: 'table',
      head: ['From', 'To', 'Kind', 'Cases', 'Median wait', '90th percentile'],
      numeric: [false, false, false, true, true, true],
      rows: handoffs.map((e) => [labels.get(e.from) ?? e.from, labels.get(e.to) ?? e.to, e.kind, String(e.cases), hours(e.median_wait_hours), hours(e.slow_wait_hours)]),
    });
  } else blocks.push({ kind: 'p', text: `No hand-off with a wait. ${leftOut}` });

  const steps = doc.nodes
    .filter((n) => n.kind === 'activity' && n.cases >= floor && n.median_hours_to_next > 0)
    .sort((a, b) => b.median_hours_to_next - a.median_hours_to_next || b.cases - a.cases || (a.id < b.id ? -1 : 1))
    .slice(0, SLOWEST);
  blocks.push({ kind: 'h3', text: 'Slowest steps' });
  if (steps.length) {
    blocks.push({
      kind: 'p',
      text: `The steps after which cases wait longest (median time to the next event of the case; the time a step itself takes is not in the document). ${leftOut}`,
    });
    blocks.push({
      kind: 'table',
      head: ['Step', 'Cases', 'Events', 'Median time to next'],
      numeric: [false, true, true, true],
      rows: steps.map((n) => [n.label, String(n.cases), String(n.events), hours(n.median_hours_to_next)]),
    });
  } else blocks.push({ kind: 'p', text: `No step with a wait after it. ${leftOut}` });
  return { id: 'performance', title: 'Performance', blocks };
}
