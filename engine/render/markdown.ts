/**
 * The graph document as a Markdown report (GitHub-flavoured: tables, fenced
 * code). The content is report.ts's; this file only writes it out.
 */
import type { GraphDocument } from '../document/types.js';
import { buildReport, type Block } from './report.js';

/** A table cell: no line breaks, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}

function block(b: Block): string {
  switch (b.kind) {
    case 'p':
      return b.text;
    case 'h3':
      return `### ${b.text}`;
    case 'list':
      return b.items.map((item, i) => `${b.ordered ? `${i + 1}.` : '-'} ${item.replace(/\r?\n/g, ' ')}`).join('\n');
    case 'table': {
      const align = b.head.map((_, i) => (b.numeric?.[i] ? '---:' : '---'));
      return [`| ${b.head.map(cell).join(' | ')} |`, `| ${align.join(' | ')} |`, ...b.rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
    }
    case 'code': {
      const fence = b.text.includes('```') ? '````' : '```';
      return `${fence}\n${b.text}\n${fence}`;
    }
  }
}

export function renderMarkdown(doc: GraphDocument): string {
  const report = buildReport(doc);
  const parts = [`# ${report.title}`, report.lead];
  for (const section of report.sections) {
    parts.push(`## ${section.title}`);
    for (const b of section.blocks) parts.push(block(b));
  }
  return `${parts.join('\n\n')}\n`;
}
