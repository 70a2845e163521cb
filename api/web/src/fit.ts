/**
 * How far fitting zooms: never in past FIT_MAX_ZOOM (a map of two or three
 * steps is not blown up), and the least zoom at which the map is legible,
 * which the map's opening simplification keeps to (map.ts). Pure: a laid-out
 * map's zoom is known before it is drawn.
 */
import type { Layout } from './layout-types.js';
import type { Box } from './placement.js';

/** Fitting never zooms in further than this (labels at 1.25 times their size). */
export const FIT_MAX_ZOOM = 1.25;
/**
 * The least zoom at which the map is legible: node names (12 px) drawn at 11
 * CSS px, edge counts (11 px) at 10. Until the reader moves a slider, the map
 * opens with fewer activities than the defaults when these would fit the
 * window only at a smaller zoom.
 */
export const LEGIBLE_ZOOM = 11 / 12;
/** Room around the laid-out nodes that the drawing takes too: stage bands' padding and titles, edges routed round. */
export const BAND_MARGIN = { x: 24, y: 40 };

/** The band fitting puts the map in (map.ts fitArea). */
export interface FitArea {
  width: number;
  height: number;
}

/** The zoom fitting would choose for a layout: its nodes, their stage bands and its routes. */
export function fitZoomOfLayout(result: Layout, boxes: ReadonlyMap<string, Box>, area: FitArea): number {
  let x1 = Infinity;
  let y1 = Infinity;
  let x2 = -Infinity;
  let y2 = -Infinity;
  const take = (x: number, y: number, w = 0, h = 0) => {
    x1 = Math.min(x1, x - w / 2);
    x2 = Math.max(x2, x + w / 2);
    y1 = Math.min(y1, y - h / 2);
    y2 = Math.max(y2, y + h / 2);
  };
  for (const [id, p] of result.positions) take(p.x, p.y, boxes.get(id)?.width ?? 60, boxes.get(id)?.height ?? 60);
  for (const points of result.bends.values()) for (const p of points) take(p.x, p.y);
  const { width, height } = area;
  if (!(x2 > x1) || width <= 0 || height <= 0) return FIT_MAX_ZOOM;
  return Math.min(FIT_MAX_ZOOM, width / (x2 - x1 + 2 * BAND_MARGIN.x), height / (y2 - y1 + 2 * BAND_MARGIN.y));
}
