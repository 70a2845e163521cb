/**
 * Hostile data through every output format. Activity names, resource names,
 * an attribute's name and values are drawn from HTML, Markdown and DOT
 * breakouts, terminal escapes, bidi overrides and 1 KB names; a small log
 * using them is mined into a document, whose other texts (stage names,
 * rules, roles, exceptions…) are then given hostile tails too. Each format
 * must still read as itself with no markup the renderer did not write, hold
 * no control character, and still name every activity (its visible text).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildDocument } from '../../engine/document/index.js';
import type { GraphDocument } from '../../engine/document/types.js';
import { ProjectStore, type WireEvent } from '../../engine/index.js';
import { buildReport, diffDocuments, oneLine, renderDiffText, renderDocument, visibleText } from '../../engine/render/index.js';
import { parseDot } from './dot-parse.js';
import { controlsIn, readHtml, readMarkdown, strayDiffLines } from './format-checks.js';
import { indentedTree } from '../../engine/render/tree-text.js';

const PIECES = [
  '<img src=x onerror=alert(1)>', '\n# Injected heading', '\x1b]0;pwned\x07', '\x1b[2J', '\u202e', '\u202d', '\u2066', '\u200f', '\u061c',
  '\u2028', '\x85', '\x9b', '\x7f', '\x01', '\r', '\t', '<script>alert(1)</script>', '"', "'", '\\', '\\"', '`', '```', '~~~', '|', '*', '_',
  '\n```\n', '[x](javascript:alert(1))', '![i](http://example.com/i.png)', '<!--', '-->', '{', '}', ';', '//', '/*', '*/', '->', '&lt;', '&amp;', '#',
  '> ', '1. ', '- ', '---', '    ', '$x$', '~~x~~', 'node [shape=box]', '" -> "', ']', '\\n', '&', 'Pay', ' ', 'é', '日本',
];
/** What a Markdown block may start with: drawn often at a name's start, where a block of the report can begin. */
const STARTS = ['', '- ', '+ ', '* ', '1. ', '2) ', '---', '===', '    ', '# ', '> ', '<div>', '```', '~~~', '| a |'];
const hostile = fc
  .tuple(fc.constantFrom(...STARTS), fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 }))
  .map(([start, pieces]) => start + pieces.join(''));
/** A name of exactly 1,024 UTF-8 bytes (the longest an activity may be). */
const kilo = hostile.map((h) => h + 'L'.repeat(1024 - Buffer.byteLength(h)));
const name = fc.oneof({ arbitrary: hostile, weight: 4 }, { arbitrary: kilo, weight: 1 }).filter((s) => s.trim().length > 0);

const T0 = Date.UTC(2025, 2, 1);

/** 40 cases a0 → a1 → (a2 | a3, by the attribute's value) → a4, with repeats of a2 in a few: a decision, a rule, stages, roles. */
function logOf(acts: string[], resources: string[], attribute: string, values: string[]): WireEvent[] {
  const records: WireEvent[] = [];
  for (let c = 0; c < 40; c++) {
    const branch = c % 2;
    const path = [0, 1, branch ? 3 : 2, ...(c % 9 === 0 ? [2] : []), 4];
    path.forEach((a, i) =>
      records.push({
        caseId: `case-${c}`,
        activity: acts[a]!,
        timestamp: T0 + c * 3_600_000 + i * 60_000 * (1 + (c % 7)),
        eventId: `e-${c}-${i}`,
        resource: resources[(a + c) % resources.length]!,
        ...(i === 0 ? { attributes: { [attribute]: values[branch]! } } : {}),
      }),
    );
  }
  return records;
}

