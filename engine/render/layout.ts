/**
 * A simple layered layout of the document's map, left to right, for the HTML
 * page's inline SVG (no layout library, no browser). Nodes are ordered as a
 * case moves: start, the stages' activities in stage order, any other
 * activity, end. Each node's column is the longest chain of forward hand-offs
 * (edges to a later node in that order) leading to it, so alternatives share a
 * column, but never left of its stage's first column, which lies right of
 * every column of the stages before (the web map's ELK partitions); end takes
 * the last column. An edge crossing columns gets a small
 * placeholder in each column between (as in Sugiyama's method), so it runs in
 * a lane of its own. Within a column, nodes and placeholders are ordered by a
 * few barycentre sweeps to cut crossings. Forward edges are curves left to
 * right; backward ones (rework, loops back) arc above or below the rows.
 */
import type { GraphDocument, GraphEdge, GraphNode } from '../document/types.js';
import { plainText } from './format.js';

export interface PlacedNode {
  node: GraphNode;
  layer: number;
  row: number;
  /** Centre. */
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PlacedEdge {
  edge: GraphEdge;
  /** SVG path data. */
  d: string;
  labelX: number;
  labelY: number;
  /** True for an edge drawn against the left-to-right direction (or to itself). */
  back: boolean;
}

export interface Layout {
  /** The view box: [minX, minY, width, height]. */
  viewBox: [number, number, number, number];
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  layers: number;
}

const ACTIVITY_W = 168;
const ACTIVITY_H = 54;
const TERMINAL = 44;
const PITCH_X = 260;
const GAP_Y = 28;
/** How far apart a hand-off and its way back between neighbouring columns run. */
const PAIR_OFFSET = 8;
/** The height of a long edge's place in a column it crosses. */
const DUMMY_H = 10;

/** Node ids in the order a case moves through them (start, stages in order, the rest, end). */
export function nodeOrder(doc: GraphDocument): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  const add = (id: string | undefined) => {
    if (id !== undefined && !seen.has(id)) {
      seen.add(id);
      order.push(id);
    }
  };
  const byLabel = new Map(doc.nodes.filter((n) => n.kind === 'activity').map((n) => [n.label, n.id]));
  for (const n of doc.nodes) if (n.kind === 'start') add(n.id);
  for (const st of doc.stages) for (const a of st.activities) add(byLabel.get(plainText(a)));
  for (const n of doc.nodes) if (n.kind === 'activity') add(n.id);
  for (const n of doc.nodes) if (n.kind === 'end') add(n.id);
  return order;
}

