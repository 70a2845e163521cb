import { describe, expect, it } from 'vitest';
import { Rng } from '../../connectors/simulator/random.js';
import { buildDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { freshStore } from '../engine/helpers.js';

/**
 * An order policy between two backbone steps is counted over the cases with both; when many cases do the later
 * step without the earlier one, the order is no requirement (issue 31: "Screen before Reject, 100%, strong" while
 * 35% of the rejections had no screening). The stated truth: every applicant is viewed; 30% are rejected right
 * then; the others are screened, and 80% of those rejected, 20% signed.
 */
function log(): WireEvent[] {
  const rng = new Rng(9);
  const out: WireEvent[] = [];
  const H = 3_600_000;
  for (let c = 0; c < 400; c++) {
    let t = Date.UTC(2024, 0, 1) + c * 3 * H;
    const steps = ['Apply', 'View'];
    if (rng.next() < 0.3) steps.push('Reject');
    else steps.push('Screen', rng.next() < 0.8 ? 'Reject' : 'Sign');
    steps.forEach((a, i) => {
      t += Math.floor((2 + rng.next() * 30) * H);
      out.push({ caseId: `c${c}`, eventId: `c${c}-${i}`, activity: a, timestamp: new Date(t).toISOString() });
    });
  }
  return out;
}

describe('an order policy between steps the later of which is often done alone', () => {
  it('says how many cases do the later step without the earlier, and is not strong', () => {
    const events = log();
    const store = freshStore();
    store.apply({ records: events });
    const doc = buildDocument(store.snapshot());
    const byCase = new Map<string, string[]>();
    for (const e of events) byCase.set(e.caseId, [...(byCase.get(e.caseId) ?? []), e.activity]);
    const withReject = [...byCase.values()].filter((p) => p.includes('Reject'));
    const alone = withReject.filter((p) => !p.includes('Screen')).length;
    const p = doc.policies.find((x) => x.id === 'sequence-screen-reject')!;
    expect(p.share_met).toBe(1);
    expect(p.statement).toContain(`${alone} of the ${withReject.length} cases with 'Reject'`);
    expect(p.statement).toContain("not a step required before 'Reject'");
    expect(['counted', 'strong']).not.toContain(p.evidence.strength);
    // The order that every case keeps stays as it was.
    expect(doc.policies.find((x) => x.id === 'sequence-apply-view')?.statement).toBe("'Apply' comes before 'View' in 100% of the cases with both.");
  });
});
