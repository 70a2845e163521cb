/**
 * A stable live layout: nodes already on the map keep their places, and a new
 * node goes where a fresh layout puts it, shifted by how far that layout
 * moved the nodes both share (so it lands beside its neighbours), then to the
 * nearest free place above or below if it would cover a node. Edges between
 * kept nodes keep their bends; new ones are drawn straight (their fresh bends
 * belong to the other layout's places).
 */
import type { Layout, Point } from './layout-types.js';

export type { Layout, Point };

export interface Box {
  width: number;
  height: number;
}

const GAP = 14;

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
    const free = (q: Point) => [...positions].every(([other, at]) => !overlaps(q, b, at, box(other)));
    let at = want;
    // The nearest free place straight above or below: the column (the layer, the stage band) stays the fresh layout's.
    for (let step = 1; !free(at) && step < 400; step++) {
      const d = Math.ceil(step / 2) * 12 * (step % 2 ? 1 : -1);
      at = { x: want.x, y: want.y + d };
    }
    positions.set(id, at);
  }
  const bends = new Map<string, Point[]>();
  for (const [id, points] of previousBends) if (previousEdges.has(id)) bends.set(id, points);
  return { positions, bends };
}
