/**
 * The graph document as a Markdown report (GitHub-flavoured: tables, fenced
 * code). The content is report.ts's; this file only writes it out.
 *
 * Every text is written as literal text: data never turns into Markdown or
 * HTML. Control characters are shown escaped (safe-text.ts) and a line break
 * in data is shown as `\n`, so data never starts a line of its own; the
 * characters that make Markdown syntax anywhere in a line are
 * backslash-escaped, the HTML-significant ones written as entities, and those
 * that only count at the start of a block (list markers, indentation) escaped
 * there. Code blocks use a fence longer than any run of backticks inside.
 */
import type { GraphDocument } from '../document/types.js';
import { buildReport, type Block } from './report.js';
import { oneLine, visibleText } from './safe-text.js';

/**
 * One line of literal text. Escaped everywhere: backslash, code spans,
 * emphasis (an underscore only where it could open or close one: not between
 * two letters or digits, as in share_of_from), links, images and footnotes
 * (`[`), headings and their closing `#`s, table pipes, strikethrough, math;
 * `&`, `<` and `>` as entities (no tag, no autolink, no block quote, no
 * entity from data).
 */
export function markdownText(text: string, where: 'block' | 'cell' = 'block'): string {
  let s = oneLine(text)
    .replace(/[\\`*[#|~$]/g, '\\$&')
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_');
  // What only counts where a block starts (a table cell holds inline text only): a list item (- + or 1. 1)), a thematic break, a setext line.
  if (where === 'block') s = s.replace(/^([-+=])/, '\\$1').replace(/^(\d{1,9})([.)])/, '$1\\$2');
  s = s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  // Leading spaces would indent the block into a code block.
  return where === 'block' ? s.replace(/^ +/, (spaces) => '&#32;'.repeat(spaces.length)) : s;
}

/** A fenced code block no line of the text can close: the fence is longer than any run of backticks in it. */
export function markdownCode(text: string): string {
  const body = visibleText(text);
  const longest = Math.max(0, ...Array.from(body.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${body}\n${fence}`;
}

function block(b: Block): string {
  switch (b.kind) {
    case 'p':
      return markdownText(b.text);
    case 'h3':
      return `### ${markdownText(b.text)}`;
    case 'list':
      return b.items.map((item, i) => `${b.ordered ? `${i + 1}.` : '-'} ${markdownText(item)}`).join('\n');
    case 'table': {
      const align = b.head.map((_, i) => (b.numeric?.[i] ? '---:' : '---'));
      const row = (cells: string[]) => `| ${cells.map((c) => markdownText(c, 'cell')).join(' | ')} |`;
      return [row(b.head), `| ${align.join(' | ')} |`, ...b.rows.map(row)].join('\n');
    }
    case 'code':
      return markdownCode(b.text);
  }
}

export function renderMarkdown(doc: GraphDocument): string {
  const report = buildReport(doc);
  const parts = [`# ${markdownText(report.title)}`, markdownText(report.lead)];
  for (const section of report.sections) {
    parts.push(`## ${markdownText(section.title)}`);
    for (const b of section.blocks) parts.push(block(b));
  }
  return `${parts.join('\n\n')}\n`;
}
