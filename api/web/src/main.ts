/**
 * The page pcg serve answers at `/`: sign in with a tenant key, pick a
 * project, and watch its process map follow the graph stream.
 */
import './style.css';
import { ApiError, Client, saveSession, savedSession, type Project } from './api.js';
import { defaultSimplification, hiddenText, touchedNodes } from './filter.js';
import { ago, cases, events } from './format.js';
import { Live, type LiveState } from './live.js';
import { drawLegend } from './legend.js';
import { ProcessMap, type View, type WaitMetric } from './map.js';
import { projectOption } from './labels.js';
import { h, highlightOf, renderPanel, renderSelection, TABS, type Selection, type Tab } from './panels.js';
import { oneLine } from './text.js';
import type { GraphDocument } from './types.js';
import { UploadDialog, type UploadPhase } from './upload.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

let client: Client | undefined;
let projects: Project[] = [];
let projectId: string | undefined;
let live: Live | undefined;
let doc: GraphDocument | undefined;
let receivedAt = 0;
let selection: Selection | undefined;
let tab: Tab = 'overview';
/** Until the user moves a slider, each document opens where `pcg graph --format dot|html` opens it (defaultSimplification). */
let slidersMoved = false;

const mapEl = $<HTMLDivElement>('map');
const map = new ProcessMap(mapEl, {
  onSelect: (s) => select(s, 'map'),
  covered: () => {
    const box = mapEl.getBoundingClientRect();
    const tools = $('map-tools').getBoundingClientRect();
    const legend = $('legend').getBoundingClientRect();
    return { top: Math.max(0, tools.bottom - box.top), bottom: legend.height ? Math.max(0, box.bottom - legend.top) : 0 };
  },
  onRendered: (shown) => {
    // The map may have opened with fewer activities than the defaults, to fit legibly: the slider says so.
    if (map.autoSimplify && Number($<HTMLInputElement>('activities').value) !== map.activitiesPct) {
      $<HTMLInputElement>('activities').value = String(map.activitiesPct);
      $('activities-out').textContent = `${map.activitiesPct} %`;
    }
    $('map-hidden').textContent = map.lastShown ? hiddenText(map.lastShown) : '';
    $('map-empty').hidden = shown.nodes.some((n) => n.kind === 'activity');
    $('map-empty').textContent = 'No events in this project yet: upload a log, or send events to …/events.';
    updateIndicator();
  },
});

// ---- sign in ---------------------------------------------------------------

/** What went wrong, in one line: the service's messages may quote what was sent (controls shown, text.ts). */
function describe(error: unknown): string {
  return oneLine(describeRaw(error));
}

function describeRaw(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401) return `The key was not accepted: ${error.message}`;
    if (error.status === 403) return `This key has no access here: ${error.message}`;
    if (error.code === 'validation_failed') return `Check the tenant id (a GUID): ${error.message}`;
    return `${error.message} (${error.code})`;
  }
  return `The service could not be reached: ${String(error)}`;
}

async function signIn(tenantId: string, key: string, remember: boolean): Promise<void> {
  const c = new Client(tenantId, key);
  projects = await c.projects();
  client = c;
  saveSession(remember ? { tenantId, key } : undefined);
  $('signin').hidden = true;
  $('app').hidden = false;
  // Signed out, the map's container was hidden (no size): Cytoscape reads its size again, or a second sign-in draws on empty canvases.
  map.cy.resize();
  $('signout').title = oneLine(`signed in to tenant ${tenantId}`);
  fillProjects();
  const wanted = /project=([0-9a-fA-F-]{36})/.exec(location.hash)?.[1]?.toLowerCase();
  const first = projects.find((p) => p.id === wanted) ?? projects.find((p) => p.dataVersion > 0) ?? projects[0];
  if (first) openProject(first.id);
  else {
    $('map-empty').hidden = false;
    $('map-empty').textContent = 'This key sees no project yet: upload a log into a new one.';
  }
}

