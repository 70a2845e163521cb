/**
 * One rule for every picture of the map (the web page's map, `pcg graph
 * --format dot` and `--format html`): the map simplified as Disco simplifies
 * it, by two sliders in percent.
 *
 * - activities: the most frequent share of the activities (by cases; at least
 *   one) stays; start and end always stay. When a kept activity cannot be
 *   reached from start (or cannot reach end) over kept ones, the hidden
 *   activities on its widest way from (or to) those that are stay too, and
 *   only those: the map never draws a step no case could get to.
 * - paths: among the edges between kept nodes, the most frequent share (by
 *   cases) stays, plus the widest way (the path whose smallest edge carries
 *   the most cases) from start to every kept node and from it to end. So at
 *   0 % the map is the process's strongest routes, and no kept node is ever
 *   left without an edge in or out, however many small edges are hidden.
 *
 * At 100 % and 100 % the map is the document, edge for edge. What is hidden
 * is counted, so every picture can say what share it leaves out. Pure and
 * free of Node's modules: the web page bundles it.
 */
import type { GraphDocument, GraphEdge } from '../document/types.js';

export interface Simplification {
  /** Percent of the activities kept, 0..100. */
  activities: number;
  /** Percent of the paths (edges between kept nodes) kept, 0..100. */
  paths: number;
}

export interface Simplified {
  /** Kept node ids, in the document's order. */
  nodes: string[];
  /** Kept edge ids, in the document's order. */
  edges: string[];
  hidden: {
    activities: number;
    ofActivities: number;
    /** Share of the activities' events that the hidden activities hold. */
    eventsShare: number;
    paths: number;
    ofPaths: number;
    /** Share of the edges' case counts that the hidden edges carry. */
    casesShare: number;
  };
}

type Doc = Pick<GraphDocument, 'nodes' | 'edges'>;

/** The map opens with at most this many activities, so a log of 30 or 100 steps opens readable. */
export const DEFAULT_SHOWN_ACTIVITIES = 15;
/** The map opens with this share of the paths between the kept activities (and the widest routes). */
export const DEFAULT_PATHS = 20;

/** Where the sliders open for a document: every activity up to DEFAULT_SHOWN_ACTIVITIES, else about that many of the most frequent. */
export function defaultSimplification(doc: Pick<GraphDocument, 'nodes'>): Simplification {
  const n = doc.nodes.filter((x) => x.kind === 'activity').length;
  // Rounded up: the sliders move by whole percents, and 3% of 398 activities would show only 12.
  return { activities: n <= DEFAULT_SHOWN_ACTIVITIES ? 100 : Math.ceil((100 * DEFAULT_SHOWN_ACTIVITIES) / n), paths: DEFAULT_PATHS };
}

/** Every node and edge: the document as it is. */
export const WHOLE: Simplification = { activities: 100, paths: 100 };

const byCases = <T extends { cases: number; id: string }>(a: T, b: T) => b.cases - a.cases || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const clampPct = (p: number) => (Number.isFinite(p) ? Math.min(100, Math.max(0, p)) : 100);

/**
 * The widest-path tree from `roots` over `edges` (forward, or backward towards
 * the roots when `reverse`): for each node reached, the edge it is reached by
 * on the path whose smallest edge carries the most cases (ties: the larger
 * edge, then the id). Self-loops never carry a way anywhere.
 */
function widestTree(roots: Iterable<string>, edges: readonly GraphEdge[], reverse: boolean): Map<string, GraphEdge> {
  const out = new Map<string, GraphEdge[]>();
  for (const e of edges) {
    if (e.from === e.to) continue;
    const k = reverse ? e.to : e.from;
    let list = out.get(k);
    if (!list) out.set(k, (list = []));
    list.push(e);
  }
  const width = new Map<string, number>();
  for (const r of roots) width.set(r, Infinity);
  const via = new Map<string, GraphEdge>();
  const done = new Set<string>();
  for (;;) {
    // The widest node not yet settled (maps stay small: a map has at most a few hundred nodes).
    let best: string | undefined;
    for (const [id, w] of width) if (!done.has(id) && (best === undefined || w > width.get(best)! || (w === width.get(best)! && id < best))) best = id;
    if (best === undefined) return via;
    done.add(best);
    for (const e of out.get(best) ?? []) {
      const next = reverse ? e.from : e.to;
      if (done.has(next)) continue;
      const w = Math.min(width.get(best)!, e.cases);
      const had = width.get(next);
      const old = via.get(next);
      if (had === undefined || w > had || (w === had && old !== undefined && byCases(e, old) < 0)) {
        width.set(next, w);
        via.set(next, e);
      }
    }
  }
}

/** The nodes `root` reaches over the edges between `nodes` (forward, or backward when `reverse`). */
function reached(root: string, nodes: ReadonlySet<string>, edges: readonly GraphEdge[], reverse: boolean): Set<string> {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (!nodes.has(e.from) || !nodes.has(e.to)) continue;
    const [a, b] = reverse ? [e.to, e.from] : [e.from, e.to];
    let list = next.get(a);
    if (!list) next.set(a, (list = []));
    list.push(b);
  }
  const seen = new Set([root]);
  const todo = [root];
  while (todo.length) for (const b of next.get(todo.pop()!) ?? []) if (!seen.has(b) && seen.add(b)) todo.push(b);
  return seen;
}

