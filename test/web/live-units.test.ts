import { describe, expect, it } from 'vitest';
import { badge, finishedCases, lateness, openByNode, type LiveAnswer } from '../../api/web/src/map-live.js';
import { keepPlaces } from '../../api/web/src/placement.js';
import { BAND_MARGIN, FIT_MAX_ZOOM, fitZoomOfLayout } from '../../api/web/src/fit.js';
import type { GraphDocument, GraphEdge } from '../../api/web/src/types.js';

const box = { width: 100, height: 50 };

describe('stable placement (the live map keeps its nodes in place)', () => {
  it('keeps every node that was drawn where it was, and places a new one beside its neighbours, shifted as the fresh layout moved them', () => {
    const previous = new Map([['a', { x: 0, y: 0 }], ['b', { x: 200, y: 0 }]]);
    // The fresh layout moved a and b 40 to the right and 10 down, and put c after b.
    const fresh = { positions: new Map([['a', { x: 40, y: 10 }], ['b', { x: 240, y: 10 }], ['c', { x: 440, y: 10 }]]), bends: new Map([['a-b', [{ x: 1, y: 1 }]], ['b-c', [{ x: 2, y: 2 }]]]) };
    const oldBends = new Map([['a-b', [{ x: 100, y: -30 }]], ['gone', [{ x: 5, y: 5 }]]]);
    const placed = keepPlaces(previous, oldBends, new Set(['a-b']), fresh, new Map([['a', box], ['b', box], ['c', box]]));
    expect(Object.fromEntries(placed.positions)).toEqual({ a: { x: 0, y: 0 }, b: { x: 200, y: 0 }, c: { x: 400, y: 0 } });
    // Kept edges keep their routes; a new one is straight (its fresh bends belong to the other places).
    expect(Object.fromEntries(placed.bends)).toEqual({ 'a-b': [{ x: 100, y: -30 }] });
  });

  it('moves a new node to the nearest free place above or below when it would cover one, in its column', () => {
    const previous = new Map([['a', { x: 0, y: 0 }], ['b', { x: 200, y: 0 }]]);
    const fresh = { positions: new Map([['a', { x: 0, y: 0 }], ['b', { x: 200, y: 0 }], ['c', { x: 210, y: 5 }]]), bends: new Map() };
    const placed = keepPlaces(previous, new Map(), new Set(), fresh, new Map([['a', box], ['b', box], ['c', box]]));
    const c = placed.positions.get('c')!;
    expect(c.x).toBe(210);
    // Clear of b (50 high each, 14 apart), and no further than the first free step of 12.
    expect(Math.abs(c.y - 0)).toBeGreaterThanOrEqual(50 + 14);
    expect(Math.abs(c.y - 0)).toBeLessThan(50 + 14 + 12 + 5);
    expect(placed.positions.get('b')).toEqual({ x: 200, y: 0 });
  });

  it('moves end to stay last when a new step lands past it, and start to stay first, every other kept node in place', () => {
    const disc = { width: 58, height: 58 };
    const boxes = new Map([['start', disc], ['a', box], ['b', box], ['end', disc], ['c', box], ['z', box]]);
    const previous = new Map([['start', { x: 0, y: 0 }], ['a', { x: 150, y: 0 }], ['b', { x: 300, y: 0 }], ['end', { x: 430, y: 0 }]]);
    // The fresh layout put c after b (where end was) and end after c; and z before a, left of where start was.
    const fresh = {
      positions: new Map([['start', { x: 0, y: 0 }], ['z', { x: 40, y: 100 }], ['a', { x: 150, y: 0 }], ['b', { x: 300, y: 0 }], ['c', { x: 450, y: 0 }], ['end', { x: 580, y: 0 }]]),
      bends: new Map(),
    };
    const edges = new Map([['b-end', { from: 'b', to: 'end' }], ['a-b', { from: 'a', to: 'b' }], ['start-a', { from: 'start', to: 'a' }]]);
    const oldBends = new Map([['b-end', [{ x: 360, y: 20 }]], ['a-b', [{ x: 220, y: 20 }]], ['start-a', [{ x: 70, y: 10 }]]]);
    const placed = keepPlaces(previous, oldBends, new Set(edges.keys()), fresh, boxes, { start: 'start', end: 'end', edges });
    const at = Object.fromEntries(placed.positions);
    expect(at.a).toEqual({ x: 150, y: 0 });
    expect(at.b).toEqual({ x: 300, y: 0 });
    // c went where the fresh layout put it (no kept node moved, so no shift)...
    expect(at.c).toEqual({ x: 450, y: 0 });
    // ...and end one layer (46) past c's right edge, on its row; start one layer before z's left edge.
    expect(at.end).toEqual({ x: 450 + 50 + 46 + 29, y: 0 });
    expect(at.start).toEqual({ x: 40 - 50 - 46 - 29, y: 0 });
    for (const [id, p] of placed.positions) if (id !== 'end') expect(p.x).toBeLessThan(at.end!.x);
    for (const [id, p] of placed.positions) if (id !== 'start') expect(p.x).toBeGreaterThan(at.start!.x);
    // The routes at the moved terminals are drawn straight; the others keep their bends.
    expect([...placed.bends.keys()]).toEqual(['a-b']);
  });

  it('leaves end where it is while it is still last', () => {
    const previous = new Map([['a', { x: 0, y: 0 }], ['end', { x: 200, y: 0 }]]);
    const fresh = { positions: new Map([['a', { x: 0, y: 0 }], ['b', { x: 0, y: 100 }], ['end', { x: 200, y: 0 }]]), bends: new Map() };
    const placed = keepPlaces(previous, new Map(), new Set(), fresh, new Map([['a', box], ['b', box], ['end', { width: 58, height: 58 }]]), { end: 'end' });
    expect(placed.positions.get('end')).toEqual({ x: 200, y: 0 });
  });

  it('takes the fresh layout whole when nothing was drawn', () => {
    const fresh = { positions: new Map([['a', { x: 3, y: 4 }]]), bends: new Map([['e', [{ x: 1, y: 2 }]]]) };
    expect(keepPlaces(new Map(), new Map(), new Set(), fresh, new Map())).toBe(fresh);
  });
});