function signOut(): void {
  live?.stop();
  live = undefined;
  client = undefined;
  projects = [];
  projectId = undefined;
  doc = undefined;
  selection = undefined;
  saveSession(undefined);
  map.reset();
  $<HTMLInputElement>('key').value = '';
  $('app').hidden = true;
  $('signin').hidden = false;
  history.replaceState(null, '', location.pathname);
}

$<HTMLFormElement>('signin-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const tenantId = $<HTMLInputElement>('tenant').value.trim().toLowerCase();
  const key = $<HTMLInputElement>('key').value.trim();
  const error = $('signin-error');
  error.textContent = '';
  const button = $<HTMLButtonElement>('signin-button');
  button.disabled = true;
  signIn(tenantId, key, $<HTMLInputElement>('remember').checked)
    .catch((err: unknown) => (error.textContent = describe(err)))
    .finally(() => (button.disabled = false));
});
$('signout').addEventListener('click', signOut);

// ---- projects and the live stream ---------------------------------------------

function fillProjects(): void {
  const select = $<HTMLSelectElement>('project');
  select.replaceChildren(...projects.map((p) => projectOption(p, p.id === projectId)));
}

async function refreshProjects(): Promise<void> {
  if (!client) return;
  projects = await client.projects();
  fillProjects();
}

$<HTMLSelectElement>('project').addEventListener('change', (e) => openProject((e.target as HTMLSelectElement).value));

function openProject(id: string): void {
  if (!client) return;
  live?.stop();
  map.reset();
  doc = undefined;
  selection = undefined;
  slidersMoved = false;
  projectId = id;
  fillProjects();
  history.replaceState(null, '', `#project=${id}`);
  $('map-empty').hidden = false;
  $('map-empty').textContent = 'Waiting for the first version of the graph…';
  renderPanels();
  live = new Live(client, id, {
    document: (next) => {
      if (projectId !== id) return;
      const before = doc;
      if (before && before.source.data_version === next.source.data_version) return;
      doc = next;
      receivedAt = Date.now();
      if (!slidersMoved) {
        map.autoSimplify = true;
        setSliders(defaultSimplification(next));
      }
      map.show(next, touchedNodes(before, next));
      if (before) {
        flash();
        renderPanelsSoon();
      } else renderPanels();
    },
    openCases: (state) => {
      if (projectId === id) map.setLive(state);
    },
    state: (state: LiveState, message?: string) => {
      $('live').dataset.state = state;
      liveMessage = message;
      updateIndicator();
    },
  });
}

let liveMessage: string | undefined;

/** The indicator blinks once per new version (restarting the CSS animation). */
function flash(): void {
  const el = $('live');
  el.classList.remove('flash');
  void el.offsetWidth;
  el.classList.add('flash');
}

/** The version on the map and how long ago it arrived. */
function updateIndicator(): void {
  const el = $('live');
  const state = el.dataset.state ?? 'connecting';
  const version = map.renderedVersion;
  if (version !== undefined) el.dataset.version = version;
  else delete el.dataset.version;
  const text = $('live-text');
  if (state === 'stopped') text.textContent = `stopped: ${oneLine(liveMessage ?? 'the stream ended')}`;
  else if (version === undefined) text.textContent = state === 'reconnecting' ? 'reconnecting…' : 'connecting…';
  else text.textContent = `v${version} · ${ago(Date.now() - receivedAt)}${state === 'reconnecting' ? ' · reconnecting…' : ''}`;
  const newest = doc?.source.period_end;
  el.title =
    version === undefined
      ? 'following the project’s graph stream'
      : `data version ${version}, received ${new Date(receivedAt).toLocaleTimeString()}; ${events(doc?.source.events ?? 0)} of ${cases(doc?.source.cases ?? 0)}; newest event ${newest || '—'}`;
}
setInterval(updateIndicator, 1000);

// ---- map controls ------------------------------------------------------------------

