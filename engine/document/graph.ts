import { cmp } from '../event.js';
import { quantile } from '../sketch.js';
import { END, splitKey, START, type Tally } from '../tally.js';
import { HOUR_MS } from '../time.js';
import { counted, shareOf } from './evidence.js';
import { slug, uniqueId } from './ids.js';
import type { GraphEdge, GraphNode, Plain } from './types.js';

export const SLOW_PERCENTILE = 0.9;

/**
 * Node ids are slugs of the activity names (`w-completeren-aanvraag`): stable
 * while the set of names does not change, readable, and never `start`/`end`.
 * Names that slug alike get -2, -3 in name order.
 */
export function nodeIds(labels: readonly string[]): Map<string, string> {
  const ids = new Map<string, string>();
  const taken = new Set(['start', 'end']);
  for (const label of [...labels].sort(cmp)) {
    ids.set(label, uniqueId(slug(label, 60) || 'activity', taken));
  }
  return ids;
}

const hours = (millis: number) => millis / HOUR_MS;

/** Nodes (start, end, one per activity) and edges (one per directly-follows pair), counted from the tally. */
export function countedGraph(
  tally: Tally,
  rolesOf: (activity: string) => Plain[],
  objectTypesOf: (activity: string) => Plain[],
): { nodes: GraphNode[]; edges: GraphEdge[]; ids: Map<string, string> } {
  const labels = [...tally.activities.keys()].sort(cmp);
  const ids = nodeIds(labels);
  const all = tally.cases;
  const boundary = (kind: 'start' | 'end'): GraphNode => ({
    id: kind,
    kind,
    label: kind,
    stage: '',
    cases: all,
    events: 0,
    cases_repeating: 0,
    median_hours_to_next: 0,
    roles: [],
    object_types: [],
    evidence: counted(all, all, `counted: every case has one ${kind}; it is not an event, so events = 0`),
  });
  const nodes: GraphNode[] = [boundary('start')];
  for (const label of labels) {
    const a = tally.activities.get(label)!;
    nodes.push({
      id: ids.get(label)!,
      kind: 'activity',
      label,
      stage: '',
      cases: a.cases,
      events: a.events,
      cases_repeating: a.casesRepeating,
      median_hours_to_next: hours(quantile(a.timeToNext, 0.5)),
      roles: rolesOf(label),
      object_types: objectTypesOf(label),
      evidence: counted(a.cases, all, 'counted: cases with at least one event of the activity; median time to the next event as the assumptions define waits'),
    });
  }
  nodes.push(boundary('end'));

  const idOf = (name: string, side: 'from' | 'to') => (name === START && side === 'from' ? 'start' : name === END && side === 'to' ? 'end' : ids.get(name)!);
  const casesOf = (name: string) => (name === START ? all : (tally.activities.get(name)?.cases ?? 0));
  const order = (id: string) => (id === 'start' ? 0 : id === 'end' ? 2 : 1);
  const edges: GraphEdge[] = [];
  for (const [key, e] of tally.edges) {
    const [from, to] = splitKey(key);
    const fromId = idOf(from, 'from');
    const toId = idOf(to, 'to');
    // Every case that has the pair leaves the from-node, so edge cases <= from-node cases: the share is of the cases leaving it.
    const share = shareOf(e.cases, casesOf(from));
    const timed = from !== START && to !== END;
    edges.push({
      id: `${fromId}->${toId}`,
      from: fromId,
      to: toId,
      kind: 'normal',
      cases: e.cases,
      share_of_from: share,
      median_wait_hours: timed ? hours(quantile(e.wait, 0.5)) : 0,
      slow_wait_hours: timed ? hours(quantile(e.wait, SLOW_PERCENTILE)) : 0,
      evidence: {
        ...counted(e.cases, casesOf(from), ''),
        share,
        method: `counted: cases with the directly-follows pair at least once, of the cases reaching the from-node; waits as the assumptions define them${timed ? '' : ' (none: start and end are not events)'}`,
      },
    });
  }
  edges.sort((x, y) => order(x.from) - order(y.from) || cmp(x.from, y.from) || order(x.to) - order(y.to) || cmp(x.to, y.to));
  return { nodes, edges, ids };
}