/**
 * Adds to `nodes` the fewest hidden activities it takes for every kept node to
 * be reached from `root` (or, `reverse`, to reach it): for each kept node the
 * kept ones cannot reach, the activities on its widest way from those they do.
 */
function connect(root: string | undefined, nodes: Set<string>, edges: readonly GraphEdge[], reverse: boolean): void {
  if (root === undefined || !nodes.has(root)) return;
  const seen = reached(root, nodes, edges, reverse);
  const missing = [...nodes].filter((id) => !seen.has(id));
  if (!missing.length) return;
  const tree = widestTree(seen, edges, reverse);
  for (const id of missing) {
    for (let at = tree.get(id); at; ) {
      const back = reverse ? at.to : at.from;
      if (seen.has(back) || nodes.has(back)) break;
      nodes.add(back);
      at = tree.get(back);
    }
  }
}

/** The nodes and edges the sliders keep, and what they hide. */
export function simplify(doc: Doc, view: Simplification): Simplified {
  const activitiesPct = clampPct(view.activities);
  const pathsPct = clampPct(view.paths);
  const activities = doc.nodes.filter((n) => n.kind === 'activity').sort(byCases);
  const keepCount = activitiesPct >= 100 ? activities.length : Math.min(activities.length, Math.max(1, Math.round((activitiesPct / 100) * activities.length)));
  const nodes = new Set(doc.nodes.filter((n) => n.kind !== 'activity').map((n) => n.id));
  for (const n of activities.slice(0, keepCount)) nodes.add(n.id);
  const start = doc.nodes.find((n) => n.kind === 'start')?.id;
  const end = doc.nodes.find((n) => n.kind === 'end')?.id;

  // An activity a kept one can only be reached through (from start, or on to end) stays too.
  if (keepCount < activities.length) {
    connect(start, nodes, doc.edges, false);
    connect(end, nodes, doc.edges, true);
  }

  const candidates = doc.edges.filter((e) => nodes.has(e.from) && nodes.has(e.to)).sort(byCases);
  const edges = new Set<string>();
  const take = pathsPct >= 100 ? candidates.length : Math.round((pathsPct / 100) * candidates.length);
  for (const e of candidates.slice(0, take)) edges.add(e.id);
  if (take < candidates.length) {
    const inTree = start !== undefined ? widestTree([start], candidates, false) : new Map<string, GraphEdge>();
    const outTree = end !== undefined ? widestTree([end], candidates, true) : new Map<string, GraphEdge>();
    for (const e of [...inTree.values(), ...outTree.values()]) edges.add(e.id);
    // A node neither tree reaches (a document without start or end) keeps its strongest edge in and out.
    const touched = new Set<string>();
    for (const e of candidates) if (edges.has(e.id) && e.from !== e.to) touched.add(e.from).add(e.to);
    for (const id of nodes) {
      if (touched.has(id)) continue;
      const own = candidates.find((e) => e.from !== e.to && (e.from === id || e.to === id));
      if (own) edges.add(own.id);
    }
  }

  const order = new Map(doc.nodes.map((n, i) => [n.id, i]));
  const edgeOrder = new Map(doc.edges.map((e, i) => [e.id, i]));
  const allEvents = activities.reduce((s, n) => s + n.events, 0);
  const hiddenEvents = activities.filter((n) => !nodes.has(n.id)).reduce((s, n) => s + n.events, 0);
  const allCases = doc.edges.reduce((s, e) => s + e.cases, 0);
  const hiddenCases = doc.edges.filter((e) => !edges.has(e.id)).reduce((s, e) => s + e.cases, 0);
  const keptActivities = activities.filter((n) => nodes.has(n.id)).length;
  return {
    nodes: [...nodes].sort((a, b) => order.get(a)! - order.get(b)!),
    edges: [...edges].sort((a, b) => edgeOrder.get(a)! - edgeOrder.get(b)!),
    hidden: {
      activities: activities.length - keptActivities,
      ofActivities: activities.length,
      eventsShare: allEvents ? hiddenEvents / allEvents : 0,
      paths: doc.edges.length - edges.size,
      ofPaths: doc.edges.length,
      casesShare: allCases ? hiddenCases / allCases : 0,
    },
  };
}

/** The document with only what `simplify` kept (for the renderers that draw every node and edge they are given). */
export function simplified<D extends Doc>(doc: D, s: Simplified): D {
  const nodes = new Set(s.nodes);
  const edges = new Set(s.edges);
  return { ...doc, nodes: doc.nodes.filter((n) => nodes.has(n.id)), edges: doc.edges.filter((e) => edges.has(e.id)) };
}

const percent = (share: number) => {
  const p = Math.round(share * 1000) / 10;
  return p === 0 && share > 0 ? '<0.1%' : `${p}%`;
};

/** What a simplified picture leaves out, in one sentence; empty when nothing is hidden. */
export function hiddenText(s: Simplified): string {
  const h = s.hidden;
  if (!h.activities && !h.paths) return '';
  const parts: string[] = [];
  if (h.activities) parts.push(`${h.activities} of ${h.ofActivities} activities (${percent(h.eventsShare)} of the events)`);
  if (h.paths) parts.push(`${h.paths} of ${h.ofPaths} paths (${percent(h.casesShare)} of the cases counted on paths)`);
  return `Hidden: ${parts.join(' and ')}.`;
}