function setView(view: View): void {
  map.setView(view);
  $('view-frequency').classList.toggle('on', view === 'frequency');
  $('view-performance').classList.toggle('on', view === 'performance');
  $('view-frequency').setAttribute('aria-pressed', String(view === 'frequency'));
  $('view-performance').setAttribute('aria-pressed', String(view === 'performance'));
  $<HTMLSelectElement>('metric').hidden = view !== 'performance';
  renderLegend();
}
$('view-frequency').addEventListener('click', () => setView('frequency'));
$('view-performance').addEventListener('click', () => setView('performance'));
$<HTMLSelectElement>('metric').addEventListener('change', (e) => {
  map.setMetric((e.target as HTMLSelectElement).value as WaitMetric);
  renderLegend();
});
$('fit').addEventListener('click', () => map.fitByReader());
$('relayout').addEventListener('click', () => map.relayout());
$<HTMLInputElement>('open-waits').addEventListener('change', (e) => {
  map.setWaits((e.target as HTMLInputElement).checked);
  renderLegend();
});
$('toggle-panels').addEventListener('click', () => {
  const hidden = document.body.classList.toggle('panels-hidden');
  $('toggle-panels').setAttribute('aria-pressed', String(!hidden));
  map.cy.resize();
  // Sliders untouched: the map opens again to what fits the new width legibly (more activities with the panels hidden).
  if (!slidersMoved && doc) {
    setSliders(defaultSimplification(doc));
    map.relayout();
  }
});

const sliders = () => [Number($<HTMLInputElement>('activities').value), Number($<HTMLInputElement>('paths').value)] as const;
function setSliders(view: { activities: number; paths: number }): void {
  $<HTMLInputElement>('activities').value = String(view.activities);
  $<HTMLInputElement>('paths').value = String(view.paths);
  const [a, p] = sliders();
  $('activities-out').textContent = `${a} %`;
  $('paths-out').textContent = `${p} %`;
  if (a !== map.activitiesPct || p !== map.pathsPct) map.setFilter(a, p);
}
for (const id of ['activities', 'paths']) {
  $<HTMLInputElement>(id).addEventListener('input', () => {
    slidersMoved = true;
    map.autoSimplify = false;
    const [a, p] = sliders();
    setSliders({ activities: a, paths: p });
  });
}

function renderLegend(): void {
  drawLegend($('legend'), map);
}

// ---- panels and selection ------------------------------------------------------------

function renderTabs(): void {
  $('tabs').replaceChildren(
    ...TABS.map(([id, label]) => {
      const count = doc ? countOf(id, doc) : undefined;
      return h(
        'button',
        { type: 'button', class: id === tab ? 'tab on' : 'tab', 'data-tab': id, onclick: () => ((tab = id), renderPanels()) },
        label,
        count !== undefined ? h('span', { class: 'count' }, String(count)) : null,
      );
    }),
  );
}

function countOf(id: Tab, d: GraphDocument): number | undefined {
  const lists: Partial<Record<Tab, unknown[]>> = {
    variants: d.variants,
    decisions: d.decisions,
    rules: d.sequence_rules,
    policies: d.policies,
    exceptions: d.exceptions,
    escalations: d.escalations,
    roles: d.roles,
    outcomes: d.outcomes,
    stages: d.stages,
  };
  return lists[id]?.length;
}

const panelContext = () => ({ select: (s: Selection) => select(s, 'panel'), selected: selection, download, openRaw });

// Live versions may come several times a second: the panels are redrawn at most once a
// second, and never under a press or a text selection in them (a click must land).
let panelTimer: ReturnType<typeof setTimeout> | undefined;
let panelsDrawnAt = 0;
let pressed = false;
let panelsWaiting = false;
const asideEl = document.querySelector('aside')!;
asideEl.addEventListener('pointerdown', () => (pressed = true));
window.addEventListener('pointerup', () => {
  pressed = false;
  if (panelsWaiting) renderPanelsSoon();
});

