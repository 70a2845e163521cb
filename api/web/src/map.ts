/**
 * The process map: the document's nodes and edges drawn with Cytoscape.js at
 * the positions ELK gives them (layout.ts). A live update changes the data of
 * the elements in place, so zoom, pan and selection stay; only when the set of
 * shown nodes or edges changes is the layout computed again, and the nodes
 * glide to their new places while the viewport stays where the reader left it.
 *
 * Names are drawn as labels (text.ts): control characters shown, cut at
 * LABEL_MAX characters with an ellipsis; hovering a node, a stage or an
 * edge puts its whole (visible) name in the map's title, the browser's
 * tooltip.
 */
import cytoscape, { type Core, type EdgeSingular, type ElementDefinition, type NodeSingular } from 'cytoscape';
import { EDGE_KINDS, liveStyle, nodeBox, style } from './map-style.js';
import { openByNode, type LiveAnswer } from './map-live.js';
import { fitStageLabels, paintBadges, paintEdges, paintNode, placeBadge, route } from './map-paint.js';
import { FIT_MAX_ZOOM, fitZoomOfLayout, LEGIBLE_ZOOM } from './fit.js';
import { keepPlaces, type Box } from './placement.js';
import { shown, type Shown, type Simplified } from './filter.js';
import { layout, type Layout, type LayoutEdge, type LayoutNode, type Point } from './layout.js';
import { labelText, oneLine } from './text.js';
import type { GraphDocument, GraphNode } from './types.js';

export { EDGE_KINDS, FIT_MAX_ZOOM, LEGIBLE_ZOOM };

export type View = 'frequency' | 'performance';
export type WaitMetric = 'median' | 'slow';

export type MapSelection = { type: 'node' | 'edge' | 'stage'; id: string } | undefined;

export interface MapOptions {
  onSelect(selection: MapSelection): void;
  /** Called after each document has been drawn, with the version it showed. */
  onRendered(doc: GraphDocument): void;
  /** Pixels at the top and bottom of the map that its tools and legend cover: fitting keeps the graph out of them. */
  covered?(): { top: number; bottom: number };
}

const STAGE_PREFIX = 'stage:';

export class ProcessMap {
  readonly cy: Core;
  view: View = 'frequency';
  metric: WaitMetric = 'median';
  activitiesPct = 100;
  pathsPct = 100;
  /** What the sliders kept and hid on the last drawing (its hidden counts are stated beside the sliders). */
  lastShown: Simplified | undefined;
  /** Test hooks: how many pulses were shown and which nodes the last one touched. */
  pulses = 0;
  lastPulse: string[] = [];
  /** The data version on screen (after its layout and styles were applied). */
  renderedVersion: string | undefined;

  private doc: GraphDocument | undefined;
  /** Bumped by reset(): a layout still running for the previous project is dropped. */
  private generation = 0;
  private structure = '';
  private running = false;
  private dirty = false;
  private fitted = false;
  private highlighted: Shown | undefined;
  private pendingPulse: string[] = [];
  private bends = new Map<string, { x: number; y: number }[]>();
  /** The live state beside the document (open cases per activity), and whether badges show their waits. */
  private live: LiveAnswer | undefined;
  waits = false;
  /** Whether the reader panned or zoomed since the last fit: then a grown map is not re-fitted under them. */
  userMoved = false;
  private fitting = false;
  /** Set by relayout(): the next drawing lays the map out afresh instead of keeping the places. */
  private fresh = false;
  /**
   * While the reader has not moved a slider: a drawing whose layout would fit
   * the window only below LEGIBLE_ZOOM lowers activitiesPct (the least
   * frequent activities hidden first) until it fits, or none is left to hide.
   */
  autoSimplify = false;