/** The texts a renderer prints that the engine composes (stage names, statements, roles…): each given a hostile tail. */
const TEXT_KEYS = new Set(['name', 'statement', 'trigger', 'at', 'then', 'question', 'method', 'case_represents', 'objective', 'end_activity', 'attribute', 'test', 'detected_by', 'case_notion', 'process_tree']);
const LIST_KEYS = new Set(['activities', 'path', 'handling', 'assumptions', 'roles', 'object_types']);
function taint(doc: GraphDocument, tail: string): GraphDocument {
  const walk = (v: unknown, key = ''): unknown => {
    if (typeof v === 'string') return TEXT_KEYS.has(key) ? v + tail : v;
    if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' && LIST_KEYS.has(key) ? x + tail : walk(x, key)));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(doc) as GraphDocument;
}

const hasDot = spawnSync('dot', ['-V']).status === 0;

/** Every check of every format, for one document. */
function checkAllFormats(doc: GraphDocument, files: [string, string]): void {
  const labels = doc.nodes.filter((n) => n.kind === 'activity').map((n) => n.label);
  const report = buildReport(doc);

  // json stays exact: it parses back to the document, with the controls \u-escaped in the text.
  const json = renderDocument(doc, 'json');
  expect(controlsIn(json)).toEqual([]);
  expect(JSON.parse(json)).toEqual(doc);

  const md = renderDocument(doc, 'md');
  expect(controlsIn(md)).toEqual([]);
  const m = readMarkdown(md);
  expect(m.problems).toEqual([]);
  const h3 = report.sections.flatMap((s) => s.blocks.filter((b) => b.kind === 'h3'));
  expect(m.headings).toHaveLength(1 + report.sections.length + h3.length);
  expect(m.headings.filter((l) => l.startsWith('## '))).toEqual(report.sections.map((s) => `## ${s.title}`));
  expect(m.listItems).toBe(report.sections.flatMap((s) => s.blocks).reduce((n, b) => n + (b.kind === 'list' ? b.items.length : 0), 0));
  expect(m.tableLines).toBe(report.sections.flatMap((s) => s.blocks).reduce((n, b) => n + (b.kind === 'table' ? b.rows.length + 2 : 0), 0));
  // The one code block is the process tree, whole (printed indented: the same tree): no line of it closed the fence early.
  expect(m.code).toEqual([visibleText(indentedTree(doc.model.process_tree))]);
  for (const l of labels) expect(m.text).toContain(oneLine(l));

  const html = renderDocument(doc, 'html');
  expect(controlsIn(html)).toEqual([]);
  const h = readHtml(html);
  expect(h.problems).toEqual([]);
  for (const l of labels) expect(h.text).toContain(oneLine(l));

  const dot = renderDocument(doc, 'dot');
  expect(controlsIn(dot)).toEqual([]);
  const g = parseDot(dot);
  expect([...g.nodes.keys()].sort()).toEqual(doc.nodes.map((n) => n.id).sort());
  expect(g.edges).toHaveLength(doc.edges.length);
  for (const n of doc.nodes.filter((x) => x.kind === 'activity')) {
    const a = g.nodes.get(n.id)!;
    expect(a.tooltip!.startsWith(`${oneLine(n.label)}: `)).toBe(true);
    // The label's name part is at most 60 characters: the name whole, or its start and an ellipsis.
    const shown = a.label!.slice(0, a.label!.lastIndexOf('\\n'));
    expect(Array.from(shown).length).toBeLessThanOrEqual(60);
    expect(shown === oneLine(n.label) || (shown.endsWith('…') && oneLine(n.label).startsWith(shown.slice(0, -1)))).toBe(true);
  }
  if (hasDot) {
    const svg = execFileSync('dot', ['-Tsvg'], { input: dot, encoding: 'utf8' });
    expect(svg.match(/<g id="node\d+" class="node/g)).toHaveLength(doc.nodes.length);
  }

  // The diff from a document with none of the elements: every node, edge, variant and rule is listed as added.
  const none = { ...doc, nodes: [], edges: [], variants: [], decisions: [], sequence_rules: [], policies: [], outcomes: [] } as GraphDocument;
  const diff = diffDocuments(none, doc);
  const text = renderDiffText(diff, { before: files[0], after: files[1] });
  expect(controlsIn(text)).toEqual([]);
  expect(strayDiffLines(text)).toEqual([]);
  const added = Object.values(diff.sections).reduce((n, s) => n + s.added.length, 0);
  expect(text.split('\n').filter((l) => l.startsWith('  + '))).toHaveLength(added);
  for (const l of labels) expect(text).toContain(`  + ${oneLine(l)} (`);
}

describe('every output format with hostile names', () => {
  it('reads as its format, holds no control character and names every activity', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { minLength: 5, maxLength: 5 }),
        // Resources and attribute names are ids to the engine (at most 512 bytes): no 1 KB ones.
        fc.uniqueArray(hostile, { minLength: 3, maxLength: 3 }),
        hostile,
        fc.uniqueArray(hostile, { minLength: 2, maxLength: 2 }),
        hostile,
        fc.tuple(hostile, hostile),
        (acts, resources, attribute, values, tail, files) => {
          const store = ProjectStore.open(':memory:');
          try {
            expect(store.apply({ records: logOf(acts, resources, attribute, values) }).rejected).toBe(0);
            const doc = buildDocument(store.snapshot()) as GraphDocument;
            expect(doc.nodes.filter((n) => n.kind === 'activity')).toHaveLength(5);
            checkAllFormats(doc, files);
            checkAllFormats(taint(doc, tail), files);
          } finally {
            store.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('renders the probe’s names visibly: no live <img>, no heading, no escape sequence', () => {
    const acts = ['<img src=x onerror=alert(1)>\n# Injected heading', 'safe\u202etxt.exe', '\x1b]0;pwned\x07', '\x1b[2J', 'x'.repeat(1024)];
    const store = ProjectStore.open(':memory:');
    try {
      store.apply({ records: logOf(acts, ['r1', 'r2', 'r3'], 'kind', ['a', 'b']) });
      const doc = buildDocument(store.snapshot()) as GraphDocument;
      const md = renderDocument(doc, 'md');
      // The visible escapes' backslashes are Markdown-escaped in turn: `\\n` reads as \n.
      expect(md).toContain('&lt;img src=x onerror=alert(1)&gt;\\\\n\\# Injected heading');
      expect(md).toContain('safe\\\\u{202E}txt.exe');
      expect(md).toContain('\\\\x1b]0;pwned\\\\x07');
      expect(md.split('\n').filter((l) => /^#/.test(l) && /Injected/.test(l))).toEqual([]);
      const dot = renderDocument(doc, 'dot');
      expect(dot).toContain('safe\\\\u{202E}txt.exe');
      expect(renderDocument(doc, 'html')).toContain('&lt;img src=x onerror=alert(1)&gt;\\n# Injected heading');
      expect(renderDiffText(diffDocuments({ ...doc, nodes: [] } as GraphDocument, doc))).toContain('  + \\x1b[2J (');
    } finally {
      store.close();
    }
  });
});
