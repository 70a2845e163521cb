/**
 * The graph document as one self-contained HTML page: the process map as
 * inline SVG (laid out by layout.ts) followed by the report's sections. No
 * script, style sheet, font or image is fetched from anywhere: the file opens
 * offline, and names no other host.
 *
 * Data only ever enters as escaped text (escapeHtml, which also shows control
 * characters escaped, safe-text.ts, and a line break as \n), in element
 * content or double-quoted attributes; never as a tag, an attribute name, a
 * URL or a style. The page
 * carries its own Content-Security-Policy too: only its inline script (by
 * hash) and inline style run, nothing is fetched.
 */
import { createHash } from 'node:crypto';
import type { EdgeKind, GraphDocument } from '../document/types.js';
import { stagePalette } from './dot.js';
import { casesText, eventsText, hours, pct } from './format.js';
import { layoutDocument } from './layout.js';
import { buildReport, nodeSummary, type Block } from './report.js';
import { oneLine, visibleText } from './safe-text.js';
import { hiddenText, simplified, simplify, type Simplification } from './simplify.js';

const entities = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Text for HTML content or a quoted attribute: on one line with every control shown escaped (a line break as \n, as in the other formats), then the five significant characters as entities. */
export function escapeHtml(text: string): string {
  return entities(oneLine(text));
}

/** Text for a <pre> block: tab and line breaks kept, every other control shown escaped, the significant characters as entities. */
function escapeHtmlLines(text: string): string {
  return entities(visibleText(text));
}

const edgeColour: Record<EdgeKind, string> = {
  normal: '#3b4a63',
  allowed: '#8a96a8',
  rework: '#d97706',
  skip: '#2563eb',
  exception: '#c62828',
  escalation: '#7c3aed',
};
const edgeDash: Record<EdgeKind, string> = { normal: '', allowed: '', rework: '7 4', skip: '2 4', exception: '7 4', escalation: '' };
const edgeMeaning: Record<EdgeKind, string> = {
  normal: 'normal: most cases, or along the backbone',
  allowed: 'allowed: a variation of the process',
  rework: 'rework: back to an earlier step',
  skip: 'skip: jumps over a required step',
  exception: 'exception: rare or into a failure',
  escalation: 'escalation: mainly after a long wait',
};

/** Splits a label into at most two lines of about `width` characters, cutting the rest with an ellipsis. */
function wrap(label: string, width = 22): string[] {
  const words = label.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    if (!line) line = w;
    else if (line.length + 1 + w.length <= width) line += ` ${w}`;
    else {
      lines.push(line);
      line = w;
    }
  }
  if (line) lines.push(line);
  const out = lines.slice(0, 2).map((l) => (l.length > width + 2 ? `${l.slice(0, width)}…` : l));
  if (lines.length > 2) out[1] = `${out[1]!.slice(0, width)}…`;
  return out.length ? out : [label];
}

export function renderSvg(doc: GraphDocument): string {
  const layout = layoutDocument(doc);
  const stageIndex = new Map(doc.stages.map((s, i) => [s.id, i]));
  const stageName = new Map(doc.stages.map((s) => [s.id, s.name]));
  const labels = new Map(doc.nodes.map((n) => [n.id, n.label]));
  const most = Math.max(1, ...doc.edges.map((e) => e.cases));
  const [vx, vy, vw, vh] = layout.viewBox;
  const out: string[] = [];
  out.push(`<svg class="process-map" data-cases="${doc.source.cases}" viewBox="${vx} ${vy} ${vw} ${vh}" width="${vw}" height="${vh}" role="img" aria-label="process map: ${doc.nodes.length} nodes, ${doc.edges.length} edges">`);
  out.push('<defs>');
  for (const kind of Object.keys(edgeColour) as EdgeKind[]) {
    out.push(`<marker id="arrow-${kind}" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="${edgeColour[kind]}"/></marker>`);
  }
  out.push('</defs>');
  out.push('<g class="edges">');
  for (const pe of layout.edges) {
    const e = pe.edge;
    const from = labels.get(e.from) ?? e.from;
    const to = labels.get(e.to) ?? e.to;
    const width = Math.round((1 + (5 * e.cases) / most) * 100) / 100;
    const dash = edgeDash[e.kind] ? ` stroke-dasharray="${edgeDash[e.kind]}"` : '';
    const tip =
      `${from} → ${to} (${e.kind}): ${casesText(e.cases)}, ${pct(e.share_of_from)} of the cases leaving ${from}` +
      (e.median_wait_hours || e.slow_wait_hours ? `; wait median ${hours(e.median_wait_hours)}, 90th percentile ${hours(e.slow_wait_hours)}` : '');
    out.push(
      `<g class="edge ${e.kind}" data-id="${escapeHtml(e.id)}" data-from="${escapeHtml(e.from)}" data-to="${escapeHtml(e.to)}" data-cases="${e.cases}"><title>${escapeHtml(tip)}</title>` +
        `<path d="${pe.d}" fill="none" stroke="${edgeColour[e.kind]}" stroke-width="${width}"${dash} marker-end="url(#arrow-${e.kind})"/>` +
        `<text class="edge-label" x="${pe.labelX}" y="${pe.labelY}" fill="${edgeColour[e.kind]}">${e.cases}</text></g>`,
    );
  }
  out.push('</g>');
  out.push('<g class="nodes">');
  for (const pn of layout.nodes) {
    const n = pn.node;
    const tip =
      n.kind === 'activity'
        ? `${n.label}: ${casesText(n.cases)}, ${eventsText(n.events)}, ${n.cases_repeating} repeating, median ${hours(n.median_hours_to_next)} to the next step${stageName.has(n.stage) ? `; stage ${stageName.get(n.stage)}` : ''}`
        : `${n.label}: ${casesText(n.cases)}`;
    const head = `<g class="node ${n.kind}" data-id="${escapeHtml(n.id)}" data-cases="${n.cases}" transform="translate(${pn.x} ${pn.y})"><title>${escapeHtml(tip)}</title>`;
    if (n.kind === 'activity') {
      const fill = stagePalette[(stageIndex.get(n.stage) ?? -1) >= 0 ? stageIndex.get(n.stage)! % stagePalette.length : 0];
      const lines = wrap(oneLine(n.label)).map(entities);
      const top = lines.length === 1 ? -4 : -12;
      const text = lines.map((l, i) => `<tspan x="0" y="${top + i * 14}">${l}</tspan>`).join('');
      out.push(
        `${head}<rect x="${-pn.w / 2}" y="${-pn.h / 2}" width="${pn.w}" height="${pn.h}" rx="8" fill="${fill}"/>` +
          `<text class="name">${text}</text><text class="count" y="${pn.h / 2 - 7}">${escapeHtml(casesText(n.cases))}</text></g>`,
      );
    } else {
      out.push(`${head}<circle r="${pn.w / 2}"/><text class="name" y="4">${escapeHtml(n.label)}</text></g>`);
    }
  }
  out.push('</g>');
  out.push('</svg>');
  return out.join('\n');
}

