import { Rng } from '../../connectors/simulator/random.js';
import type { WireEvent } from '../../engine/index.js';

/**
 * Simulated logs with a stated truth about concurrency and loops (issue 31), shaped as claim logs are made: after a
 * claim is registered, the ticket is checked while the claim is examined (casually or thoroughly, one of the two):
 * two branches that neither waits for, each recorded when it completes, so the log holds them in both orders. Then a
 * decision; a share of the decisions reinitiate the claim, and the check, the examination and the decision are done
 * again (the redo loop). The claim ends paid or rejected. Names are opaque codes when `hidden`.
 */
export interface ConcurrencyTruth {
  cases: number;
  /** Cases that go round the loop at least once (every repeat of check, examine and decide comes after a reinitiation). */
  looping: number;
  /** Distinct paths, and distinct behaviours: paths with each parallel block's two steps taken as a set. */
  variants: number;
  behaviours: number;
  /** Cases of the commonest behaviour. */
  topBehaviour: number;
}

export const CLAIM_NAMES = {
  register: 'Register Claim', check: 'Check Ticket', casual: 'Examine Casually', thorough: 'Examine Thoroughly', decide: 'Decide',
  reinitiate: 'Reinitiate Claim', pay: 'Pay Compensation', reject: 'Reject Claim',
} as const;
type ClaimStep = keyof typeof CLAIM_NAMES;
const CLAIM_HIDDEN: Record<ClaimStep, string> = { register: 'K1', check: 'K2', casual: 'K3', thorough: 'K4', decide: 'K5', reinitiate: 'K6', pay: 'K7', reject: 'K8' };

const H = 3_600_000;

export function claimLog(options: { cases?: number; seed?: number; hidden?: boolean } = {}): { events: WireEvent[]; truth: ConcurrencyTruth; names: Record<ClaimStep, string> } {
  const n = options.cases ?? 600;
  const rng = new Rng(options.seed ?? 3);
  const r = () => rng.next();
  const names = options.hidden ? CLAIM_HIDDEN : CLAIM_NAMES;
  const events: WireEvent[] = [];
  const paths = new Set<string>();
  const behaviours = new Map<string, number>();
  let looping = 0;
  const start = Date.UTC(2025, 0, 6, 8);
  for (let c = 0; c < n; c++) {
    const id = `claim-${c}`;
    let t = start + c * 3 * H;
    const steps: [ClaimStep, number][] = [['register', t]];
    const behaviour: string[] = ['register'];
    let turns = 0;
    for (;;) {
      // The two branches start together; each is recorded when it completes.
      t += (0.5 + r()) * H;
      const exam: ClaimStep = r() < 0.6 ? 'casual' : 'thorough';
      const checkDone = t + (1 + 4 * r()) * H;
      const examDone = t + (1 + 4 * r()) * H;
      steps.push(['check', checkDone], [exam, examDone]);
      behaviour.push(`{${['check', exam].sort().join('|')}}`);
      t = Math.max(checkDone, examDone) + (1 + 2 * r()) * H;
      steps.push(['decide', t]);
      behaviour.push('decide');
      if (turns < 3 && r() < 0.3) {
        turns++;
        t += (2 + r()) * H;
        steps.push(['reinitiate', t]);
        behaviour.push('reinitiate');
        continue;
      }
      break;
    }
    if (turns > 0) looping++;
    const end: ClaimStep = r() < 0.55 ? 'pay' : 'reject';
    t += (1 + 24 * r()) * H;
    steps.push([end, t]);
    behaviour.push(end);
    steps.sort((x, y) => x[1] - y[1]);
    paths.add(steps.map(([s]) => s).join(','));
    const key = behaviour.join(',');
    behaviours.set(key, (behaviours.get(key) ?? 0) + 1);
    steps.forEach(([s, time], i) =>
      events.push({ caseId: id, eventId: `${id}-${i}`, activity: names[s], timestamp: new Date(time).toISOString(), resource: `u${1 + Math.floor(r() * 6)}`, attributes: {} }),
    );
  }
  return { events, truth: { cases: n, looping, variants: paths.size, behaviours: behaviours.size, topBehaviour: Math.max(...behaviours.values()) }, names };
}

/**
 * The control: a true sequence that sometimes skips a step (an order approved only above a limit, then shipped and
 * invoiced), and in a few cases records the approval after the shipment (entered late). Both orders of approve and
 * ship occur, yet nothing runs concurrently: approve always precedes ship in the work.
 */
export function skipLog(options: { cases?: number; seed?: number; hidden?: boolean } = {}): { events: WireEvent[]; names: Record<'order' | 'approve' | 'ship' | 'invoice', string> } {
  const n = options.cases ?? 600;
  const rng = new Rng(options.seed ?? 8);
  const r = () => rng.next();
  const names = options.hidden ? { order: 'Q1', approve: 'Q2', ship: 'Q3', invoice: 'Q4' } : { order: 'Receive Order', approve: 'Approve Order', ship: 'Ship Goods', invoice: 'Send Invoice' };
  const events: WireEvent[] = [];
  const start = Date.UTC(2025, 0, 6, 8);
  for (let c = 0; c < n; c++) {
    const id = `o-${c}`;
    let t = start + c * 2 * H;
    const path = [names.order];
    if (r() < 0.65) path.push(names.approve);
    path.push(names.ship, names.invoice);
    // Entered late: the approval recorded after the shipment in a few cases.
    if (path.length === 4 && r() < 0.03) [path[1], path[2]] = [path[2]!, path[1]!];
    path.forEach((a, i) => {
      t += i === 0 ? 0 : (1 + r() * 8) * H;
      events.push({ caseId: id, eventId: `${id}-${i}`, activity: a, timestamp: new Date(t).toISOString(), resource: `u${1 + Math.floor(r() * 4)}`, attributes: {} });
    });
  }
  return { events, names };
}
