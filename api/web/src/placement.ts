/**
 * A stable live layout: nodes already on the map keep their places, and a new
 * node goes where a fresh layout puts it, shifted by how far that layout
 * moved the nodes both share (so it lands beside its neighbours), then to the
 * nearest free place above or below if it would cover a node. Edges between
 * kept nodes keep their bends; new ones are drawn straight (their fresh bends
 * belong to the other layout's places).
 *
 * Start and end stay the map's first and last: when a node lands at or past
 * end (a new step after the last one, seen as the stream grows), end moves
 * right to one layer past the rightmost node, and start moves left likewise;
 * they are the only kept nodes that ever move, and the edges at a moved
 * terminal are drawn straight.
 */
import type { Layout, Point } from './layout-types.js';

export type { Layout, Point };

export interface Box {
  width: number;
  height: number;
}

const GAP = 14;
/** ELK's space between layers (layout.ts): a terminal moved past the others keeps it. */
const LAYER_GAP = 46;

/** The terminals of the map, and the ends of its edges (to straighten the edges at a terminal that moved). */
export interface Terminals {
  start?: string;
  end?: string;
  edges?: ReadonlyMap<string, { from: string; to: string }>;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : 0;
}

function overlaps(p: Point, b: Box, q: Point, c: Box): boolean {
  return Math.abs(p.x - q.x) < (b.width + c.width) / 2 + GAP && Math.abs(p.y - q.y) < (b.height + c.height) / 2 + GAP;
}

export function keepPlaces(
  previous: ReadonlyMap<string, Point>,
  previousBends: ReadonlyMap<string, Point[]>,
  previousEdges: ReadonlySet<string>,
  fresh: Layout,
  boxes: ReadonlyMap<string, Box>,
  terminals: Terminals = {},
): Layout {
  const kept = [...fresh.positions.keys()].filter((id) => previous.has(id));
  if (kept.length === 0) return fresh;
  const dx = median(kept.map((id) => previous.get(id)!.x - fresh.positions.get(id)!.x));
  const dy = median(kept.map((id) => previous.get(id)!.y - fresh.positions.get(id)!.y));
  const positions = new Map<string, Point>();
  for (const id of kept) positions.set(id, { ...previous.get(id)! });
  const box = (id: string) => boxes.get(id) ?? { width: 60, height: 60 };
  for (const [id, p] of fresh.positions) {
    if (positions.has(id)) continue;
    const want = { x: p.x + dx, y: p.y + dy };
    const b = box(id);
    // Start and end are not in a new step's way: they move aside after (below) when it lands at or past them.
    const isTerminal = (x: string) => x === terminals.start || x === terminals.end;
    const free = (q: Point) => [...positions].every(([other, at]) => (isTerminal(other) && !isTerminal(id)) || !overlaps(q, b, at, box(other)));
    let at = want;
    // The nearest free place straight above or below: the column (the layer, the stage band) stays the fresh layout's.
    for (let step = 1; !free(at) && step < 400; step++) {
      const d = Math.ceil(step / 2) * 12 * (step % 2 ? 1 : -1);
      at = { x: want.x, y: want.y + d };
    }
    positions.set(id, at);
  }
  const moved = new Set<string>();
  for (const [id, side] of [[terminals.end, 1], [terminals.start, -1]] as const) {
    const at = id === undefined ? undefined : positions.get(id);
    if (id === undefined || !at) continue;
    const others = [...positions].filter(([other]) => other !== terminals.start && other !== terminals.end);
    if (!others.length) continue;
    // The outermost edge of the other nodes on this side (right for end, left for start).
    const outer = side * Math.max(...others.map(([other, p]) => side * p.x + box(other).width / 2));
    const half = box(id).width / 2;
    if (side * (at.x - outer) - half >= GAP) continue;
    const want = { x: outer + side * (LAYER_GAP + half), y: at.y };
    const b = box(id);
    let to = want;
    for (let step = 1; [...positions].some(([other, q]) => other !== id && overlaps(to, b, q, box(other))) && step < 400; step++) {
      to = { x: want.x, y: want.y + Math.ceil(step / 2) * 12 * (step % 2 ? 1 : -1) };
    }
    positions.set(id, to);
    moved.add(id);
  }
  const bends = new Map<string, Point[]>();
  for (const [id, points] of previousBends) {
    const e = terminals.edges?.get(id);
    if (previousEdges.has(id) && !(e && (moved.has(e.from) || moved.has(e.to)))) bends.set(id, points);
  }
  return { positions, bends };
}
