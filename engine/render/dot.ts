/**
 * The graph document as a Graphviz DOT digraph: one node per document node,
 * one edge per document edge, ranked left to right. Nodes carry their label
 * and cases, edges their cases; an edge's kind is its style (and its `class`),
 * start and end are marked, and nodes are filled by stage (the stages are not
 * clusters: on dense logs clusters make Graphviz's ranking fail, "trouble in
 * init_rank"). Render it with `dot -Tsvg map.dot -o map.svg`.
 *
 * Data is only ever written inside double-quoted strings, with its control
 * characters shown escaped (safe-text.ts), or in a `//` comment as one line;
 * a node's label is cut at LABEL_MAX characters (its tooltip has the whole
 * name), so a 1 KB name does not stretch across the map.
 */
import type { EdgeKind, GraphDocument } from '../document/types.js';
import { casesText, eventsText, hours, pct } from './format.js';
import { clip, oneLine } from './safe-text.js';
import { hiddenText, simplified, simplify, type Simplification } from './simplify.js';

/**
 * A DOT double-quoted string: the text on one line with its controls shown
 * escaped, then backslashes and quotes escaped; `lines` are joined by DOT's
 * own line break `\n` (the only escape the text itself gets to use).
 */
export function dotString(...lines: string[]): string {
  return `"${lines.map((l) => oneLine(l).replace(/\\/g, '\\\\').replace(/"/g, '\\"')).join('\\n')}"`;
}

/** The look of each edge kind, in DOT attributes (rework does not pull ranks backwards). */
export const dotEdgeStyle: Record<EdgeKind, Record<string, string>> = {
  normal: { style: 'solid', color: '"#3b4a63"' },
  allowed: { style: 'solid', color: '"#8a96a8"' },
  rework: { style: 'dashed', color: '"#d97706"', fontcolor: '"#d97706"', constraint: 'false' },
  skip: { style: 'dotted', color: '"#2563eb"', fontcolor: '"#2563eb"' },
  exception: { style: 'dashed', color: '"#c62828"', fontcolor: '"#c62828"' },
  escalation: { style: 'bold', color: '"#7c3aed"', fontcolor: '"#7c3aed"' },
};

/** Fills of the stages, in stage order (the HTML page's too). */
export const stagePalette = ['#e3ecfa', '#e5f4e8', '#fbeedd', '#f1e6f8', '#e0f2f4', '#f9e3e6'];

const attrs = (a: Record<string, string>) =>
  `[${Object.entries(a)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')}]`;

/**
 * The map; with `view`, simplified by the rule every picture uses
 * (simplify.ts), the hidden share said in the title and a comment. Without
 * it, every node and edge of the document.
 */
export function renderDot(whole: GraphDocument, view?: Simplification): string {
  const kept = view ? simplify(whole, view) : undefined;
  const doc = kept ? simplified(whole, kept) : whole;
  const hidden = kept ? hiddenText(kept) : '';
  const s = doc.source;
  const lines: string[] = [
    `// Process map of a process context graph document: ${casesText(s.cases)}, ${eventsText(s.events)}, data version ${s.data_version}.`,
    '// Render with: dot -Tsvg map.dot -o map.svg',
    ...(view ? [`// Simplified: activities ${view.activities}%, paths ${view.paths}% (pcg graph --activities 100 --paths 100 draws every node and edge). ${hidden}`] : []),
    'digraph process {',
    `  graph ${attrs({ rankdir: 'LR', fontname: '"Helvetica"', fontsize: '12', nodesep: '0.35', ranksep: '0.6', labelloc: 't', label: dotString(`${casesText(s.cases)}, ${s.period_start} to ${s.period_end}`, ...(hidden ? [hidden] : [])) })};`,
    // A comment ends at a line break only, and oneLine leaves none (nor a \r or a separator) in the name.
    ...doc.stages.map((st, i) => `  // stage ${i + 1} (${stagePalette[i % stagePalette.length]}): ${oneLine(st.name)}`),
    `  node ${attrs({ shape: 'box', style: '"rounded,filled"', fillcolor: '"#eef3fb"', color: '"#3b4a63"', fontname: '"Helvetica"', fontsize: '11' })};`,
    `  edge ${attrs({ fontname: '"Helvetica"', fontsize: '9', arrowsize: '0.7' })};`,
  ];
  const stageIndex = new Map(doc.stages.map((st, i) => [st.id, i]));
  const stageName = new Map(doc.stages.map((st) => [st.id, st.name]));
  const nodeLine = (n: GraphDocument['nodes'][number], indent: string) => {
    const stage = stageIndex.get(n.stage);
    const base: Record<string, string> = {
      label: dotString(clip(n.label), n.kind === 'activity' ? casesText(n.cases) : String(n.cases)),
      class: dotString(n.kind),
      tooltip: dotString(
        n.kind === 'activity'
          ? `${n.label}: ${casesText(n.cases)}, ${eventsText(n.events)}, ${n.cases_repeating} repeating, median ${hours(n.median_hours_to_next)} to the next step` +
              (stage !== undefined ? `; stage ${stageName.get(n.stage)}` : '')
          : `${n.label}: ${casesText(n.cases)}`,
      ),
      ...(stage !== undefined ? { fillcolor: dotString(stagePalette[stage % stagePalette.length]!) } : {}),
    };
    if (n.kind === 'start') Object.assign(base, { shape: 'circle', style: 'filled', fillcolor: '"#2e7d32"', fontcolor: 'white', color: '"#2e7d32"' });
    if (n.kind === 'end') Object.assign(base, { shape: 'doublecircle', style: 'filled', fillcolor: '"#c62828"', fontcolor: 'white', color: '"#c62828"' });
    return `${indent}${dotString(n.id)} ${attrs(base)};`;
  };

  for (const n of doc.nodes) lines.push(nodeLine(n, '  '));
  const starts = doc.nodes.filter((n) => n.kind === 'start');
  const ends = doc.nodes.filter((n) => n.kind === 'end');
  if (starts.length) lines.push(`  { rank=source; ${starts.map((n) => `${dotString(n.id)};`).join(' ')} }`);
  if (ends.length) lines.push(`  { rank=sink; ${ends.map((n) => `${dotString(n.id)};`).join(' ')} }`);

  const most = Math.max(1, ...doc.edges.map((e) => e.cases));
  const labels = new Map(doc.nodes.map((n) => [n.id, n.label]));
  for (const e of doc.edges) {
    const a: Record<string, string> = {
      label: dotString(String(e.cases)),
      class: dotString(e.kind),
      penwidth: String(Math.round((1 + (4 * e.cases) / most) * 100) / 100),
      ...dotEdgeStyle[e.kind],
      tooltip: dotString(
        `${labels.get(e.from) ?? e.from} → ${labels.get(e.to) ?? e.to} (${e.kind}): ${casesText(e.cases)}, ${pct(e.share_of_from)} of the cases leaving ${labels.get(e.from) ?? e.from}` +
          (e.median_wait_hours || e.slow_wait_hours ? `; wait median ${hours(e.median_wait_hours)}, 90th percentile ${hours(e.slow_wait_hours)}` : ''),
      ),
    };
    lines.push(`  ${dotString(e.from)} -> ${dotString(e.to)} ${attrs(a)};`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
