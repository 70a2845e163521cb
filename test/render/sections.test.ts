import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GraphDocument } from '../../engine/document/types.js';
import { buildReport, diffDocuments, diffSections, renderDiffText } from '../../engine/render/index.js';
import { DOCUMENT_SECTIONS, SECTION_KEYS, sectionRow, type SectionKey } from '../../engine/render/sections.js';
import { countsOf, diffDocuments as mcpDiff, SECTIONS, sectionItems } from '../../api/mcp/views.js';
import { p2pLog } from '../files/ocel-logs.js';
import { documentOf, scratchDir, simulatedLog } from './helpers.js';

/**
 * The recipe "Adding a document section" (docs/architecture.md): every top-level key of the document
 * has a row in engine/render/sections.ts (the compiler holds that), and every face covers every row
 * as its row says (held here).
 */
describe('the document sections table', () => {
  let doc: GraphDocument;
  let ocel: GraphDocument;
  beforeAll(async () => {
    const dir = scratchDir();
    doc = await documentOf(await simulatedLog(dir, 'order-to-cash', 200, 5));
    const file = join(dir, 'p2p.jsonocel');
    writeFileSync(file, p2pLog());
    ocel = await documentOf(file);
  }, 120_000);

  it('has one row per top-level key of a built document, and no other', () => {
    expect(Object.keys(doc).sort()).toEqual([...SECTION_KEYS].sort());
    expect(ocel.object_types.length).toBeGreaterThan(0);
  });

  it('the report shows every row where its row says, and has no section no row names', () => {
    const wanted = new Set(SECTION_KEYS.map((k) => sectionRow(k).report).filter((r): r is Exclude<typeof r, 'lead' | null> => r !== null && r !== 'lead'));
    expect(new Set(buildReport(ocel).sections.map((s) => s.id))).toEqual(wanted);
    // Without object types the objects section is left out; every other stays.
    expect(buildReport(doc).sections.map((s) => s.id)).toEqual(buildReport(ocel).sections.map((s) => s.id).filter((id) => id !== 'objects'));
    expect(buildReport(doc).lead).toContain(`data version ${doc.source.data_version}`);
    expect(sectionRow('source').report).toBe('lead');
  });

  it('pcg diff compares every row with `diff`, with the fields its row names, under its title', () => {
    const compared = SECTION_KEYS.filter((k) => sectionRow(k).diff);
    expect([...diffSections]).toEqual(compared);
    const empty = { ...doc, ...Object.fromEntries(compared.map((k) => [k, []])) } as GraphDocument;
    const d = diffDocuments(doc, empty);
    const text = renderDiffText(d);
    for (const k of compared) {
      expect(d.sections[k as (typeof diffSections)[number]].removed.length, k).toBe((doc[k] as unknown[]).length);
      expect(Object.keys(d.sections[k as (typeof diffSections)[number]].removed[0]!.fields).sort(), k).toEqual([...sectionRow(k).diff!.fields].sort());
      expect(text, k).toContain(`\n${sectionRow(k).title.toLowerCase()}: 0 added, ${(doc[k] as unknown[]).length} removed`);
    }
  });

  it('MCP pages through, counts and compares the rows that say so', () => {
    const paged = SECTION_KEYS.filter((k) => sectionRow(k).mcp);
    expect([...SECTIONS]).toEqual(paged.map((k) => sectionRow(k).mcp!.view));
    for (const k of paged) expect(sectionItems(doc, sectionRow(k).mcp!.view as (typeof SECTIONS)[number])).toBe(doc[k]);
    expect(sectionItems(doc, 'rules')).toBe(doc.sequence_rules);
    const counted = SECTION_KEYS.filter((k) => sectionRow(k).counted);
    const counts = countsOf(doc);
    expect(Object.keys(counts)).toEqual(['nodes', 'activities', ...counted.slice(1)]);
    for (const k of counted) expect(counts[k], k).toBe((doc[k] as unknown[]).length);
    const diffed = SECTION_KEYS.filter((k) => sectionRow(k).mcp?.diff).map((k) => sectionRow(k).mcp!.view);
    expect(Object.keys(mcpDiff(doc, doc, 5).counts)).toEqual(diffed);
  });

  it("the web page has a tab for every row that names one (api/web/src/panels.ts)", () => {
    const panels = readFileSync(join(import.meta.dirname, '../../api/web/src/panels.ts'), 'utf8');
    const tabs = [...panels.slice(panels.indexOf('export const TABS'), panels.indexOf('] as const;', panels.indexOf('export const TABS'))).matchAll(/\['([a-z_]+)',/g)].map((m) => m[1]);
    const named = SECTION_KEYS.map((k) => sectionRow(k).web).filter((t): t is string => t !== null);
    expect(tabs.sort()).toEqual([...named, 'overview', 'document'].sort());
  });

  it('keeps each key in its own row', () => {
    for (const k of Object.keys(DOCUMENT_SECTIONS) as SectionKey[]) expect(sectionRow(k).title, k).toMatch(/^[A-Z]/);
  });
});
