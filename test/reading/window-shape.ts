import { Rng } from '../../connectors/simulator/random.js';
import type { WireEvent } from '../../engine/index.js';

/**
 * Simulated logs with a stated truth about the observation window (issue 31): how an extract is cut shapes what its
 * cases can show. A repair shop: register, analyse, repair (simple or complex), test (failed tests send the item back
 * to repair), archive; cases arrive every half hour over 20 days and take a few hours.
 *
 * - `cut`: the extract was taken at a date while the test desk had a backlog: the items registered in the last few
 *   days were repaired but wait for a test (or, a few, for repair) when the log was cut. They are in progress
 *   (censored), though their last event is days old, far past any wait between two steps.
 * - `abandoned`: the control. Some items are given up after repair (the customer never collects them), spread over
 *   the whole period; the extract comes a day after the last case finished. They stopped long ago: stalled.
 * - `closed`: an extract of closed tickets: tickets opened over four years (long-tailed durations), kept only when
 *   closed in the last four months. Every case ends with the closing step: that is the filter, not a success rate.
 *
 * Names are opaque codes when `hidden`.
 */
export interface WindowTruth {
  cases: number;
  finished: number;
  /** Cases in progress when the log was cut (censored), by the step they wait after. */
  running: number;
  /** Cases given up long before the cut. */
  abandoned: number;
}

export const REPAIR_NAMES = {
  register: 'Register Item', analyse: 'Analyse Defect', simple: 'Repair Simple', complex: 'Repair Complex', test: 'Test Repair', archive: 'Archive Item',
} as const;
type RepairStep = keyof typeof REPAIR_NAMES;
const REPAIR_CODES: Record<RepairStep, string> = { register: 'W01', analyse: 'W02', simple: 'W03', complex: 'W04', test: 'W05', archive: 'W06' };

export const TICKET_NAMES = { open: 'Open Ticket', assign: 'Assign Ticket', work: 'Work On Ticket', wait: 'Wait For User', close: 'Close Ticket' } as const;
type TicketStep = keyof typeof TICKET_NAMES;
const TICKET_CODES: Record<TicketStep, string> = { open: 'T1', assign: 'T2', work: 'T3', wait: 'T4', close: 'T5' };

const H = 3_600_000;
const DAY = 24 * H;

export function repairLog(shape: 'cut' | 'abandoned', options: { cases?: number; seed?: number; hidden?: boolean } = {}): { events: WireEvent[]; truth: WindowTruth; names: Record<RepairStep, string> } {
  const n = options.cases ?? 960;
  const rng = new Rng(options.seed ?? 7);
  const r = () => rng.next();
  const names = options.hidden ? REPAIR_CODES : REPAIR_NAMES;
  const events: WireEvent[] = [];
  const truth: WindowTruth = { cases: n, finished: 0, running: 0, abandoned: 0 };
  const start = Date.UTC(2025, 2, 3, 8);
  // The backlog: items registered in the last 3 of the 20 days wait for the test desk when the log is cut.
  const backlogFrom = start + 17 * DAY;
  for (let c = 0; c < n; c++) {
    const id = `item-${10_000 + c}`;
    let t = start + c * 0.5 * H + r() * 0.4 * H;
    const steps: [RepairStep, number][] = [];
    const at = (s: RepairStep, dt: number) => {
      t += dt;
      steps.push([s, t]);
    };
    at('register', 0);
    at('analyse', (0.1 + r() * 0.3) * H);
    const complex = r() < 0.45;
    at(complex ? 'complex' : 'simple', (0.1 + r() * 0.4) * H);
    if (shape === 'cut' && steps[0]![1] >= backlogFrom) {
      // Waiting for the test desk (a few tested once, failed, and wait for repair again) when the log is cut.
      if (r() < 0.2) at('test', (0.2 + r() * 0.3) * H);
      truth.running++;
      push(id, steps);
      continue;
    }
    if (shape === 'abandoned' && r() < 0.08) {
      truth.abandoned++;
      push(id, steps);
      continue;
    }
    // Tests fail now and then; a failed item is repaired again and tested again.
    for (;;) {
      at('test', (0.2 + r() * 0.5) * H);
      if (r() < (complex ? 0.1 : 0.4)) at(complex ? 'complex' : 'simple', (0.1 + r() * 0.3) * H);
      else break;
    }
    at('archive', (0.05 + r() * 0.1) * H);
    truth.finished++;
    push(id, steps);
  }
  return { events, truth, names };

  function push(id: string, steps: [RepairStep, number][]) {
    steps.forEach(([s, time], i) =>
      events.push({ caseId: id, eventId: `${id}-${i}`, activity: names[s], timestamp: new Date(time).toISOString(), resource: `r${1 + Math.floor(r() * 6)}`, attributes: {} }),
    );
  }
}

export function closedLog(options: { tickets?: number; seed?: number; hidden?: boolean } = {}): { events: WireEvent[]; truth: { cases: number; closed: number }; names: Record<TicketStep, string> } {
  const rng = new Rng(options.seed ?? 13);
  const r = () => rng.next();
  const names = options.hidden ? TICKET_CODES : TICKET_NAMES;
  const events: WireEvent[] = [];
  const from = Date.UTC(2021, 0, 4, 9);
  const windowStart = from + 1430 * DAY;
  const windowEnd = windowStart + 120 * DAY;
  const wanted = options.tickets ?? 900;
  let kept = 0;
  // Tickets are opened over four years and four months; most close within weeks, many stay open a year or more.
  for (let k = 0; kept < wanted && k < 1_000_000; k++) {
    const opened = from + r() * (1550 * DAY);
    const duration = (r() < 0.6 ? -Math.log(1 - r()) * 30 : -Math.log(1 - r()) * 400) * DAY + 2 * H;
    const closed = opened + duration;
    // The extract: the tickets closed in the window.
    if (closed < windowStart || closed >= windowEnd) continue;
    const id = `tk-${100_000 + k}`;
    const steps: [TicketStep, number][] = [['open', opened], ['assign', opened + (0.2 + r()) * H]];
    const mid = steps[1]![1] + (duration - 2 * H) * (0.2 + 0.6 * r());
    if (r() < 0.3) steps.push(['wait', (steps[1]![1] + mid) / 2]);
    steps.push(['work', mid], ['close', closed]);
    steps.sort((a, b) => a[1] - b[1]);
    steps.forEach(([s, time], i) => events.push({ caseId: id, eventId: `${id}-${i}`, activity: names[s], timestamp: new Date(time).toISOString(), resource: `g${1 + Math.floor(r() * 4)}`, attributes: {} }));
    kept++;
  }
  return { events, truth: { cases: kept, closed: kept }, names };
}