function blockHtml(b: Block): string {
  switch (b.kind) {
    case 'p':
      return `<p>${escapeHtml(b.text)}</p>`;
    case 'h3':
      return `<h3>${escapeHtml(b.text)}</h3>`;
    case 'list': {
      const tag = b.ordered ? 'ol' : 'ul';
      return `<${tag}>${b.items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</${tag}>`;
    }
    case 'table': {
      const cls = (i: number) => (b.numeric?.[i] ? ' class="num"' : '');
      const head = b.head.map((h, i) => `<th${cls(i)}>${escapeHtml(h)}</th>`).join('');
      const rows = b.rows.map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${escapeHtml(c)}</td>`).join('')}</tr>`).join('\n');
      return `<table><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table>`;
    }
    case 'code':
      return `<pre><code>${escapeHtmlLines(b.text)}</code></pre>`;
  }
}

const style = `
:root { color-scheme: light; --ink: #1f2937; --muted: #5b6475; --line: #d6dbe4; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: var(--ink); margin: 0 auto; max-width: 1200px; padding: 0 24px 48px; }
h1 { margin: 24px 0 4px; } h2 { margin-top: 36px; border-bottom: 1px solid var(--line); padding-bottom: 4px; } h3 { margin-bottom: 6px; }
.lead { color: var(--muted); }
nav { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 14px; } nav a { color: #2451a6; text-decoration: none; }
.map { overflow: auto; border: 1px solid var(--line); border-radius: 8px; background: #fcfdff; max-height: 80vh; }
.map.fit svg { width: 100%; height: auto; }
.map .process-map.whole-map, .map.whole .process-map.simple-map { display: none; } .map.whole .process-map.whole-map { display: block; }
.hidden-share { color: var(--muted); }
.process-map text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; text-anchor: middle; }
.process-map .node rect { stroke: #3b4a63; stroke-width: 1; }
.process-map .node .count { fill: var(--muted); font-size: 11px; }
.process-map .node.start circle { fill: #2e7d32; } .process-map .node.end circle { fill: #c62828; }
.process-map .node.start text, .process-map .node.end text { fill: #fff; font-weight: 600; }
.process-map .edge-label { font-size: 10px; paint-order: stroke; stroke: #fcfdff; stroke-width: 3px; }
.process-map .node { cursor: pointer; }
.process-map.focused .edge:not(.near), .process-map.focused .node:not(.near) { opacity: 0.15; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; list-style: none; padding: 0; font-size: 13px; color: var(--muted); }
.legend .swatch { display: inline-block; width: 26px; height: 0; border-top: 3px solid; vertical-align: middle; margin-right: 6px; }
.legend .box { display: inline-block; width: 14px; height: 14px; border: 1px solid #3b4a63; border-radius: 3px; vertical-align: middle; margin-right: 6px; }
button { font: inherit; font-size: 13px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 14px; } th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #f3f5f9; } .num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f3f5f9; padding: 10px; border-radius: 6px; overflow: auto; white-space: pre-wrap; }
footer { margin-top: 40px; color: var(--muted); font-size: 13px; }
`;

