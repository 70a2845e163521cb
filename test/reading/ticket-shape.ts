import { Rng } from '../../connectors/simulator/random.js';

/**
 * A simulated ticket log written as a ticketing system exports it to XES (issue 31), with a stated truth: the activity
 * is the ticket's status (accepted, queued, completed) and lifecycle:transition its sub-status (in progress, assigned,
 * wait, awaiting assignment, closed). The waits live in the sub-states: a ticket assigned to another line waits
 * ~20 days before work goes on, one put on wait ~10 days before it closes, one in progress closes within the hour.
 * An extraction writes 'Unmatched' for a status it could not map, mid-trace; '-' for a missing performer.
 * org:group is on every event; org:role only on the first line's events (the third line's groups have none).
 * 'product' is a per-case category: many tickets share one, open at the same time.
 * Names are opaque codes when `hidden` (statuses S1.., sub-statuses T1..), so no claim may rest on words; the
 * placeholder and '-' are literal in both (that is how extractions write them).
 */
export interface TicketTruth {
  cases: number;
  /** Hours in the sub-state before the next event, as generated (medians of uniform 0.8..1.2 × these). */
  assignedHours: number;
  waitHours: number;
  progressToCloseHours: number;
  unmatchedEvents: number;
  unmatchedCases: number;
  dashEvents: number;
  events: number;
  roleEvents: number;
  /** Distinct products (a per-case category shared by many tickets, open at the same time). */
  products: number;
}

export const TICKET_NAMES = { accepted: 'Accepted', queued: 'Queued', completed: 'Completed', progress: 'In Progress', assigned: 'Assigned', wait: 'Wait', awaiting: 'Awaiting Assignment', closed: 'Closed' } as const;
const HIDDEN: Record<keyof typeof TICKET_NAMES, string> = { accepted: 'S1', queued: 'S2', completed: 'S3', progress: 'T1', assigned: 'T2', wait: 'T3', awaiting: 'T4', closed: 'T5' };
export const UNMATCHED = 'Unmatched';
const PRODUCTS = 250;

export function ticketLog(options: { cases?: number; seed?: number; hidden?: boolean } = {}): { xes: string; truth: TicketTruth; names: Record<keyof typeof TICKET_NAMES, string> } {
  const n = options.cases ?? 400;
  const rng = new Rng(options.seed ?? 11);
  const r = () => rng.next();
  const names = options.hidden ? HIDDEN : TICKET_NAMES;
  const H = 3_600_000;
  const truth: TicketTruth = { cases: n, assignedHours: 480, waitHours: 240, progressToCloseHours: 0.5, unmatchedEvents: 0, unmatchedCases: 0, dashEvents: 0, events: 0, roleEvents: 0, products: 0 };
  const around = (hours: number) => hours * H * (0.8 + 0.4 * r());
  const traces: string[] = [];
  const start = Date.UTC(2024, 0, 8, 8);
  const products = new Set<string>();
  for (let c = 0; c < n; c++) {
    let t = start + c * 3 * H + Math.floor(r() * H);
    const rows: string[] = [];
    // Skewed as products are: a few carry many tickets, most a few (about 3 tickets per product on average).
    const product = `P${String(1 + Math.floor(PRODUCTS * r() * r())).padStart(3, '0')}`;
    products.add(product);
    const event = (status: string, sub: string, line: 1 | 3) => {
      const dash = r() < 0.03;
      const resource = dash ? '-' : `u${1 + Math.floor(r() * 10)}`;
      if (dash) truth.dashEvents++;
      const group = line === 1 ? `G${1 + Math.floor(r() * 2)}` : `G${3 + Math.floor(r() * 2)}`;
      // The role is filled by the first line's tool only.
      const role = line === 1 ? `<string key="org:role" value="R${1 + Math.floor(r() * 4)}"/>` : '';
      if (role) truth.roleEvents++;
      truth.events++;
      rows.push(
        `<event><string key="concept:name" value="${status}"/><string key="lifecycle:transition" value="${sub}"/><string key="org:resource" value="${resource}"/><string key="org:group" value="${group}"/>${role}<date key="time:timestamp" value="${new Date(t).toISOString()}"/></event>`,
      );
    };
    event(names.accepted, names.progress, 1);
    if (r() < 0.35) {
      t += Math.floor(0.3 * H);
      event(names.queued, names.awaiting, 1);
      t += Math.floor(around(12));
      event(names.accepted, names.progress, 1);
    }
    if (r() < 0.08) {
      // An unmapped status mid-trace: the extraction's gap, not a step.
      t += Math.floor(0.2 * H);
      rows.push(
        `<event><string key="concept:name" value="${UNMATCHED}"/><string key="lifecycle:transition" value="${UNMATCHED}"/><string key="org:resource" value="u1"/><string key="org:group" value="G1"/><date key="time:timestamp" value="${new Date(t).toISOString()}"/></event>`,
      );
      truth.unmatchedEvents++;
      truth.unmatchedCases++;
      truth.events++;
      t += Math.floor(around(120));
      event(names.accepted, names.progress, 1);
    }
    if (r() < 0.3) {
      t += Math.floor(0.2 * H);
      event(names.accepted, names.assigned, 3);
      t += Math.floor(around(truth.assignedHours));
      event(names.accepted, names.progress, 1);
    }
    if (r() < 0.3) {
      t += Math.floor(0.2 * H);
      event(names.accepted, names.wait, 3);
      t += Math.floor(around(truth.waitHours));
    } else t += Math.floor(around(truth.progressToCloseHours));
    event(names.completed, names.closed, 1);
    traces.push(`<trace><string key="concept:name" value="ticket-${1000 + c}"/><string key="product" value="${product}"/>${rows.join('')}</trace>`);
  }
  truth.products = products.size;
  const xes = `<?xml version="1.0" encoding="UTF-8" ?><log xes.version="1.0">${traces.join('')}</log>`;
  return { xes, truth, names };
}
