/** Checks of a simplified map against its document, shared by the simulated and the real-log tests. */
import type { GraphDocument } from '../../engine/document/types.js';
import type { Simplified } from '../../engine/render/simplify.js';

/** Nodes reachable from `from` over the kept edges (forward, or backward to `from`). */
function reach(doc: GraphDocument, s: Simplified, from: string, backward = false): Set<string> {
  const kept = new Set(s.edges);
  const next = new Map<string, string[]>();
  for (const e of doc.edges) {
    if (!kept.has(e.id)) continue;
    const [a, b] = backward ? [e.to, e.from] : [e.from, e.to];
    next.set(a, [...(next.get(a) ?? []), b]);
  }
  const seen = new Set([from]);
  const todo = [from];
  while (todo.length) for (const b of next.get(todo.pop()!) ?? []) if (!seen.has(b) && seen.add(b)) todo.push(b);
  return seen;
}

/**
 * What is wrong with a simplified map, as readable lines (none: all is well):
 * start or end missing, an edge whose end is not kept, a kept node start does
 * not reach or that does not reach end over kept edges, hidden counts that are
 * not the document's.
 */
export function mapProblems(doc: GraphDocument, s: Simplified): string[] {
  const problems: string[] = [];
  const nodes = new Set(s.nodes);
  const start = doc.nodes.find((n) => n.kind === 'start')?.id;
  const end = doc.nodes.find((n) => n.kind === 'end')?.id;
  if (!start || !nodes.has(start)) problems.push('start is not kept');
  if (!end || !nodes.has(end)) problems.push('end is not kept');
  const byId = new Map(doc.edges.map((e) => [e.id, e]));
  for (const id of s.edges) {
    const e = byId.get(id);
    if (!e || !nodes.has(e.from) || !nodes.has(e.to)) problems.push(`edge ${id} joins a node that is not kept`);
  }
  if (start && end) {
    const fromStart = reach(doc, s, start);
    const toEnd = reach(doc, s, end, true);
    for (const id of s.nodes) {
      if (!fromStart.has(id)) problems.push(`${id} is not reached from start`);
      if (!toEnd.has(id)) problems.push(`${id} does not reach end`);
    }
  }
  const activities = doc.nodes.filter((n) => n.kind === 'activity');
  const hidden = activities.filter((n) => !nodes.has(n.id));
  if (s.hidden.activities !== hidden.length) problems.push(`hidden activities ${s.hidden.activities}, not ${hidden.length}`);
  if (s.hidden.paths !== doc.edges.length - s.edges.length) problems.push(`hidden paths ${s.hidden.paths}, not ${doc.edges.length - s.edges.length}`);
  const events = activities.reduce((x, n) => x + n.events, 0);
  const share = events ? hidden.reduce((x, n) => x + n.events, 0) / events : 0;
  if (Math.abs(s.hidden.eventsShare - share) > 1e-12) problems.push(`hidden events share ${s.hidden.eventsShare}, not ${share}`);
  const kept = new Set(s.edges);
  const cases = doc.edges.reduce((x, e) => x + e.cases, 0);
  const caseShare = cases ? doc.edges.filter((e) => !kept.has(e.id)).reduce((x, e) => x + e.cases, 0) / cases : 0;
  if (Math.abs(s.hidden.casesShare - caseShare) > 1e-12) problems.push(`hidden cases share ${s.hidden.casesShare}, not ${caseShare}`);
  return problems;
}
