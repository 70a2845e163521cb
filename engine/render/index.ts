/** Renderers of a graph document: pure functions from a GraphDocument to text. */
export { renderMarkdown } from './markdown.js';
export { renderDot, dotString } from './dot.js';
export { renderHtml, renderSvg, escapeHtml } from './html.js';
export { layoutDocument, nodeOrder, type Layout, type PlacedEdge, type PlacedNode } from './layout.js';
export { buildReport, TYPICAL_PATH_SHARE, type Report, type Section, type Block } from './report.js';
export { diffDocuments, renderDiffText, diffSections, compared, type DocumentDiff, type SectionDiff } from './diff.js';
export { pct, hours, whenText, conditionText, pathText, plainText, mainVariant } from './format.js';
export { clip, controlEscape, jsonText, LABEL_MAX, oneLine, visibleText } from './safe-text.js';
export { markdownCode, markdownText } from './markdown.js';
export { defaultSimplification, hiddenText, simplified, simplify, WHOLE, type Simplification, type Simplified } from './simplify.js';

import type { GraphDocument } from '../document/types.js';
import { renderDot } from './dot.js';
import { renderHtml } from './html.js';
import { renderMarkdown } from './markdown.js';
import { jsonText } from './safe-text.js';
import type { Simplification } from './simplify.js';

export const documentFormats = ['json', 'md', 'dot', 'html'] as const;
export type DocumentFormat = (typeof documentFormats)[number];

/**
 * The document in one of the formats `pcg graph --format` writes. json is the
 * document exactly (it parses back to the same value), as `pcg graph` always
 * printed it, except that controls JSON.stringify leaves raw are \u-escaped.
 * `view` simplifies the map of dot and html (simplify.ts); without it they
 * draw every node and edge.
 */
export function renderDocument(doc: GraphDocument, format: DocumentFormat, view?: Simplification): string {
  switch (format) {
    case 'json':
      return `${jsonText(doc, 2)}\n`;
    case 'md':
      return renderMarkdown(doc);
    case 'dot':
      return renderDot(doc, view);
    case 'html':
      return renderHtml(doc, view);
  }
}
