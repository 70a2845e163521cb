import { describe, expect, it } from 'vitest';
import { explainDecision } from '../../api/mcp/views.js';
import { documentOf, scratchDir, simulatedLog } from '../render/helpers.js';

/**
 * explain_decision's hand-offs out of a decision point, on activity names as
 * real logs write them ("Create Order", not "a"): a decision names the activity
 * it is at by its label, edges join node ids (slugs of the labels), so a
 * comparison of the two found no edge for every real name (issue 33).
 */
describe('explain_decision on real activity names', () => {
  const dir = scratchDir();

  it('answers the hand-offs out of every decision point, each branch among them', async () => {
    const doc = await documentOf(await simulatedLog(dir, 'order-to-cash', 400, 3));
    expect(doc.decisions.length).toBeGreaterThan(0);
    const ids = new Map(doc.nodes.flatMap((n) => (n.kind === 'activity' ? [[n.label, n.id] as const] : [])));
    // The case this test is for: names whose node id is not the name.
    expect(doc.decisions.some((d) => ids.get(d.at) !== d.at)).toBe(true);
    for (const d of doc.decisions) {
      const e = explainDecision(doc, d.at);
      expect(e.decision).toEqual(d);
      const from = ids.get(d.at)!;
      expect(e.edges_out.map((x) => x.id).sort()).toEqual(doc.edges.filter((x) => x.from === from).map((x) => x.id).sort());
      expect(e.edges_out.length).toBeGreaterThan(1);
      for (const b of d.branches) expect(e.edges_out.map((x) => x.to_activity)).toContain(b.to);
      // By id as well as by the activity it sits at.
      expect(explainDecision(doc, d.id).edges_out).toEqual(e.edges_out);
    }
  });
});