function selectingText(): boolean {
  const s = window.getSelection();
  return !!s && !s.isCollapsed && s.rangeCount > 0 && asideEl.contains(s.getRangeAt(0).commonAncestorContainer);
}

function renderPanelsSoon(): void {
  panelsWaiting = true;
  if (panelTimer !== undefined) return;
  panelTimer = setTimeout(
    () => {
      panelTimer = undefined;
      if (pressed) return;
      if (selectingText()) return void setTimeout(renderPanelsSoon, 1000);
      renderPanels();
    },
    Math.max(0, 1000 - (Date.now() - panelsDrawnAt)),
  );
}

function renderPanels(): void {
  panelsWaiting = false;
  panelsDrawnAt = Date.now();
  renderTabs();
  const panel = $('panel');
  const scroll = panel.scrollTop;
  if (!doc) panel.replaceChildren(h('p', { class: 'none' }, projectId ? 'Waiting for the graph…' : 'No project open.'));
  else panel.replaceChildren(renderPanel(tab, doc, panelContext()));
  panel.scrollTop = scroll;
  renderEvidence();
}

function renderEvidence(): void {
  $('evidence').replaceChildren(doc ? renderSelection(doc, selection) : h('p', { class: 'none' }, ''));
}

function select(s: Selection | undefined, from: 'map' | 'panel'): void {
  selection = s;
  if (from === 'panel') map.select(s && (s.type === 'node' || s.type === 'edge') ? s.id : undefined);
  map.highlight(doc && s && s.type !== 'node' && s.type !== 'edge' ? highlightOf(doc, s) : undefined);
  for (const row of document.querySelectorAll<HTMLElement>('#panel .row')) row.classList.toggle('active', !!s && row.dataset.type === s.type && row.dataset.id === s.id);
  renderEvidence();
}

// ---- the raw document ----------------------------------------------------------------

function documentBlob(): Blob | undefined {
  return doc && new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' });
}

