import { Rng } from '../../connectors/simulator/random.js';
import type { WireEvent } from '../../engine/index.js';

/**
 * Simulated logs with a stated truth about outcome statuses (issue 31), shaped as loan-application logs are made:
 * the case is one application; the system writes one status when it is decided (accepted, denied, cancelled), and
 * then goes on logging work still open (the validation work item begun before is closed under its own name; the
 * offer of a decided application is accepted, refused or withdrawn). Offers are parts of the case: an earlier offer
 * is withdrawn ('Offer Cancelled') when a new one is made, mostly in applications that are then accepted. The newest
 * few applications are undecided. So the last event is trailing work, never the outcome.
 * Names are opaque codes when `hidden`, so no verdict may be read.
 */
export interface StatusTruth {
  applications: number;
  accepted: number;
  denied: number;
  cancelled: number;
  /** Undecided applications (the newest): no status yet. */
  undecided: number;
  /** Applications whose last event is an offer withdrawn, though they were accepted. */
  acceptedEndingWithdrawn: number;
}

export const STATUS_NAMES = {
  create: 'Create Application', submit: 'Submit Application', offer: 'Create Offer', send: 'Send Offer', validate: 'Validate Application',
  call: 'Call Customer', pending: 'Application Pending', offerAccepted: 'Offer Accepted', denied: 'Application Denied', refused: 'Offer Refused',
  cancelled: 'Application Cancelled', offerCancelled: 'Offer Cancelled',
} as const;
type Step = keyof typeof STATUS_NAMES;
const HIDDEN: Record<Step, string> = {
  create: 'S01', submit: 'S02', offer: 'S03', send: 'S04', validate: 'S05', call: 'S06', pending: 'S07', offerAccepted: 'S08', denied: 'S09', refused: 'S10', cancelled: 'S11', offerCancelled: 'S12',
};

const H = 3_600_000;

export function statusLog(options: { applications?: number; seed?: number; hidden?: boolean } = {}): { events: WireEvent[]; truth: StatusTruth; names: Record<Step, string> } {
  const n = options.applications ?? 800;
  const rng = new Rng(options.seed ?? 11);
  const r = () => rng.next();
  const names = options.hidden ? HIDDEN : STATUS_NAMES;
  const events: WireEvent[] = [];
  const truth: StatusTruth = { applications: n, accepted: 0, denied: 0, cancelled: 0, undecided: 0, acceptedEndingWithdrawn: 0 };
  const start = Date.UTC(2025, 0, 6, 8);
  for (let a = 0; a < n; a++) {
    const id = `app-${1000 + a}`;
    const steps: [Step, number][] = [];
    let t = start + a * 4 * H;
    const at = (s: Step, dt: number) => {
      t += dt;
      steps.push([s, t]);
    };
    at('create', 0);
    at('submit', (0.2 + r()) * H);
    at('offer', (1 + r() * 24) * H);
    at('send', 0.5 * H);
    // The validation work item opens once the offer is out; it is closed (the same name) after the decision.
    at('validate', (24 + r() * 48) * H);
    // The last applications are still undecided at the log's end.
    if (a >= n - 10) {
      truth.undecided++;
      at('call', r() * H);
      finish(id, steps);
      continue;
    }
    const second = r() < 0.35;
    if (second) {
      // A new offer replaces the first: the first is withdrawn (a part of the case, not the case).
      at('offerCancelled', (2 + r() * 24) * H);
      at('offer', 0.2 * H);
      at('send', 0.5 * H);
    }
    const u = r();
    const decision: 'accepted' | 'denied' | 'cancelled' = u < (second ? 0.85 : 0.6) ? 'accepted' : u < 0.85 ? 'denied' : 'cancelled';
    if (decision === 'accepted') {
      truth.accepted++;
      at('offerAccepted', (24 + r() * 72) * H);
      at('pending', 1000);
      at('validate', (1 + r() * 4) * H);
      // The offer replaced earlier is sometimes withdrawn only now, after the decision: trailing work again.
      if (second && r() < 0.5) {
        at('offerCancelled', (1 + r() * 24) * H);
        truth.acceptedEndingWithdrawn++;
      }
    } else if (decision === 'denied') {
      truth.denied++;
      at('denied', (24 + r() * 72) * H);
      at('refused', 1000);
      at('validate', (1 + r() * 4) * H);
    } else {
      truth.cancelled++;
      at('cancelled', (24 * 20 + r() * 24 * 10) * H);
      at('offerCancelled', 1000);
      at('call', (1 + r() * 4) * H);
    }
    finish(id, steps);
  }
  return { events, truth, names };

  function finish(id: string, steps: [Step, number][]) {
    steps.forEach(([s, time], i) =>
      events.push({ caseId: id, eventId: `${id}-${i}`, activity: names[s], timestamp: new Date(time).toISOString(), resource: `u${1 + Math.floor(r() * 5)}`, attributes: {} }),
    );
  }
}

/**
 * Two alternative routes that both continue to a common end (ship by truck or by air, then deliver and close): the
 * route steps are done once, never together, by every case, and late (two new steps follow them), yet they are no
 * outcome: the process goes on after either to the same end.
 */
export function routeLog(options: { cases?: number; seed?: number; hidden?: boolean } = {}): { events: WireEvent[]; names: Record<'order' | 'pack' | 'truck' | 'air' | 'deliver' | 'close', string> } {
  const n = options.cases ?? 600;
  const rng = new Rng(options.seed ?? 5);
  const r = () => rng.next();
  const names = options.hidden
    ? { order: 'R1', pack: 'R2', truck: 'R3', air: 'R4', deliver: 'R5', close: 'R6' }
    : { order: 'Receive Order', pack: 'Pack Goods', truck: 'Ship by Truck', air: 'Ship by Air', deliver: 'Hand Over Goods', close: 'File Order' };
  const events: WireEvent[] = [];
  const start = Date.UTC(2025, 0, 6, 8);
  for (let c = 0; c < n; c++) {
    const id = `o-${c}`;
    let t = start + c * 2 * H;
    const path = [names.order, names.pack, r() < 0.7 ? names.truck : names.air, names.deliver, names.close];
    path.forEach((a, i) => {
      t += i === 0 ? 0 : (1 + r() * 10) * H;
      events.push({ caseId: id, eventId: `${id}-${i}`, activity: a, timestamp: new Date(t).toISOString(), resource: `u${1 + Math.floor(r() * 4)}`, attributes: {} });
    });
  }
  return { events, names };
}
