/**
 * What the map shows: the document's nodes and edges, thinned the way Disco's
 * two sliders thin a map. Pure, so tests run it in Node.
 *
 * - activities (0-100 %): the most frequent activities by cases are kept
 *   (at least one); start and end always stay;
 * - paths (0-100 %): among the edges between kept nodes, the most frequent
 *   share of them is kept, plus each kept node's strongest incoming and
 *   outgoing edge, so no kept activity is left hanging at 0 %.
 *
 * At 100 % and 100 % the map is the document, edge for edge.
 */
import type { GraphDocument, GraphEdge, Plain } from './types.js';

export interface Shown {
  nodes: string[];
  edges: string[];
}

const byCases = <T extends { cases: number; id: string }>(a: T, b: T) => b.cases - a.cases || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function shown(doc: Pick<GraphDocument, 'nodes' | 'edges'>, activitiesPct: number, pathsPct: number): Shown {
  const activities = doc.nodes.filter((n) => n.kind === 'activity').sort(byCases);
  const keepCount = activitiesPct >= 100 ? activities.length : Math.max(1, Math.round((activitiesPct / 100) * activities.length));
  const nodes = new Set(doc.nodes.filter((n) => n.kind !== 'activity').map((n) => n.id));
  for (const n of activities.slice(0, keepCount)) nodes.add(n.id);

  const candidates = doc.edges.filter((e) => nodes.has(e.from) && nodes.has(e.to)).sort(byCases);
  const edges = new Set<string>();
  const take = pathsPct >= 100 ? candidates.length : Math.round((pathsPct / 100) * candidates.length);
  for (const e of candidates.slice(0, take)) edges.add(e.id);
  if (take < candidates.length) {
    const strongestOut = new Map<string, GraphEdge>();
    const strongestIn = new Map<string, GraphEdge>();
    for (const e of candidates) {
      if (e.from === e.to) continue;
      if (!strongestOut.has(e.from)) strongestOut.set(e.from, e);
      if (!strongestIn.has(e.to)) strongestIn.set(e.to, e);
    }
    for (const e of [...strongestOut.values(), ...strongestIn.values()]) edges.add(e.id);
  }
  const order = new Map(doc.nodes.map((n, i) => [n.id, i]));
  const edgeOrder = new Map(doc.edges.map((e, i) => [e.id, i]));
  return {
    nodes: [...nodes].sort((a, b) => order.get(a)! - order.get(b)!),
    edges: [...edges].sort((a, b) => edgeOrder.get(a)! - edgeOrder.get(b)!),
  };
}

/** Node ids by activity label (variants, decisions, stages and roles name activities by label). */
export function nodeIdsByLabel(doc: Pick<GraphDocument, 'nodes'>): Map<string, string> {
  const m = new Map<string, string>();
  for (const n of doc.nodes) if (n.kind === 'activity') m.set(n.label, n.id);
  return m;
}

/** The nodes and edges a path of activity labels walks, from start to end. */
export function pathElements(doc: Pick<GraphDocument, 'nodes' | 'edges'>, path: readonly Plain[]): Shown {
  const ids = nodeIdsByLabel(doc);
  const start = doc.nodes.find((n) => n.kind === 'start')?.id;
  const end = doc.nodes.find((n) => n.kind === 'end')?.id;
  const walk = [start, ...path.map((p) => ids.get(String(p))), end].filter((x): x is string => x !== undefined);
  const edgeBy = new Map(doc.edges.map((e) => [`${e.from}\u0000${e.to}`, e.id]));
  const edges: string[] = [];
  for (let i = 1; i < walk.length; i++) {
    const id = edgeBy.get(`${walk[i - 1]}\u0000${walk[i]}`);
    if (id !== undefined && !edges.includes(id)) edges.push(id);
  }
  return { nodes: [...new Set(walk)], edges };
}

/** Node ids of activity labels, unknown labels dropped. */
export function labelsToIds(doc: Pick<GraphDocument, 'nodes'>, labels: readonly Plain[]): string[] {
  const ids = nodeIdsByLabel(doc);
  return labels.map((l) => ids.get(String(l))).filter((x): x is string => x !== undefined);
}

/** Nodes whose events grew (or that are new) between two documents: where the live map pulses. */
export function touchedNodes(before: Pick<GraphDocument, 'nodes'> | undefined, after: Pick<GraphDocument, 'nodes'>): string[] {
  if (!before) return [];
  const old = new Map(before.nodes.map((n) => [n.id, n]));
  return after.nodes
    .filter((n) => {
      const o = old.get(n.id);
      if (!o) return true;
      return n.kind === 'activity' ? n.events > o.events : n.cases > o.cases;
    })
    .map((n) => n.id);
}
