/**
 * Painting the process map's elements: node and edge data for the view on
 * screen, the badges of open cases (map-live.ts), edge routes along ELK's
 * bends and the stage names' widths.
 */
import type { Core, EdgeSingular, NodeSingular } from 'cytoscape';
import { cases as casesWord, hours, int, waitColor } from './format.js';
import type { Point } from './layout.js';
import { badge, finishedCases, type LiveActivity } from './map-live.js';
import { blueRamp, EDGE_KINDS, hasLongWord, luminance, nodeBox } from './map-style.js';
import { segments } from './layout.js';
import { labelText, oneLine } from './text.js';
import type { GraphDocument, GraphEdge, GraphNode } from './types.js';

/** What the reader chose to see. */
export interface Look {
  view: 'frequency' | 'performance';
  metric: 'median' | 'slow';
  waits: boolean;
}

export const BADGE_PREFIX = 'open:';

export function paintNode(look: Look, el: NodeSingular, n: GraphNode, doc: GraphDocument, open: ReadonlyMap<string, LiveActivity>): void {
  const maxCases = Math.max(1, ...doc.nodes.filter((x) => x.kind === 'activity').map((x) => x.cases));
  if (n.kind !== 'activity') {
    // End counts the cases that did not stop open (the live state's open cases sit on their nodes' badges).
    let openCases = 0;
    if (n.kind === 'end') for (const a of open.values()) openCases += a.openCases;
    const cases = Math.max(0, n.cases - openCases);
    el.data({ text: `${n.kind === 'start' ? 'start' : 'end'}\n${int(cases)}`, full: oneLine(openCases ? `${n.label}: ${casesWord(cases)}, not counting ${int(openCases)} open` : n.label), cases });
    return;
  }
  const label = labelText(n.label);
  let fill: string;
  let text: string;
  if (look.view === 'frequency') {
    fill = blueRamp(n.cases / maxCases);
    text = `${label}\n${casesWord(n.cases)}`;
  } else {
    const waits = doc.nodes.filter((x) => x.kind === 'activity' && x.median_hours_to_next > 0).map((x) => x.median_hours_to_next);
    fill = waitColor(n.median_hours_to_next, Math.min(...waits), Math.max(...waits));
    text = `${label}\n${n.median_hours_to_next > 0 ? `${hours(n.median_hours_to_next)} to next` : '—'}`;
  }
  const box = nodeBox(n);
  el.data({ text, full: oneLine(n.label), fill, ink: luminance(fill) < 0.5 ? '#ffffff' : '#1d2330', w: box.width, h: box.height, tw: box.width - 10, longword: hasLongWord(label, box.width), cases: n.cases, repeating: n.cases_repeating, kind: n.kind });
}

export function paintEdges(look: Look, cy: Core, edges: readonly GraphEdge[], doc: GraphDocument, open: ReadonlyMap<string, LiveActivity>): void {
  const endId = doc.nodes.find((n) => n.kind === 'end')?.id;
  const maxCases = Math.max(1, ...doc.edges.map((e) => e.cases));
  const labels = new Map(doc.nodes.map((n) => [n.id, n.label]));
  const wait = (e: GraphEdge) => (look.metric === 'median' ? e.median_wait_hours : e.slow_wait_hours);
  const waits = edges.map(wait).filter((h) => h > 0);
  const lo = waits.length ? Math.min(...waits) : 0;
  const hi = waits.length ? Math.max(...waits) : 0;
  for (const e of edges) {
    const el = cy.getElementById(e.id);
    // Into end: only the cases that did not stop open there (map-live.ts); none such, the hand-off is not drawn.
    const cases = finishedCases(e, endId, open);
    el.toggleClass('unfinished', e.to === endId && cases === 0);
    const width = 1 + 9 * Math.sqrt(cases / maxCases);
    const perf = look.view === 'performance';
    const color = perf ? waitColor(wait(e), lo, hi) : EDGE_KINDS[e.kind].color;
    const text = perf ? (wait(e) > 0 ? hours(wait(e)) : '') : int(cases);
    const full = oneLine(`${labels.get(e.from) ?? e.from} → ${labels.get(e.to) ?? e.to}: ${casesWord(cases)}${cases !== e.cases ? ` (${int(e.cases - cases)} more stopped here and are open)` : ''}`);
    el.data({ w: width, color, text, full, kind: e.kind, cases });
  }
}

/** One badge per shown node with open cases, at its box's top right corner. */
export function paintBadges(look: Look, cy: Core, nodes: readonly GraphNode[], open: ReadonlyMap<string, LiveActivity>): void {
  cy.batch(() => {
    const want = new Set(nodes.filter((n) => open.has(n.id)).map((n) => BADGE_PREFIX + n.id));
    cy.nodes('.badge').forEach((b) => {
      if (!want.has(b.id())) b.remove();
    });
    for (const n of nodes) {
      const a = open.get(n.id);
      if (!a) continue;
      const data = { ...badge(a, look.waits), of: n.id, open: a.openCases };
      const el = cy.getElementById(BADGE_PREFIX + n.id);
      if (el.empty()) cy.add({ group: 'nodes', data: { id: BADGE_PREFIX + n.id, ...data }, classes: 'badge', selectable: false, grabbable: false });
      else el.data(data);
      placeBadge(cy.getElementById(n.id) as NodeSingular);
    }
  });
}

export function placeBadge(node: NodeSingular): void {
  const b = node.cy().getElementById(BADGE_PREFIX + node.id());
  if (b.empty()) return;
  const p = node.position();
  const w = Number(node.data('w') ?? 58);
  const h = Number(node.data('h') ?? 58);
  b.position({ x: p.x + w / 2 - Number(b.data('w')) / 2 + 6, y: p.y - h / 2 - 4 });
}

/** Edges follow ELK's bend points (as Cytoscape segments); straight ones and loops are Cytoscape's own curves. */
export function route(cy: Core, bendsOf: ReadonlyMap<string, Point[]>, edges: readonly GraphEdge[]): void {
  cy.batch(() => {
    for (const e of edges) {
      const el = cy.getElementById(e.id) as EdgeSingular;
      if (el.empty()) continue;
      const bends = e.from === e.to ? undefined : bendsOf.get(e.id);
      const seg = bends && segments(el.source().position(), el.target().position(), bends);
      if (seg) {
        el.style({
          'curve-style': 'round-segments',
          'edge-distances': 'node-position',
          'segment-weights': seg.weights,
          'segment-distances': seg.distances,
          'segment-radii': 14,
        } as never);
      } else {
        el.removeStyle('curve-style edge-distances segment-weights segment-distances segment-radii');
      }
    }
  });
}

/** A stage's name wraps within its band (its activities' extent), so neighbouring names never run into each other. */
export function fitStageLabels(cy: Core): void {
  cy.batch(() =>
    cy.nodes('.stage').forEach((stage) => {
      let lo = Infinity;
      let hi = -Infinity;
      stage.children().forEach((c) => {
        const half = Number(c.data('w') ?? 0) / 2;
        lo = Math.min(lo, c.position('x') - half);
        hi = Math.max(hi, c.position('x') + half);
      });
      if (hi > lo) {
        const lw = Math.max(60, Math.round(hi - lo + 20));
        stage.data({ lw, longword: hasLongWord(String(stage.data('name') ?? ''), lw + 14) });
      }
    }),
  );
}