describe('the zoom a layout is fitted at (what the opening simplification keeps legible)', () => {
  it('fits the nodes, their bands and the routes into the area, never past FIT_MAX_ZOOM', () => {
    const layout = { positions: new Map([['a', { x: 0, y: 0 }], ['b', { x: 1000, y: 0 }]]), bends: new Map([['a-b', [{ x: 500, y: 300 }]]]) };
    const boxes = new Map([['a', box], ['b', box]]);
    const w = 1100 + 2 * BAND_MARGIN.x;
    const h = 325 + 2 * BAND_MARGIN.y;
    expect(fitZoomOfLayout(layout, boxes, { width: w / 2, height: 10_000 })).toBe(0.5);
    expect(fitZoomOfLayout(layout, boxes, { width: 10_000, height: h / 4 })).toBe(0.25);
    expect(fitZoomOfLayout(layout, boxes, { width: 10_000, height: 10_000 })).toBe(FIT_MAX_ZOOM);
  });
});

describe('open cases on the map', () => {
  const doc = {
    nodes: [
      { id: 'start', kind: 'start', label: '▶' },
      { id: 'n-a', kind: 'activity', label: 'A' },
      { id: 'n-b', kind: 'activity', label: 'B' },
      { id: 'end', kind: 'end', label: '■' },
    ],
  } as unknown as GraphDocument;
  const live = {
    activities: [
      { activity: 'A', openCases: 3, waitedHours: { median: 4, max: 9 }, usualWaitHours: 2, overUsual: 2 },
      { activity: 'Z', openCases: 1, waitedHours: { median: 1, max: 1 }, usualWaitHours: 1, overUsual: 0 },
    ],
  } as unknown as LiveAnswer;

  it('puts each activity\'s open cases on its node, and counts into end only the cases not open there', () => {
    const open = openByNode(doc, live);
    expect([...open.keys()]).toEqual(['n-a']);
    const edge = (from: string, to: string, cases: number) => ({ id: `${from}>${to}`, from, to, cases }) as GraphEdge;
    expect(finishedCases(edge('n-a', 'end', 10), 'end', open)).toBe(7);
    expect(finishedCases(edge('n-a', 'end', 3), 'end', open)).toBe(0);
    expect(finishedCases(edge('n-a', 'n-b', 10), 'end', open)).toBe(10);
    expect(finishedCases(edge('n-b', 'end', 5), 'end', open)).toBe(5);
  });

  it('reads the waits against the usual one', () => {
    const a = live.activities[0]!;
    expect(lateness(a)).toBe(0.5);
    expect(lateness({ ...a, waitedHours: { median: 1, max: 1 } })).toBe(0);
    expect(badge(a, false).text).toBe('3 open');
    expect(badge(a, true)).toMatchObject({ text: '3 · 4.0 h / 2.0 h', fill: '#c62828' });
    expect(badge(a, true).full).toContain('longest 9.0 h');
  });
});