function download(): void {
  const blob = documentBlob();
  if (!blob || !doc) return;
  const name = (projects.find((p) => p.id === projectId)?.name ?? 'project').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-|-$/g, '');
  const a = h('a', { href: URL.createObjectURL(blob), download: `pcg-${name || 'project'}-v${doc.source.data_version}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
}

function openRaw(): void {
  const blob = documentBlob();
  if (!blob) return;
  const url = URL.createObjectURL(blob);
  window.open(url, '_blank', 'noopener');
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

$('open-document').addEventListener('click', () => {
  tab = 'document';
  renderPanels();
});

// ---- upload ---------------------------------------------------------------------------

const upload = new UploadDialog({
  client: () => client,
  projects: () => projects,
  currentProject: () => projectId,
  finished: async (project, open) => {
    await refreshProjects();
    if (open || !projectId) openProject(project.id);
  },
});

// ---- test hook -------------------------------------------------------------------------

/** What the browser test reads: the drawn graph, the version on screen and what the reader did. */
export interface PcgHook {
  drawn(): { nodes: string[]; edges: string[] };
  version(): string | undefined;
  view(): View;
  pulses(): number;
  lastPulse(): string[];
  viewport(): { zoom: number; pan: { x: number; y: number } };
  setViewport(zoom: number, pan: { x: number; y: number }): void;
  /** Page coordinates of a drawn element's centre (to click it). */
  position(id: string): { x: number; y: number } | undefined;
  /** Page rectangles of the drawn document nodes, by id. */
  nodeBoxes(): Record<string, { x: number; y: number; w: number; h: number }>;
  selection(): Selection | undefined;
  selectedOnMap(): string[];
  highlighted(): { nodes: string[]; edges: string[] };
  edgeColors(): Record<string, string>;
  uploadPhases(): UploadPhase[];
  /** The text drawn on each node and stage band and its hover text, by element id. */
  labels(): Record<string, { text: string; full: string }>;
  /** The open cases drawn on each node's badge, by node id. */
  openCounts(): Record<string, number>;
  /** The data version of the live state the badges show. */
  liveVersion(): number | undefined;
  /** Each drawn document node's centre in map coordinates, by id. */
  positions(): Record<string, { x: number; y: number }>;
  gliding(): boolean;
  /** Whether the reader moved the view (the map is then not re-fitted as it grows). */
  userMoved(): boolean;
  /** Every label drawn on a document node or a shown edge: its page rectangle and its font size on screen in CSS px. */
  labelBoxes(): { id: string; kind: 'node' | 'edge'; font: number; x: number; y: number; w: number; h: number }[];
}

declare global {
  interface Window {
    __pcg: PcgHook;
  }
}

window.__pcg = {
  drawn: () => map.drawn(),
  version: () => map.renderedVersion,
  view: () => map.view,
  pulses: () => map.pulses,
  lastPulse: () => [...map.lastPulse],
  viewport: () => ({ zoom: map.cy.zoom(), pan: { ...map.cy.pan() } }),
  setViewport: (zoom, pan) => void map.cy.viewport({ zoom, pan }),
  position: (id) => {
    const node = map.cy.nodes().getElementById(id);
    const edge = map.cy.edges().getElementById(id);
    if (node.empty() && edge.empty()) return undefined;
    const p = node.nonempty() ? node.renderedPosition() : edge.renderedMidpoint();
    const r = mapEl.getBoundingClientRect();
    return { x: r.left + p.x, y: r.top + p.y };
  },
  nodeBoxes: () => {
    const r = mapEl.getBoundingClientRect();
    return Object.fromEntries(
      map.cy.nodes('.doc').map((n) => {
        const b = n.renderedBoundingBox({ includeLabels: true });
        return [n.id(), { x: r.left + b.x1, y: r.top + b.y1, w: b.w, h: b.h }];
      }),
    );
  },
  selection: () => selection && { ...selection },
  selectedOnMap: () => map.cy.$(':selected').map((e) => e.id()),
  highlighted: () => ({ nodes: map.cy.nodes('.hl').map((n) => n.id()), edges: map.cy.edges('.hl').map((e) => e.id()) }),
  edgeColors: () => Object.fromEntries(map.cy.edges().map((e) => [e.id(), String(e.style('line-color'))])),
  uploadPhases: () => [...upload.phases],
  labels: () => map.labels(),
  openCounts: () => map.openCounts(),
  liveVersion: () => map.liveVersion,
  positions: () => Object.fromEntries(map.cy.nodes('.doc').map((n) => [n.id(), { ...n.position() }])),
  /** Whether a node is gliding to a new place (a test reads places once none is). */
  gliding: () => map.cy.nodes(':animated').length > 0,
  userMoved: () => map.userMoved,
  labelBoxes: () => {
    const r = mapEl.getBoundingClientRect();
    const zoom = map.cy.zoom();
    return map.cy
      .elements('node.doc, edge')
      .filter((el) => el.visible() && String(el.data('text') ?? '') !== '')
      .map((el) => {
        // An edge's box without its line: the label alone.
        const b = el.renderedBoundingBox({ includeLabels: true, includeOverlays: false, ...(el.isEdge() ? { includeEdges: false } : {}) });
        return { id: el.id(), kind: el.isNode() ? ('node' as const) : ('edge' as const), font: parseFloat(String(el.style('font-size'))) * zoom, x: r.left + b.x1, y: r.top + b.y1, w: b.w, h: b.h };
      });
  },
};

// ---- start ------------------------------------------------------------------------------

setView('frequency');
renderTabs();
const saved = savedSession();
if (saved) {
  $<HTMLInputElement>('tenant').value = saved.tenantId;
  signIn(saved.tenantId, saved.key, true).catch((err: unknown) => {
    saveSession(undefined);
    $('signin-error').textContent = describe(err);
  });
}