  constructor(
    private readonly container: HTMLElement,
    private readonly options: MapOptions,
  ) {
    this.cy = cytoscape({
      container,
      style: [...style, ...liveStyle],
      minZoom: 0.08,
      maxZoom: 4,
      boxSelectionEnabled: false,
      selectionType: 'single',
      autoungrabify: false,
    });
    this.cy.on('tap', (event) => {
      const target = event.target as Core | NodeSingular | EdgeSingular;
      if (target === this.cy) return this.options.onSelect(undefined);
      const el = target as NodeSingular | EdgeSingular;
      if (el.isNode() && el.hasClass('stage')) return this.options.onSelect({ type: 'stage', id: el.id().slice(STAGE_PREFIX.length) });
      this.options.onSelect({ type: el.isNode() ? 'node' : 'edge', id: el.id() });
    });
    // The whole name on hover: the map's title is the browser's tooltip.
    this.cy.on('mouseover', 'node, edge', (event) => {
      const full = (event.target as NodeSingular | EdgeSingular).data('full') as string | undefined;
      if (full) this.container.title = full;
    });
    this.cy.on('mouseout', 'node, edge', () => this.container.removeAttribute('title'));
    this.cy.on('viewport', () => {
      if (!this.fitting) this.userMoved = true;
    });
    // A badge rides on its node (also while the node glides to a new place).
    this.cy.on('position', 'node.doc', (event) => placeBadge(event.target as NodeSingular));
  }

  /** The open cases of the live state; drawn on the document on screen. */
  setLive(live: LiveAnswer | undefined): void {
    this.live = live;
    this.schedule();
  }

  /** Whether the badges show how long the open cases have waited against the step's usual wait. */
  setWaits(on: boolean): void {
    this.waits = on;
    this.schedule();
  }

  /** Lays the map out afresh at the next drawing (the reader asked), and fits it. */
  relayout(): void {
    this.fresh = true;
    this.userMoved = false;
    this.structure = '';
    this.schedule();
  }

  /** The data version of the live state drawn (a test hook). */
  get liveVersion(): number | undefined {
    return this.drawnLive;
  }
  private drawnLive: number | undefined;

  /** The open-case count drawn on each node (a test hook), by node id. */
  openCounts(): Record<string, number> {
    return Object.fromEntries(this.cy.nodes('.badge').map((b) => [String(b.data('of')), Number(b.data('open'))]));
  }

  /** The text drawn on each node and stage band, and its hover text, by element id (a test hook). */
  labels(): Record<string, { text: string; full: string }> {
    return Object.fromEntries(this.cy.nodes().map((n) => [n.id(), { text: String(n.data('text') ?? n.data('name') ?? ''), full: String(n.data('full') ?? '') }]));
  }

  /** Shows a (new) document; pulses the given nodes once it is drawn. */
  show(doc: GraphDocument, pulse: readonly string[] = []): void {
    this.doc = doc;
    this.pendingPulse.push(...pulse);
    this.schedule();
  }

  /** Forgets the drawn project: the next document is laid out afresh and fitted. */
  reset(): void {
    this.generation++;
    this.doc = undefined;
    this.pendingPulse = [];
    this.structure = '';
    this.fitted = false;
    this.highlighted = undefined;
    this.renderedVersion = undefined;
    this.live = undefined;
    this.drawnLive = undefined;
    this.userMoved = false;
    this.bends = new Map();
    this.cy.elements().remove();
  }

  setView(view: View): void {
    this.view = view;
    this.schedule();
  }

  setMetric(metric: WaitMetric): void {
    this.metric = metric;
    this.schedule();
  }

  setFilter(activitiesPct: number, pathsPct: number): void {
    this.activitiesPct = activitiesPct;
    this.pathsPct = pathsPct;
    this.schedule();
  }

  /** Lights up these nodes and edges and dims the rest, until cleared; kept across updates. */
  highlight(part: Shown | undefined): void {
    this.highlighted = part;
    this.applyHighlight();
  }

  /** Selects one element on the map (or none), as a click would, without telling the page back. */
  select(id: string | undefined): void {
    this.cy.$(':selected').unselect();
    if (id !== undefined) this.cy.getElementById(id).select();
  }