export function layoutDocument(doc: GraphDocument): Layout {
  const order = nodeOrder(doc);
  const rank = new Map(order.map((id, i) => [id, i]));
  const nodes = new Map(doc.nodes.map((n) => [n.id, n]));
  const edges = doc.edges.filter((e) => rank.has(e.from) && rank.has(e.to));
  const forward = (e: GraphEdge) => rank.get(e.from)! < rank.get(e.to)!;

  // Columns: longest chain of forward edges.
  const layer = new Map<string, number>();
  const incoming = new Map<string, GraphEdge[]>();
  for (const e of edges) if (forward(e)) (incoming.get(e.to) ?? incoming.set(e.to, []).get(e.to)!).push(e);
  // A stage starts right of every column of the stages before it: a late step reached early (a skip, an
  // exception from the first step) stood in an early column, before steps a case takes first.
  const stageIndex = new Map(doc.stages.map((s, i) => [s.id, i]));
  let stage = -1;
  let floor = 1;
  let widest = 0;
  for (const id of order) {
    const n = nodes.get(id)!;
    if (n.kind === 'start') layer.set(id, 0);
    else if (n.kind === 'end') continue;
    else {
      const s = stageIndex.get(n.stage);
      if (s !== undefined && s !== stage) {
        stage = s;
        floor = widest + 1;
      }
      const l = Math.max(s === undefined ? 1 : floor, ...(incoming.get(id) ?? []).map((e) => (layer.get(e.from) ?? 0) + 1));
      layer.set(id, l);
      widest = Math.max(widest, l);
    }
  }
  const lastActivity = Math.max(0, ...layer.values());
  for (const id of order) if (nodes.get(id)!.kind === 'end') layer.set(id, lastActivity + 1);
  const layerCount = Math.max(0, ...layer.values()) + 1;

  // Long forward edges pass through one placeholder per column they cross, so they
  // take a slot of their own instead of running through the nodes in between.
  type Slot = { id: string; real: boolean; h: number };
  const columns: Slot[][] = Array.from({ length: layerCount }, () => []);
  const slotLayer = new Map<string, number>();
  for (const id of order) {
    const n = nodes.get(id)!;
    columns[layer.get(id)!]!.push({ id, real: true, h: n.kind === 'activity' ? ACTIVITY_H : TERMINAL });
    slotLayer.set(id, layer.get(id)!);
  }
  /** Each forward edge as its chain of slots; segments link slots of neighbouring columns. */
  const chains = new Map<string, string[]>();
  const down = new Map<string, [string, number][]>();
  const up = new Map<string, [string, number][]>();
  const link = (u: string, v: string, w: number) => {
    (down.get(v) ?? down.set(v, []).get(v)!).push([u, w]);
    (up.get(u) ?? up.set(u, []).get(u)!).push([v, w]);
  };
  for (const e of edges) {
    if (e.from === e.to) continue;
    const la = layer.get(e.from)!;
    const lb = layer.get(e.to)!;
    if (lb <= la) continue;
    const chain = [e.from];
    for (let c = la + 1; c < lb; c++) {
      const id = `\u0000${e.id}\u0000${c}`;
      columns[c]!.push({ id, real: false, h: DUMMY_H });
      slotLayer.set(id, c);
      chain.push(id);
    }
    chain.push(e.to);
    for (let i = 1; i < chain.length; i++) link(chain[i - 1]!, chain[i]!, e.cases);
    chains.set(e.id, chain);
  }
  const slotRank = new Map<string, number>();
  columns.forEach((col) => col.forEach((slot, i) => slotRank.set(slot.id, i)));

  // Rows: start from the case order, then barycentre sweeps (weighted by cases) down and up the columns.
  const centreOf = () => {
    const p = new Map<string, number>();
    for (const col of columns) {
      const offset = (col.length - 1) / 2;
      col.forEach((slot, i) => p.set(slot.id, i - offset));
    }
    return p;
  };
  for (let sweep = 0; sweep < 6; sweep++) {
    const goingDown = sweep % 2 === 0;
    const p = centreOf();
    const indices = goingDown ? [...columns.keys()].slice(1) : [...columns.keys()].reverse().slice(1);
    for (const c of indices) {
      const col = columns[c]!;
      const centre = (id: string) => {
        const near = (goingDown ? down.get(id) : up.get(id)) ?? [];
        const weight = near.reduce((sum, [, w]) => sum + w, 0);
        return weight > 0 ? near.reduce((sum, [other, w]) => sum + p.get(other)! * w, 0) / weight : p.get(id)!;
      };
      const keyed = col.map((slot) => ({ slot, key: centre(slot.id), rank: slotRank.get(slot.id)! }));
      keyed.sort((a, b) => a.key - b.key || a.rank - b.rank);
      columns[c] = keyed.map((k) => k.slot);
      const offset = (col.length - 1) / 2;
      columns[c]!.forEach((slot, i) => p.set(slot.id, i - offset));
    }
  }

  const placed = new Map<string, PlacedNode>();
  const slotY = new Map<string, number>();
  /** Corners of every slot, long edges' lanes included, for the view box. */
  const lanes: [number, number][] = [];
  columns.forEach((col, c) => {
    const height = col.reduce((sum, slot) => sum + slot.h, 0) + GAP_Y * Math.max(0, col.length - 1);
    let y = -height / 2;
    col.forEach((slot, i) => {
      const centre = y + slot.h / 2;
      slotY.set(slot.id, centre);
      y += slot.h + GAP_Y;
      lanes.push([c * PITCH_X, centre - slot.h / 2 - 12], [c * PITCH_X, centre + slot.h / 2 + 12]);
      if (!slot.real) return;
      const node = nodes.get(slot.id)!;
      const terminal = node.kind !== 'activity';
      placed.set(slot.id, { node, layer: c, row: i, x: c * PITCH_X, y: centre, w: terminal ? TERMINAL : ACTIVITY_W, h: slot.h });
    });
  });

  const round = (v: number) => Math.round(v * 10) / 10;
  /** Back edges to the column before ("from\0to") that have a forward twin. */
  const pairedBack = new Set<string>();
  for (const e of edges) {
    if (e.from === e.to || layer.get(e.from)! !== layer.get(e.to)! + 1) continue;
    if (edges.some((o) => o.from === e.to && o.to === e.from)) pairedBack.add(`${e.from}\u0000${e.to}`);
  }
  const laid: PlacedEdge[] = [];
  const points: [number, number][] = [...lanes];
  for (const e of edges) {
    const a = placed.get(e.from)!;
    const b = placed.get(e.to)!;
    if (e.from === e.to) {
      const top = a.y - a.h / 2;
      const d = `M ${round(a.x - 14)} ${round(top)} C ${round(a.x - 40)} ${round(top - 46)} ${round(a.x + 40)} ${round(top - 46)} ${round(a.x + 14)} ${round(top)}`;
      laid.push({ edge: e, d, labelX: round(a.x), labelY: round(top - 38), back: true });
      points.push([a.x - 40, top - 50]);
      continue;
    }
    const chain = chains.get(e.id);
    if (chain) {
      // Through the placeholders, each step a curve leaving and arriving level.
      // A hand-off to the next column with one back beside it: the two run side by side.
      const shift = chain.length === 2 && pairedBack.has(`${e.to}\u0000${e.from}`) ? -PAIR_OFFSET : 0;
      const at: [number, number][] = [[a.x + a.w / 2, a.y + shift]];
      for (const id of chain.slice(1, -1)) at.push([slotLayer.get(id)! * PITCH_X, slotY.get(id)!]);
      at.push([b.x - b.w / 2, b.y + shift]);
      let d = `M ${round(at[0]![0])} ${round(at[0]![1])}`;
      for (let i = 1; i < at.length; i++) {
        const [x0, y0] = at[i - 1]!;
        const [x1, y1] = at[i]!;
        const dx = (x1 - x0) / 2;
        d += ` C ${round(x0 + dx)} ${round(y0)} ${round(x1 - dx)} ${round(y1)} ${round(x1)} ${round(y1)}`;
      }
      const [lx, ly] = at.length > 2 ? at[1]! : [(at[0]![0] + at[1]![0]) / 2, (at[0]![1] + at[1]![1]) / 2];
      laid.push({ edge: e, d, labelX: round(lx), labelY: round(ly), back: false });
      continue;
    }
    if (a.layer === b.layer + 1) {
      // Back to the column before: right to left between the two, below its forward twin if any.
      const shift = pairedBack.has(`${e.from}\u0000${e.to}`) ? PAIR_OFFSET : 0;
      const sx = a.x - a.w / 2;
      const ex = b.x + b.w / 2;
      const dx = (sx - ex) / 2;
      const d = `M ${round(sx)} ${round(a.y + shift)} C ${round(sx - dx)} ${round(a.y + shift)} ${round(ex + dx)} ${round(b.y + shift)} ${round(ex)} ${round(b.y + shift)}`;
      laid.push({ edge: e, d, labelX: round((sx + ex) / 2), labelY: round((a.y + b.y) / 2 + shift + 10), back: true });
      continue;
    }
    // Further against the flow, or within one column: an arc below or above the two nodes, on the side
    // with fewer nodes in their own columns, deep enough to pass the nodes of the columns between.
    const lo = Math.min(a.layer, b.layer);
    const hi = Math.max(a.layer, b.layer);
    const realIn = (c: number) => columns[c]!.filter((slot) => slot.real && slot.id !== a.node.id && slot.id !== b.node.id).map((slot) => placed.get(slot.id)!);
    const own = [...realIn(a.layer).filter((n) => n.x === a.x), ...(a.layer === b.layer ? [] : realIn(b.layer))];
    const underA = own.filter((n) => n.y > (n.layer === a.layer ? a.y : b.y)).length;
    const overA = own.length - underA;
    const below = underA !== overA ? underA < overA : a.y + b.y >= 0;
    const sign = below ? 1 : -1;
    const sy = a.y + (sign * a.h) / 2;
    const ey = b.y + (sign * b.h) / 2;
    const sx = a.x + (a.layer === b.layer ? 16 : 0);
    const ex = b.x - (a.layer === b.layer ? 16 : 0);
    let reach = below ? Math.max(sy, ey) + 26 + 8 * (hi - lo) : Math.min(sy, ey) - 26 - 8 * (hi - lo);
    for (let c = lo + 1; c < hi; c++) {
      for (const n of realIn(c)) {
        if (below && n.y + n.h / 2 > Math.min(a.y, b.y) - n.h) reach = Math.max(reach, n.y + n.h / 2 + 16);
        if (!below && n.y - n.h / 2 < Math.max(a.y, b.y) + n.h) reach = Math.min(reach, n.y - n.h / 2 - 16);
      }
    }
    // A cubic's middle is at 1/8 of each end and 3/4 of the control points' level.
    const cy1 = (reach - (sy + ey) / 8) / 0.75;
    const d = `M ${round(sx)} ${round(sy)} C ${round(sx)} ${round(cy1)} ${round(ex)} ${round(cy1)} ${round(ex)} ${round(ey)}`;
    laid.push({ edge: e, d, labelX: round((sx + ex) / 2), labelY: round(reach), back: true });
    points.push([sx, reach + sign * 12], [ex, reach + sign * 12]);
  }

  for (const n of placed.values()) points.push([n.x - n.w / 2, n.y - n.h / 2], [n.x + n.w / 2, n.y + n.h / 2]);
  const margin = 24;
  if (!points.length) points.push([0, 0]);
  const minX = Math.min(...points.map((p) => p[0])) - margin;
  const maxX = Math.max(...points.map((p) => p[0])) + margin;
  const minY = Math.min(...points.map((p) => p[1])) - margin;
  const maxY = Math.max(...points.map((p) => p[1])) + margin;
  return {
    viewBox: [round(minX), round(minY), round(maxX - minX), round(maxY - minY)],
    nodes: order.map((id) => placed.get(id)!),
    edges: laid,
    layers: layerCount,
  };
}
