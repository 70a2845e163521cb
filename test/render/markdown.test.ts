import { beforeAll, describe, expect, it } from 'vitest';
import type { GraphDocument } from '../../engine/document/types.js';
import { parseTree } from '../../engine/mining/tree.js';
import { hours } from '../../engine/render/format.js';
import { mainVariant, markdownText, renderMarkdown, TYPICAL_PATH_SHARE } from '../../engine/render/index.js';
import { TREE_LINE } from '../../engine/render/tree-text.js';
import { documentOf, figuresOf, scratchDir, simulatedLog } from './helpers.js';

/** The percentage a share reads as: one decimal at most, as written independently of the renderer. */
const asPercent = (share: number) => `${Math.round(share * 1000) / 10}%`;

describe('Markdown report', () => {
  let doc: GraphDocument;
  let md: string;
  const dir = scratchDir();
  beforeAll(async () => {
    doc = await documentOf(await simulatedLog(dir));
    md = renderMarkdown(doc);
  });

  it('has the sections in reading order', () => {
    const headings = md.split('\n').filter((l) => l.startsWith('## '));
    expect(headings).toEqual([
      '## What a case is',
      '## Outcomes',
      '## Stages',
      // The simulated log's two commonest paths may tie: then the document names no main path, and the heading says so.
      doc.variants.some((v) => v.class === 'main') ? (mainVariant(doc)!.share >= TYPICAL_PATH_SHARE ? '## Main path' : '## Commonest path') : '## Paths',
      '## Performance',
      '## Top variants',
      '## Decisions',
      '## Sequence rules',
      '## Policies',
      '## Exceptions',
      '## Escalations',
      '## Roles',
      '## Data quality and assumptions',
    ]);
    expect(md.startsWith('# Process report\n')).toBe(true);
    expect(md).toContain(`${doc.source.cases} cases and ${doc.source.events} events from ${doc.source.period_start} to ${doc.source.period_end}`);
  });

  it('names no main path where the document names none (paths tied, or one a case)', () => {
    const none = { ...doc, variants: doc.variants.map((v) => ({ ...v, class: v.class === 'main' ? 'allowed' : v.class })) } as GraphDocument;
    const text = renderMarkdown(none);
    expect(text).toContain('The document names no main path: no path is followed clearly more often than the next, or nearly every case has a path of its own (the variants assumption gives the figures); the stages give the usual order.');
    expect(text).not.toContain('The commonest path: ');
    expect(text).toContain('## Paths\n');
    expect(text).not.toContain('## Main path');
  });

  it('states what a case is and the main path as the document has them', () => {
    expect(md).toContain(`A case is ${doc.process.case_represents}.`);
    // The simulated log's two commonest paths may tie (no main); the rendering of a main path is what is tested here.
    const withMain = (doc.variants.some((v) => v.class === 'main') ? doc : { ...doc, variants: doc.variants.map((v, i) => (i === 0 ? { ...v, class: 'main' } : v)) }) as GraphDocument;
    const shown = renderMarkdown(withMain);
    const main = withMain.variants.find((v) => v.class === 'main')!;
    expect(main).toBeDefined();
    const lines = shown.split('\n');
    // "Main path" only when the commonest path is typical; otherwise the report says it is not.
    const at = lines.indexOf(main.share >= TYPICAL_PATH_SHARE ? '## Main path' : '## Commonest path');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 2]).toBe(main.path.join(' → '));
    expect(shown).toContain(`The commonest path: ${main.cases} cases (${asPercent(main.share)} of all cases), variant ${main.id}.`);
    expect(shown).toContain(`The mined process tree accepts ${asPercent(doc.model.cases_it_accepts)} of the cases.`);
    // The tree is printed indented, one operator or label a line where a line would grow long: the same tree.
    const open = shown.indexOf('```\n', shown.indexOf('### Process tree')) + 4;
    const tree = shown.slice(open, shown.indexOf('\n```', open));
    expect(parseTree(tree)).toEqual(parseTree(doc.model.process_tree));
    expect(doc.model.process_tree.length).toBeGreaterThan(TREE_LINE);
    const treeLines = tree.split('\n');
    expect(treeLines.length).toBeGreaterThan(3);
    for (const l of treeLines) expect(l.length <= TREE_LINE || /^ *'[^']*',?$/.test(l)).toBe(true);
    expect(treeLines[0]).toBe(`${doc.model.process_tree.split('(')[0]}(`);
    expect(treeLines.at(-1)).toBe(')');
  });

  it('has a performance section with the case duration, the slowest hand-offs and steps the document holds', async () => {
    // Every case finished: a log cut while cases ran gives no service level (engine/reading/window.ts).
    const doc = await documentOf(await simulatedLog(dir, 'order-to-cash', 400, 3, 0));
    const md = renderMarkdown(doc);
    const part = md.slice(md.indexOf('## Performance'), md.indexOf('## Top variants'));
    const level = doc.policies.find((p) => p.kind === 'service_level')!;
    expect(level).toBeDefined();
    expect(part).toContain(`${markdownText(level.statement)} ${level.evidence.cases} of ${level.evidence.of_cases} cases are within it.`);
    expect(part).toContain('no median or maximum case duration');

    // Written independently: hand-offs of at least 1% of the 400 cases (4), longest median wait first, ten at most.
    const floor = Math.ceil(0.01 * doc.source.cases);
    expect(floor).toBe(4);
    const label = new Map(doc.nodes.map((n) => [n.id, n.label]));
    const edges = doc.edges.filter((e) => e.cases >= floor && e.median_wait_hours > 0).sort((a, b) => b.median_wait_hours - a.median_wait_hours);
    expect(edges.length).toBeGreaterThan(3);
    const rows = part
      .slice(part.indexOf('### Slowest hand-offs'), part.indexOf('### Slowest steps'))
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| From') && !l.startsWith('| ---'));
    expect(rows.length).toBe(Math.min(10, edges.length));
    rows.forEach((row, i) => {
      const e = edges[i]!;
      expect(row).toBe(`| ${label.get(e.from)} | ${label.get(e.to)} | ${e.kind} | ${e.cases} | ${hours(e.median_wait_hours)} | ${hours(e.slow_wait_hours)} |`);
    });
    const steps = doc.nodes.filter((n) => n.kind === 'activity' && n.cases >= floor && n.median_hours_to_next > 0).sort((a, b) => b.median_hours_to_next - a.median_hours_to_next);
    const stepRows = part
      .slice(part.indexOf('### Slowest steps'))
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| Step') && !l.startsWith('| ---'));
    expect(stepRows).toEqual(steps.slice(0, 10).map((n) => `| ${n.label} | ${n.cases} | ${n.events} | ${hours(n.median_hours_to_next)} |`));
  });

  it('says the case duration is missing when the document holds none, and lists no hand-off under the case floor', () => {
    const bare = { ...doc, policies: doc.policies.filter((p) => p.kind !== 'service_level'), edges: doc.edges.map((e) => ({ ...e, cases: Math.min(e.cases, 3) })) } as GraphDocument;
    const text = renderMarkdown(bare);
    expect(text).toContain('The document holds no case duration (no service-level policy).');
    expect(text).toContain('No hand-off with a wait. Only those taken by at least 4 cases (1% of the cases) are listed.');
  });

  it("lists the top variants with the document's cases and shares", () => {
    const top = doc.variants[0]!;
    expect(md).toContain(`| 1 | ${top.class} | ${top.cases} | ${asPercent(top.share)} | ${top.path.join(' → ')} |`);
    const shown = Math.min(10, doc.variants.length);
    for (let i = 0; i < shown; i++) {
      const v = doc.variants[i]!;
      expect(md).toContain(`| ${i + 1} | ${v.class} | ${v.cases} | ${asPercent(v.share)} |`);
    }
    if (doc.variants.length > 10) expect(md).toContain(`The first 10 of the ${doc.variants.length} variants the document lists.`);
  });

  it("writes each decision's rules as the document states them", () => {
    const withRules = doc.decisions.filter((d) => d.rules.length > 0);
    // order-to-cash decides at Check Credit on orderAmount (the simulator's ground truth).
    expect(withRules.map((d) => d.at)).toContain('Check Credit');
    for (const d of withRules) {
      expect(md).toContain(`### At ${d.at}`);
      for (const r of d.rules) {
        const when = r.when
          .map((c) => {
            const w = c as { attribute: string; op: string; value: unknown };
            return `${w.attribute} ${w.op} ${Array.isArray(w.value) ? `[${w.value.join(', ')}]` : String(w.value)}`;
          })
          .join(' and ');
        // Data is written as literal Markdown text: `<` as an entity, `[` backslash-escaped.
        expect(md).toContain(`- ${markdownText(`if ${when} then ${r.then}: ${r.cases} cases, holds in ${asPercent(r.holds)} (${r.evidence.strength})`)}`);
      }
    }
    const credit = withRules.find((d) => d.at === 'Check Credit')!;
    expect(md).toMatch(/- if orderAmount &lt; [\d.]+ then Auto Approval: \d+ cases/);
    expect(md).toContain(`Always guessing the commonest branch is right for ${asPercent(credit.baseline_share)}; the rules explain the choice`);
  });

  it('lists outcomes, stages, policies, exceptions and open questions from the document', () => {
    for (const o of doc.outcomes) expect(md).toContain(`| ${o.end_activity} | ${o.kind} | ${o.cases} | ${asPercent(o.share)} |`);
    const stageLines = md.split('\n').filter((l) => /^\d+\. /.test(l));
    expect(stageLines).toEqual(doc.stages.map((s, i) => `${i + 1}. ${s.name}: ${s.activities.join(', ')}`));
    for (const p of doc.policies) expect(md).toContain(`| ${p.kind} | ${p.statement} | ${asPercent(p.share_met)} | ${p.evidence.strength} |`);
    for (const e of doc.exceptions) expect(md).toContain(`| ${e.name} | ${e.cases} | ${e.trigger} |`);
    for (const r of doc.sequence_rules) expect(md).toContain(`- ${r.statement} Holds in ${asPercent(r.holds)}`);
    for (const q of doc.open_questions) expect(md).toContain(markdownText((q as { question: string }).question));
    // The assumptions hold `>=` and `[…]`: written as literal text (entities, backslash escapes).
    for (const a of doc.assumptions) if (typeof a === 'string') expect(md).toContain(`- ${markdownText(a)}`);
  });

  it('invents no figure: every percentage and case count comes from the document', () => {
    const { numbers, texts } = figuresOf(doc);
    const percents = new Set([...numbers].map((n) => `${Math.round(n * 1000) / 10}%`));
    for (const t of texts) for (const m of t.matchAll(/(\d+(?:\.\d+)?)%/g)) percents.add(`${m[1]}%`);
    const found = [...md.matchAll(/(?<![\d.])(\d+(?:\.\d+)?)%/g)].map((m) => `${m[1]}%`);
    expect(found.length).toBeGreaterThan(20);
    expect(found.filter((p) => !percents.has(p))).toEqual([]);
    const counts = [...md.matchAll(/(?<![\d.])(\d+) cases?\b/g)].map((m) => Number(m[1]));
    const textCounts = new Set(texts.flatMap((t) => [...t.matchAll(/\d+/g)].map((m) => Number(m[0]))));
    expect(counts.filter((n) => !numbers.has(n) && !textCounts.has(n))).toEqual([]);
  });

  it('does not call a rare commonest path the main path', () => {
    const rare = { ...doc, variants: doc.variants.map((v, i) => (i === 0 ? { ...v, class: 'main', share: 0.013 } : v)) } as GraphDocument;
    const text = renderMarkdown(rare);
    expect(text).not.toContain('## Main path');
    expect(text).toContain('## Commonest path');
    expect(text).toContain('Cases rarely share a whole path (the commonest covers 1.3%)');
  });
});
