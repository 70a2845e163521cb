import { describe, expect, it } from 'vitest';
import { buildDocument, type GraphDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { renderMarkdown } from '../../engine/render/index.js';
import { auditDocument } from '../document/audit.js';
import { freshStore } from '../engine/helpers.js';
import { mostlyDirectLog, onePerVariantLog, twoWaysLog } from './path-shape.js';

/**
 * Paths with a stated truth (test/reading/path-shape.ts), read with their names and with opaque codes: a sample of
 * one case per variant, two ways followed equally often, and a chain that holds in most cases only (issue 31's blind
 * reviews of pm4py's `*_1t_per_variant` logs and BPIC 2017).
 */
function docOf(events: WireEvent[]) {
  const store = freshStore();
  for (let i = 0; i < events.length; i += 5000) store.apply({ records: events.slice(i, i + 5000) });
  const doc = buildDocument(store.snapshot());
  return { doc, audit: auditDocument(doc, [...store.traces()]) };
}
const variantsAssumption = (d: GraphDocument) => d.assumptions.find((a) => typeof a === 'string' && a.startsWith('Variants:')) as string;
const backboneAssumption = (d: GraphDocument) => d.assumptions.find((a) => typeof a === 'string' && a.startsWith('The backbone')) as string;

describe.each([false, true])('paths (names hidden: %s)', (hidden) => {
  describe('a sample of one case per variant', () => {
    const { events, truth } = onePerVariantLog({ hidden });
    const { doc, audit } = docOf(events);

    it('names no main variant and says the shares count distinct paths', () => {
      expect(truth.cases).toBeGreaterThan(100);
      expect(doc.source.cases).toBe(truth.cases);
      expect(doc.variants.filter((v) => v.class === 'main')).toEqual([]);
      // Every path holds one case: under 1% each, none is listed.
      expect(doc.variants).toEqual([]);
      const text = variantsAssumption(doc);
      expect(text).toContain(`here no path is main: ${truth.variants} distinct paths for ${truth.cases} cases (100%); the commonest has 1 case.`);
      expect(text).toContain('variant shares count distinct paths, not how often the process goes a way');
      expect(backboneAssumption(doc)).toContain('No variant is main (nearly every case has a path of its own');
      expect(backboneAssumption(doc)).not.toContain('main variant is only');
      // The milder note for varied logs is not said twice.
      expect(doc.assumptions.join('\n')).not.toContain('Nearly every case follows its own path');
    });

    it('reads no commonest path as the way of the process, in the report either', () => {
      const md = renderMarkdown(doc);
      expect(md).not.toMatch(/The commonest path: /);
      expect(md).toContain('The document names no main path: no path is followed clearly more often than the next, or nearly every case has a path of its own');
      expect(JSON.stringify(doc)).not.toMatch(/main variant is/i);
    });

    it('passes the audit, the path verdict included', () => {
      expect([...audit]).toEqual([]);
    });
  });

  describe('two ways followed equally often', () => {
    const { events, truth } = twoWaysLog({ top: 150, next: 150, hidden });
    const { doc, audit } = docOf(events);

    it('names no main variant, lists both ways as allowed and says they are tied', () => {
      expect(doc.variants.filter((v) => v.class === 'main')).toEqual([]);
      expect(doc.variants.slice(0, 2).map((v) => [v.class, v.cases])).toEqual([
        ['allowed', truth.top],
        ['allowed', truth.next],
      ]);
      expect(variantsAssumption(doc)).toContain(`here no path is main: the commonest path (${truth.top} cases) and the next (${truth.next} cases) are within sampling noise of each other (2 paths are within it of the commonest)`);
      expect(backboneAssumption(doc)).toContain('No variant is main (the commonest paths are tied');
      expect(renderMarkdown(doc)).toContain('The document names no main path');
      expect([...audit]).toEqual([]);
    });

    it('is held by the audit: a main named on the tie, or a wrong count in the assumption, is found', () => {
      const store = freshStore();
      store.apply({ records: events });
      const named = { ...doc, variants: doc.variants.map((v, i) => (i === 0 ? { ...v, class: 'main' as const } : v)) };
      expect(auditDocument(named, [...store.traces()]).join('\n')).toContain('/variants (main path)/count of main: document 1, recomputed 0');
      const miscounted = { ...doc, assumptions: doc.assumptions.map((a) => (typeof a === 'string' && a.startsWith('Variants:') ? a.replace(`(${truth.next} cases)`, `(${truth.next - 1} cases)`) : a)) };
      expect(auditDocument(miscounted, [...store.traces()]).join('\n')).toContain(`/variants (main path)/assumption top: document ${truth.top - 1}, recomputed ${truth.top}`);
    });

    it('calls a gap within sampling noise a tie too (150 against 130: 20 < 2·√280)', () => {
      const near = docOf(twoWaysLog({ top: 150, next: 130, hidden }).events).doc;
      expect(near.variants.filter((v) => v.class === 'main')).toEqual([]);
      expect(variantsAssumption(near)).toContain('the commonest path (150 cases) and the next (130 cases) are within sampling noise');
    });

    it('names the main variant where the commonest leads beyond noise (200 against 100)', () => {
      const { doc: clear, audit: clearAudit } = docOf(twoWaysLog({ top: 200, next: 100, hidden }).events);
      expect(clear.variants.filter((v) => v.class === 'main').map((v) => v.cases)).toEqual([200]);
      expect(variantsAssumption(clear)).toContain('here the commonest path (200 cases, 50%) leads the next (100 cases) beyond sampling noise: it is the main path');
      expect(backboneAssumption(clear)).toContain('The main variant is only the commonest path (50% of cases).');
      expect([...clearAudit]).toEqual([]);
    });
  });

  describe('a chain that holds in most cases only', () => {
    const { events, names, cases, calls } = mostlyDirectLog({ hidden });
    const { doc, audit } = docOf(events);

    it('gives the share instead of "always", and keeps "always" for a chain of every case', () => {
      const partial = doc.sequence_rules.find((r) => r.id.startsWith('chain_response') && r.activities[0] === names.check && r.activities[1] === names.assess);
      const share = `${Math.round(((cases - calls) / cases) * 1000) / 10}%`;
      expect(partial).toMatchObject({ statement: `'${names.check}' is directly followed by '${names.assess}' in ${share} of the cases with '${names.check}'.`, holds: (cases - calls) / cases });
      const whole = doc.sequence_rules.find((r) => r.id.startsWith('chain_response') && r.activities[0] === names.register);
      expect(whole).toMatchObject({ statement: `'${names.register}' is always directly followed by '${names.check}'.`, holds: 1 });
      // No absolute word on a rule below 100%.
      for (const r of doc.sequence_rules) if (r.holds < 1 && !r.id.startsWith('later-turn-')) expect(r.statement, r.id).toMatch(/^(?!.*\b(always|never)\b).* \d+(\.\d)?% of the cases with /);
      expect([...audit]).toEqual([]);
    });
  });
});
