/** The map's legend: node and edge kinds, what width and colour say in the view on screen, and the open-case badges. */
import { EDGE_KINDS, type ProcessMap } from './map.js';
import { h } from './panels.js';

function svgLine(color: string, dash: string, width = 3): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('width', '34');
  svg.setAttribute('height', '10');
  const line = document.createElementNS(ns, 'line');
  line.setAttribute('x1', '1');
  line.setAttribute('y1', '5');
  line.setAttribute('x2', '33');
  line.setAttribute('y2', '5');
  line.setAttribute('stroke', color);
  line.setAttribute('stroke-width', String(width));
  if (dash) line.setAttribute('stroke-dasharray', dash);
  svg.append(line);
  return svg;
}

/** The legend of what the map draws now (its view, metric and badges). */
export function drawLegend(legend: HTMLElement, map: ProcessMap): void {
  const perf = map.view === 'performance';
  const dashes: Record<string, string> = { solid: '', dashed: '7 4', dotted: '2 4' };
  const items = Object.entries(EDGE_KINDS).map(([kind, k]) =>
    h('span', { class: 'item', 'data-kind': kind }, svgLine(perf ? '#6b7686' : k.color, kind === 'exception' ? '10 3 2 3' : kind === 'escalation' ? '14 4' : dashes[k.dash]!), k.label),
  );
  legend.replaceChildren(
    h('div', { class: 'legend-row' }, h('span', { class: 'item' }, h('span', { class: 'disc start' }), 'start'), h('span', { class: 'item' }, h('span', { class: 'disc end' }), 'end'), h('span', { class: 'item' }, h('span', { class: 'box repeat' }), 'some cases repeat it')),
    h('div', { class: 'legend-row' }, ...items),
    perf
      ? h('div', { class: 'legend-row' }, h('span', {}, `${map.metric === 'median' ? 'median' : 'slow (90th percentile)'} wait: short`), h('span', { class: 'ramp' }), h('span', {}, 'long · width = cases'))
      : h('div', { class: 'legend-row' }, h('span', {}, 'width and labels = cases; node shade = cases')),
    h(
      'div',
      { class: 'legend-row' },
      h('span', { class: 'item' }, h('span', { class: 'badge' }, map.waits ? 'n · waited / usual' : 'n open'), map.waits ? 'open cases here: median wait since the step / its usual wait (red: past it)' : 'cases open here now'),
      h('span', {}, 'edges into end: only cases not open there'),
    ),
  );
}