  /**
   * Fits the map to the window, never zooming in past FIT_MAX_ZOOM: a map of
   * a few nodes (an empty project's start and end) would otherwise fill the
   * window with giant circles and draw under the map's message.
   */
  fit(): void {
    this.fitting = true;
    try {
      this.fitNow();
    } finally {
      this.fitting = false;
    }
  }

  /** The Fit button: fitted, and fitted again as the map grows until the reader moves it. */
  fitByReader(): void {
    this.fit();
    this.userMoved = false;
  }

  /** The band between the map's tools and its legend, less a margin: where fitting puts the map. */
  private fitArea(): { left: number; top: number; width: number; height: number } {
    const pad = 30;
    const { top, bottom } = this.options.covered?.() ?? { top: 0, bottom: 0 };
    return { left: pad, top: top + pad, width: this.cy.width() - 2 * pad, height: this.cy.height() - top - bottom - 2 * pad };
  }

  private fitNow(): void {
    const cy = this.cy;
    const elements = cy.elements();
    if (elements.empty()) return;
    const { left, top, width, height } = this.fitArea();
    const bb = elements.boundingBox();
    if (width <= 0 || height <= 0 || bb.w <= 0 || bb.h <= 0) {
      cy.fit(undefined, 50);
      return;
    }
    // Into the band between the tools and the legend, so neither covers a node.
    const zoom = Math.max(cy.minZoom(), Math.min(FIT_MAX_ZOOM, width / bb.w, height / bb.h));
    cy.viewport({ zoom, pan: { x: left + width / 2 - zoom * (bb.x1 + bb.w / 2), y: top + height / 2 - zoom * (bb.y1 + bb.h / 2) } });
  }

  /** The zoom fitting would choose for a layout, before it is drawn. */
  private fitZoomOf(result: Layout, boxes: ReadonlyMap<string, Box>): number {
    return fitZoomOfLayout(result, boxes, this.fitArea());
  }

  /** The document node and edge ids drawn (stage bands left out): what the test compares with the document. */
  drawn(): Shown {
    return {
      nodes: this.cy.nodes('.doc').map((n) => n.id()),
      edges: this.cy.edges().map((e) => e.id()),
    };
  }