/** Clicking a node fades what does not touch it; one button fits the map to the page width, the other swaps the simplified map for the whole one. Inline, no requests. */
const script = `
(() => {
  const box = document.querySelector('.map');
  document.querySelector('#fit').addEventListener('click', () => box.classList.toggle('fit'));
  // A map a little wider than the page opens fitted when its 12 px labels stay at 10 px or more; a wider one opens at full size.
  const readable = () => {
    const svg = box.querySelector(box.classList.contains('whole') ? '.whole-map' : '.simple-map') || box.querySelector('.process-map');
    const width = Number(svg.getAttribute('width')) || 1;
    box.classList.toggle('fit', box.clientWidth < width && box.clientWidth / width >= 10 / 12);
  };
  readable();
  const whole = document.querySelector('#whole');
  if (whole) whole.addEventListener('click', () => {
    const on = box.classList.toggle('whole');
    whole.setAttribute('aria-pressed', String(on));
    whole.textContent = on ? 'Show the simplified map' : 'Show the whole map';
    readable();
  });
  document.querySelectorAll('.process-map').forEach((svg) => {
    let focus = null;
    svg.addEventListener('click', (ev) => {
      const node = ev.target.closest('.node');
      svg.querySelectorAll('.near').forEach((x) => x.classList.remove('near'));
      if (!node || node.dataset.id === focus) { focus = null; svg.classList.remove('focused'); return; }
      focus = node.dataset.id;
      svg.classList.add('focused');
      node.classList.add('near');
      svg.querySelectorAll('.edge').forEach((e) => {
        if (e.dataset.from !== focus && e.dataset.to !== focus) return;
        e.classList.add('near');
        const other = e.dataset.from === focus ? e.dataset.to : e.dataset.from;
        svg.querySelectorAll('.node').forEach((n) => { if (n.dataset.id === other) n.classList.add('near'); });
      });
    });
  });
})();
`;

/** The page's policy: nothing loads from anywhere; the one inline script runs by its hash, the inline style is allowed. */
const csp = [
  "default-src 'none'",
  `script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'`,
  "style-src 'unsafe-inline'",
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * The page; with `view`, the map opens simplified by the rule every picture
 * uses (simplify.ts), the hidden share said under it, and a button swaps in
 * the whole map (both are drawn: the page runs no layout of its own).
 */
export function renderHtml(doc: GraphDocument, view?: Simplification): string {
  const report = buildReport(doc);
  const kept = view ? simplify(doc, view) : undefined;
  const hidden = kept ? hiddenText(kept) : '';
  const maps = hidden
    ? `${renderSvg(simplified(doc, kept!)).replace('<svg class="process-map"', '<svg class="process-map simple-map"')}\n${renderSvg(doc).replace('<svg class="process-map"', '<svg class="process-map whole-map"')}`
    : renderSvg(doc);
  const caption = hidden
    ? ` <span class="hidden-share">Simplified (activities ${view!.activities}%, paths ${view!.paths}%): ${escapeHtml(hidden)}</span> <button id="whole" type="button" aria-pressed="false">Show the whole map</button>`
    : '';
  const kinds = [...new Set(doc.edges.map((e) => e.kind))];
  const legend = [
    ...kinds.map((k) => `<li><span class="swatch" style="border-top-color:${edgeColour[k]};${edgeDash[k] ? 'border-top-style:dashed;' : ''}"></span>${escapeHtml(edgeMeaning[k])}</li>`),
    ...doc.stages.map((s, i) => `<li><span class="box" style="background:${stagePalette[i % stagePalette.length]}"></span>${escapeHtml(s.name)}</li>`),
  ];
  const body: string[] = [
    `<header><h1>${escapeHtml(report.title)}</h1><p class="lead">${escapeHtml(report.lead)}</p></header>`,
    `<nav><a href="#map">Map</a>${report.sections.map((s) => `<a href="#${s.id}">${escapeHtml(s.title)}</a>`).join('')}</nav>`,
    `<section id="map"><h2>Map</h2><p>${escapeHtml(nodeSummary(doc))}. Edge labels and widths are cases; click a step to see its hand-offs.${caption} <button id="fit" type="button">Fit to width</button></p>`,
    `<div class="map">${maps}</div>`,
    `<ul class="legend">${legend.join('')}</ul></section>`,
  ];
  for (const s of report.sections) body.push(`<section id="${s.id}"><h2>${escapeHtml(s.title)}</h2>\n${s.blocks.map(blockHtml).join('\n')}\n</section>`);
  body.push(`<footer>${escapeHtml(`${doc.schema} ${doc.schema_version}, data version ${doc.source.data_version}. Made by pcg.`)}</footer>`);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    `<title>${escapeHtml(`${report.title}: ${casesText(doc.source.cases)}`)}</title>`,
    `<style>${style}</style>`,
    '</head>',
    '<body>',
    ...body,
    `<script>${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
