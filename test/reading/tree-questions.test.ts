import { describe, expect, it } from 'vitest';
import { Rng } from '../../connectors/simulator/random.js';
import type { SequenceRule } from '../../engine/document/types.js';
import type { WireEvent } from '../../engine/index.js';
import { leaf, node } from '../../engine/mining/tree.js';
import { factsOf } from '../../engine/reading/facts.js';
import { MAX_TREE_QUESTIONS, treeFacts, treeOrderConflicts } from '../../engine/reading/tree-facts.js';
import { freshStore } from '../engine/helpers.js';

/**
 * A purchase item created first and then changed in any order (price, quantity, delivery, approval...), as in BPIC
 * 2019, where a mined tree that runs the creation in parallel with every change raised nine near-identical open
 * questions (issue 31). Truth: the creation precedes each of six changes in every case with both; the questions ask
 * about the three pairs of most cases, and one more names the other three and where they are (their sequence rules).
 */
const NAMED = { create: 'Create Item', changes: ['Change Price', 'Change Quantity', 'Change Delivery', 'Change Approval', 'Record Receipt', 'Record Invoice'] };
const CODED = { create: 'P0', changes: ['P1', 'P2', 'P3', 'P4', 'P5', 'P6'] };
/** How often each change happens: distinct, so the pairs rank by cases. */
const RATES = [0.9, 0.75, 0.6, 0.45, 0.3, 0.2];

function itemLog(names: typeof NAMED): WireEvent[] {
  const rng = new Rng(21);
  const out: WireEvent[] = [];
  for (let c = 0; c < 300; c++) {
    const caseId = `po-${c}`;
    let t = Date.UTC(2025, 2, 3) + c * 3_600_000;
    const steps = [names.create, ...names.changes.filter((_, i) => rng.next() < RATES[i]!).sort(() => rng.next() - 0.5)];
    for (const a of steps) out.push({ caseId, activity: a, timestamp: (t += 600_000 + Math.floor(rng.next() * 3_600_000)), eventId: `${caseId}-${out.length}` });
  }
  return out;
}

describe.each([
  ['named', NAMED],
  ['opaque', CODED],
])('tree-order questions on an item changed in any order after its creation (%s)', (_, names) => {
  const store = freshStore();
  store.apply({ records: itemLog(names) });
  const f = factsOf(store.snapshot().tally, (ms) => ms / 3_600_000);
  // The tree a fall-through gives: everything in parallel.
  const tree = treeFacts(node('parallel', [leaf(names.create), ...names.changes.map(leaf)]));
  const rules: SequenceRule[] = names.changes.map((b) => ({
    id: `precedence-${names.create}-${b}`.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    type: 'precedence',
    statement: `'${b}' happens only after '${names.create}'.`,
    activities: [names.create, b],
    holds: 1,
    evidence: { cases: 0, of_cases: 0, share: 1, strength: 'strong', method: '' },
  }));
  const questions = treeOrderConflicts(tree, f, rules) as { question: string; evidence: { cases: number } }[];
  const withBoth = names.changes.map((b) => f.order(names.create, b).both);

  it('asks about the pairs of most cases one by one, the rest in one question pointing at their rules', () => {
    expect(withBoth.every((n, i) => i === 0 || n < withBoth[i - 1]!)).toBe(true);
    expect(questions).toHaveLength(MAX_TREE_QUESTIONS + 1);
    questions.slice(0, MAX_TREE_QUESTIONS).forEach((q, i) => {
      expect(q.question).toContain(`runs '${names.create}' and '${names.changes[i]}' in parallel, yet '${names.create}' came first in every one of the ${withBoth[i]} cases with both`);
      expect(q.evidence.cases).toBe(withBoth[i]);
    });
    const rest = questions[MAX_TREE_QUESTIONS]!;
    expect(rest.question).toContain(`3 more pairs the mined process tree runs in parallel came in one order in every case with both, as above (from ${withBoth[3]} cases down to ${withBoth[5]})`);
    expect(rest.question).toContain(`the sequence rules ${rules.slice(3).map((r) => r.id).join(', ')}.`);
    expect(rest.evidence.cases).toBe(withBoth[3]);
  });
});