  private schedule(): void {
    if (this.running) {
      this.dirty = true;
      return;
    }
    this.running = true;
    void this.loop();
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.dirty = false;
        if (this.doc) await this.render(this.doc);
      } while (this.dirty);
    } catch (error) {
      console.error('the map could not be drawn', error);
    } finally {
      this.running = false;
    }
  }

  /** What the map draws of a document at these slider positions: the kept nodes and edges and their structure's key. */
  private pick(doc: GraphDocument, activitiesPct: number, pathsPct: number) {
    const vis = shown(doc, activitiesPct, pathsPct);
    const nodeById = new Map(doc.nodes.map((n) => [n.id, n]));
    const edgeById = new Map(doc.edges.map((e) => [e.id, e]));
    const stageIndex = new Map(doc.stages.map((s, i) => [s.id, i + 1]));
    // An empty project draws nothing: a start and an end around no activity say nothing, and sat under the map's message.
    const empty = !vis.nodes.some((id) => nodeById.get(id)?.kind === 'activity');
    const nodes = empty ? [] : vis.nodes.map((id) => nodeById.get(id)!);
    const edges = empty ? [] : vis.edges.map((id) => edgeById.get(id)!);
    const stageOf = (n: GraphNode) => (n.kind === 'activity' && stageIndex.has(n.stage) ? n.stage : '');
    const structure = JSON.stringify([nodes.map((n) => [n.id, stageOf(n), nodeBox(n).height]), edges.map((e) => e.id), doc.stages.map((s) => s.id)]);
    return { vis, nodes, edges, stageOf, stageIndex, structure };
  }

  /** A fresh ELK layout of the picked nodes and edges, and the boxes it placed. */
  private async layOut(doc: GraphDocument, picked: ReturnType<ProcessMap['pick']>): Promise<{ result: Layout; boxes: Map<string, Box> }> {
    const { nodes, edges, stageIndex } = picked;
    // Nodes in the stages' order (their activities are listed in the backbone's order), then the rest.
    const rank = new Map<string, number>();
    for (const s of doc.stages) for (const a of s.activities) if (!rank.has(String(a))) rank.set(String(a), rank.size);
    const partitionOf = (n: GraphNode) => (n.kind === 'start' ? 0 : n.kind === 'end' ? doc.stages.length + 1 : (stageIndex.get(n.stage) ?? 1));
    const ordered = [...nodes].sort((a, b) => partitionOf(a) - partitionOf(b) || (rank.get(a.label) ?? 1e9) - (rank.get(b.label) ?? 1e9));
    const layoutNodes: LayoutNode[] = ordered.map((n) => ({ id: n.id, ...nodeBox(n), partition: partitionOf(n) }));
    const layoutEdges: LayoutEdge[] = edges.map((e) => ({ id: e.id, from: e.from, to: e.to }));
    const result = await layout(layoutNodes, layoutEdges);
    return { result, boxes: new Map<string, Box>(layoutNodes.map((n) => [n.id, n])) };
  }

  private async render(doc: GraphDocument): Promise<void> {
    const generation = this.generation;
    let picked = this.pick(doc, this.activitiesPct, this.pathsPct);

    let positions: Map<string, { x: number; y: number }> | undefined;
    if (picked.structure !== this.structure) {
      let { result, boxes } = await this.layOut(doc, picked);
      // Untouched sliders: fewer activities until the map fits the window legibly (the next lower share that hides one more).
      while (this.autoSimplify && picked.nodes.length > 3 && this.fitZoomOf(result, boxes) < LEGIBLE_ZOOM) {
        let pct = this.activitiesPct;
        let next = picked;
        while (pct > 0 && next.nodes.length >= picked.nodes.length) next = this.pick(doc, --pct, this.pathsPct);
        if (next.nodes.length >= picked.nodes.length || next.nodes.length < 3) break;
        this.activitiesPct = pct;
        picked = next;
        ({ result, boxes } = await this.layOut(doc, picked));
        if (this.dirty || generation !== this.generation) return;
      }
      // A newer document or filter arrived meanwhile (or another project was opened): draw that instead.
      if (this.dirty || generation !== this.generation) return;
      // Live updates keep every node where the reader saw it; only a new node is placed (placement.ts).
      const previous = new Map<string, Point>();
      if (!this.fresh) this.cy.nodes('.doc').forEach((n) => void previous.set(n.id(), { ...n.position() }));
      const terminals = {
        start: picked.nodes.find((n) => n.kind === 'start')?.id,
        end: picked.nodes.find((n) => n.kind === 'end')?.id,
        edges: new Map(picked.edges.map((e) => [e.id, { from: e.from, to: e.to }])),
      };
      const placed = keepPlaces(previous, this.bends, new Set(this.cy.edges().map((e) => e.id())), result, boxes, terminals);
      this.fresh = false;
      positions = placed.positions;
      this.bends = placed.bends;
      this.structure = picked.structure;
    }
    const { vis, nodes, edges, stageOf } = picked;
    this.lastShown = vis;
    const open = openByNode(doc, this.live);

    const cy = this.cy;
    const animate = this.fitted;
    cy.batch(() => {
      const wantStages = new Set(nodes.map(stageOf).filter((s) => s !== ''));
      const wantNodes = new Set(vis.nodes);
      const wantEdges = new Set(vis.edges);
      cy.edges().forEach((e) => {
        if (!wantEdges.has(e.id())) e.remove();
      });
      cy.nodes('.doc').forEach((n) => {
        if (!wantNodes.has(n.id())) n.remove();
      });
      cy.nodes('.stage').forEach((s) => {
        if (!wantStages.has(s.id().slice(STAGE_PREFIX.length))) s.remove();
      });
      const added: ElementDefinition[] = [];
      for (const s of doc.stages) {
        if (!wantStages.has(s.id)) continue;
        const el = cy.getElementById(STAGE_PREFIX + s.id);
        const stageLabel = { name: labelText(s.name), full: oneLine(`stage: ${s.name}`) };
        if (el.nonempty()) el.data(stageLabel);
        else added.push({ group: 'nodes', data: { id: STAGE_PREFIX + s.id, ...stageLabel, lw: 120 }, classes: 'stage', selectable: true, grabbable: false });
      }
      for (const n of nodes) {
        const parent = stageOf(n) ? STAGE_PREFIX + stageOf(n) : undefined;
        const el = cy.getElementById(n.id);
        const position = positions?.get(n.id) ?? { x: 0, y: 0 };
        if (el.empty()) {
          const classes = `doc ${n.kind === 'activity' ? 'act' : `terminal ${n.kind}`}`;
          added.push({ group: 'nodes', data: { id: n.id, ...(parent ? { parent } : {}) }, classes, position: { ...position } });
        } else if ((el.data('parent') ?? undefined) !== parent) {
          el.move({ parent: parent ?? null });
        }
      }
      for (const e of edges) {
        if (cy.getElementById(e.id).empty()) added.push({ group: 'edges', data: { id: e.id, source: e.from, target: e.to, kind: e.kind } });
      }
      if (added.length) cy.add(added);
      for (const n of nodes) paintNode(this, cy.getElementById(n.id) as NodeSingular, n, doc, open);
      paintEdges(this, cy, edges, doc, open);
      if (positions) {
        for (const n of nodes) {
          const el = cy.getElementById(n.id) as NodeSingular;
          const to = positions.get(n.id);
          if (!to) continue;
          if (animate) el.animate({ position: to, duration: 400 });
          else el.position(to);
        }
      }
    });
    route(this.cy, this.bends, edges);
    fitStageLabels(this.cy);
    paintBadges(this, this.cy, nodes, open);
    this.drawnLive = this.live?.dataVersion;
    // A grown map is fitted again, unless the reader moved the view: then it stays where they left it.
    const refit = nodes.length > 0 && (!this.fitted || (positions !== undefined && !this.userMoved));
    if (positions && animate) {
      // Bends are relative to the endpoints: recompute them once the nodes have arrived, and fit where they arrived.
      setTimeout(() => {
        if (generation !== this.generation) return;
        route(this.cy, this.bends, edges);
        fitStageLabels(this.cy);
        if (refit && !this.userMoved) this.fit();
      }, 420);
    }
    this.applyHighlight();
    if (refit) {
      this.fit();
      this.fitted = true;
    }
    const pulse = this.pendingPulse.filter((id) => cy.getElementById(id).nonempty());
    this.pendingPulse = [];
    if (pulse.length) {
      cy.nodes().filter((n) => pulse.includes(n.id())).flashClass('pulse', 900);
      this.pulses++;
      this.lastPulse = pulse;
    }
    this.renderedVersion = doc.source.data_version;
    this.container.dataset.version = doc.source.data_version;
    this.container.dataset.view = this.view;
    this.container.dataset.metric = this.metric;
    this.options.onRendered(doc);
  }

  private applyHighlight(): void {
    const cy = this.cy;
    cy.batch(() => {
      cy.elements().removeClass('hl dim');
      const h = this.highlighted;
      if (!h) return;
      const nodes = new Set(h.nodes);
      const edges = new Set(h.edges);
      cy.nodes('.doc').forEach((n) => void n.addClass(nodes.has(n.id()) ? 'hl' : 'dim'));
      cy.edges().forEach((e) => void e.addClass(edges.has(e.id()) ? 'hl' : 'dim'));
    });
  }
}
