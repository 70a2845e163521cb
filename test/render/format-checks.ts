/**
 * Small, independent readers of the renderers' formats for the hostile-name
 * tests: each says what in a text would be markup (or a line, a tag, a
 * string) the renderer did not mean to write, and gives back the text a
 * reader sees, so a test can check every name is still there. They follow
 * the formats' rules (CommonMark/GFM, HTML, DOT), not the renderers' code.
 */

/** Every character that must never reach an output raw: C0 but tab and newline, DEL, C1, bidi controls, line separators. */
export const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** The control characters in a text, as code points (an empty list when it is clean). */
export function controlsIn(text: string): string[] {
  return Array.from(text.matchAll(CONTROL), (m) => `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
}

// ---- HTML ----------------------------------------------------------------------------------------

/** The elements and attributes html.ts writes; anything else in a page came from data. */
const TAGS = new Set(
  'html head meta title style body header h1 h2 h3 p nav a section button label input span div svg defs marker path g text tspan rect circle ul ol li table thead tbody tr th td pre code footer script'.split(' '),
);
const ATTRS = new Set(
  'lang charset name content http-equiv class id href type min max step value style viewBox width height role aria-label refX refY markerUnits markerWidth markerHeight orient d fill stroke stroke-width stroke-dasharray marker-end x y rx transform r data-cases data-id data-from data-to'.split(' '),
);

const htmlEntities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/**
 * Reads a page html.ts wrote: every tag must be one it writes, with its
 * attributes, all values double-quoted; no `<` or `>` outside a tag; the one
 * inline script is taken out first (it is code, not markup). `text` is the
 * page with tags and the script removed and entities decoded.
 */
export function readHtml(html: string): { problems: string[]; text: string } {
  const problems: string[] = [];
  const scripts = html.match(/<script\b/gi) ?? [];
  if (scripts.length !== 1) problems.push(`${scripts.length} <script> elements`);
  const page = html.replace(/<script>[\s\S]*?<\/script>/, '<script></script>');
  let text = '';
  let at = 0;
  for (const m of page.matchAll(/<[^<>]*>/g)) {
    text += page.slice(at, m.index);
    at = m.index + m[0].length;
    const tag = m[0];
    if (tag === '<!doctype html>') continue;
    const close = /^<\/([a-z][a-z0-9]*)>$/.exec(tag);
    if (close) {
      if (!TAGS.has(close[1]!)) problems.push(`closing tag ${tag}`);
      continue;
    }
    const open = /^<([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z][\w:-]*(?:="[^"<>]*")?)*)\s*\/?>$/.exec(tag);
    if (!open) {
      problems.push(`malformed tag ${tag.slice(0, 80)}`);
      continue;
    }
    if (!TAGS.has(open[1]!)) problems.push(`element ${open[1]}`);
    for (const a of open[2]!.matchAll(/\s+([a-zA-Z][\w:-]*)(?:="[^"]*")?/g)) {
      if (!ATTRS.has(a[1]!) || /^on/i.test(a[1]!)) problems.push(`attribute ${a[1]} on ${open[1]}`);
    }
    text += ' ';
  }
  text += page.slice(at);
  if (/[<>]/.test(text)) problems.push('a < or > outside a tag');
  for (const m of text.matchAll(/&([^;\s]{0,8});?/g)) if (!(m[1]! in htmlEntities) || !m[0].endsWith(';')) problems.push(`bare or unknown entity ${m[0]}`);
  return { problems, text: text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => htmlEntities[e]!) };
}

// ---- Markdown ------------------------------------------------------------------------------------

export interface MarkdownRead {
  problems: string[];
  /** Lines that are headings (ATX), as written. */
  headings: string[];
  /** List item lines and table lines, counted. */
  listItems: number;
  tableLines: number;
  /** The contents of the fenced code blocks. */
  code: string[];
  /** The prose as a reader sees it: escapes and entities decoded, one line per line. */
  text: string;
}

const mdEntities: Record<string, string> = { amp: '&', lt: '<', gt: '>', '#32': ' ' };
const alnum = /[\p{L}\p{N}]/u;

/**
 * Reads a report markdown.ts wrote, by CommonMark's block rules: fences
 * open and close as CommonMark says (so a fence broken by data shows as a
 * wrong code block); outside them, a line may begin a heading, a list item
 * or a table row only as the renderer writes them, and never an HTML block,
 * a quote, indented code, a thematic break or a setext underline; inside a
 * line, every character that makes inline syntax (code, emphasis, links,
 * strikethrough, math, a tag) must be escaped.
 */
export function readMarkdown(md: string): MarkdownRead {
  const out: MarkdownRead = { problems: [], headings: [], listItems: 0, tableLines: 0, code: [], text: '' };
  const prose: string[] = [];
  let fence: { char: string; length: number; lines: string[] } | undefined;
  let columns: number | undefined; // cell boundaries per row of the table being read
  md.split('\n').forEach((line, i) => {
    const where = `line ${i + 1}`;
    if (fence) {
      const close = /^ {0,3}(`+|~+)\s*$/.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) {
        out.code.push(fence.lines.join('\n'));
        fence = undefined;
      } else fence.lines.push(line);
      return;
    }
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (open) {
      fence = { char: open[1]![0]!, length: open[1]!.length, lines: [] };
      return;
    }
    const table = line.startsWith('| ') && line.endsWith(' |');
    if (!table) columns = undefined;
    if (line === '') return;
    let body = line;
    if (/^ {0,3}#{1,6}(\s|$)/.test(line)) {
      out.headings.push(line);
      body = line.replace(/^#{1,3} /, '');
    } else if (/^(- |\d{1,9}\. )/.test(line)) {
      out.listItems++;
      body = line.replace(/^(- |\d{1,9}\. )/, '');
      // An item's text may not open a block inside the item (a heading, a nested list, a quote, code).
      if (/^( {2,}|\t|[#<>+*-]|\d{1,9}[.)])/.test(body)) out.problems.push(`${where}: an item's text starts a block: ${body.slice(0, 60)}`);
    } else if (table) {
      out.tableLines++;
      body = line.slice(2, -2);
    } else if (/^( {4}|\t| {0,3}[<>#]| {0,3}[-+*](\s|$)| {0,3}\d{1,9}[.)](\s|$)| {0,3}(=+|-+)\s*$| {0,3}([-*_])(\s*\3){2,}\s*$)/.test(line)) {
      out.problems.push(`${where} starts a block: ${line.slice(0, 60)}`);
    }
    let text = '';
    let cells = 1;
    for (let k = 0; k < body.length; k++) {
      const c = body[k]!;
      if (c === '\\' && k + 1 < body.length && /[!-/:-@[-`{-~]/.test(body[k + 1]!)) {
        text += body[++k];
      } else if (c === '&') {
        const e = /^&(amp|lt|gt|#32);/.exec(body.slice(k));
        if (!e) out.problems.push(`${where}: a bare &`);
        text += e ? mdEntities[e[1]!] : c;
        k += e ? e[0].length - 1 : 0;
      } else if (c === '|' && table && body[k - 1] === ' ' && body[k + 1] === ' ') {
        text += '\t'; // a cell boundary the renderer wrote
        cells++;
      } else {
        if ('`*[~$<>|#'.includes(c)) out.problems.push(`${where}: unescaped ${c}`);
        if (c === '_' && !(alnum.test(body[k - 1] ?? '') && alnum.test(body[k + 1] ?? ''))) out.problems.push(`${where}: unescaped _ that can emphasise`);
        text += c;
      }
    }
    if (table) {
      if (columns !== undefined && cells !== columns) out.problems.push(`${where}: ${cells} cells in a table of ${columns}`);
      columns = cells;
    }
    prose.push(text);
  });
  if (fence) out.problems.push('a fence is never closed');
  out.text = prose.join('\n');
  return out;
}

// ---- diff text -----------------------------------------------------------------------------------

/** The lines renderDiffText writes, by their start; any other line came from data. */
export function strayDiffLines(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => !/^(before: |after:  |source: |No differences\.$|$|[a-z ]+: \d+ added, \d+ removed, \d+ changed, \d+ unchanged$|  [-+~] )/.test(l));
}
