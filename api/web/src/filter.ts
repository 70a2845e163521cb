/**
 * What the map shows: the document's nodes and edges, thinned by the
 * activities and paths sliders with the rule every picture of the map uses
 * (engine/render/simplify.ts, bundled: `pcg graph --format dot|html` draws the
 * same map at the same percentages). Pure, so tests run it in Node.
 */
import { simplify, type Simplified } from '../../../engine/render/simplify.js';
import type { GraphDocument, Plain } from './types.js';

export { defaultSimplification, hiddenText, type Simplified } from '../../../engine/render/simplify.js';

export interface Shown {
  nodes: string[];
  edges: string[];
}

export function shown(doc: Pick<GraphDocument, 'nodes' | 'edges'>, activitiesPct: number, pathsPct: number): Simplified {
  return simplify(doc, { activities: activitiesPct, paths: pathsPct });
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
