import { cmp } from '../event.js';
import { bucketValue, sketchCount, type Sketch } from '../sketch.js';
import type { Escalation } from '../document/types.js';
import { evidence, hoursText, pct, q, ratio, slug, successors, type Facts } from './facts.js';
import { systemAccounts } from './system-accounts.js';

/** A fixed wait: at least this share of a hand-off's waits lie within WINDOW of one duration... */
export const FIXED_SHARE = 0.25;
/** ...the window being this factor either side of it (about +-5%)... */
const WINDOW = 1.05;
/** ...holding at least this share of the waits in the wider neighbourhood (a factor NEAR either side), where evenly
 * spread waits would put about an eighth of them: a spike, not the mode of a smooth spread. */
const SPIKE = 0.6;
const NEAR = 1.5;
/** Hand-offs a fixed wait must rest on. */
const FIXED_MIN = 10;
/** The window must span this many steps of the times' resolution, or a day-level log has spikes at every whole day. */
const RESOLUTION_STEPS = 3;
/** Shortest fixed wait the clock is read from: a step a second after another is one step written twice. */
const MIN_HOURS = 1;
/**
 * Shortest fixed wait read as a timeout: under a day, the working day makes spikes of its own (work finished in the
 * evening, the next step first thing in the morning, 13 hours later).
 */
const TIMEOUT_MIN_HOURS = 24;
/** A timeout is no timeout when more than this share of the other next steps come after it. */
const OUTLASTED = 0.2;
/** Hand-offs a timeout must rest on. */
const TIMEOUT_MIN = 20;

/**
 * Timeouts: a step that follows another after a fixed wait (an offer nobody answered cancelled after 30 days, a
 * reminder sent after 14) is an escalation the log shows by its timing alone: a spike in the hand-off's wait sketch,
 * a quarter or more of its waits within 5% of one duration where the spread around would put an eighth. Whatever
 * takes that step at the other times (a clerk cancelling early) is the same step for another reason, so the
 * evidence counts the spike only. A resource doing a large share of the step and nothing else is named, as the
 * likely system account; the reading is a hypothesis either way, since a schedule also makes spikes.
 */
export function readTimeouts(f: Facts, clock: Clock, taken: Set<string>): { escalation: Escalation; hours: number }[] {
  const out: { escalation: Escalation; hours: number }[] = [];
  // On a clock that ticks in fixed steps every hand-off spikes: none of them is a timeout.
  if (clock.quantized) return out;
  const system = systemAccounts(f.tally.resources);
  for (const a of f.activities) {
    const next = successors(f, a);
    const all = next.reduce((k, e) => k + sketchCount(e.wait), 0);
    for (const e of next) {
      if (e.to === a || taken.has(`${a}\u0000${e.to}`)) continue;
      const spike = clock.spikes.get(`${a}\u0000${e.to}`);
      const n = sketchCount(e.wait);
      // The way most cases go on is the step's usual pace, not a step a wait triggers.
      if (!spike || 2 * n >= all || n < TIMEOUT_MIN || spike.hours < TIMEOUT_MIN_HOURS) continue;
      // A timeout cuts the wait short: the other next steps rarely come later than it (an invoice paid three weeks
      // after it went out was not chased after one: the reminder a week on is a habit, not a trigger).
      const others = all - n;
      const later = next.filter((o) => o !== e).reduce((k, o) => k + countAbove(o.wait, spike.hours * WINDOW, f), 0);
      if (others > 0 && later > OUTLASTED * others) continue;
      const hours = hoursText(spike.hours);
      const days = spike.hours >= 48 ? ` (${hoursText(spike.hours / 24)} days)` : '';
      const account = system.get(e.to);
      const who = account ? `; ${q(account.resource)}, which does nothing else (a system account or a specialist), does ${pct(account.share)} of ${q(e.to)}` : '';
      const method =
        `${spike.count} of the ${n} hand-offs ${q(a)} -> ${q(e.to)} (${pct(spike.count / n)}) come within 5% of ${hours} h, against ${pct(spike.near / n)} within a factor ${NEAR} of it: a spike in the wait sketch (cut: at least ${FIXED_SHARE * 100}% of the waits in the window and ${SPIKE * 100}% of those around it)` +
        (account ? `; ${q(account.resource)} does ${pct(account.share)} of the events of ${q(e.to)} and ${pct(account.focus)} of its own events are that step` : '');
      const escalation: Escalation = {
        id: `timeout-${slug(a)}-${slug(e.to)}`,
        from: a,
        to: e.to,
        trigger: `a fixed wait of about ${hours} hours${days} after ${q(a)} (a timeout or a schedule; hypothesis)${who}`,
        evidence: evidence(spike.count, n, ratio(spike.count, n), 'hypothesis', method),
      };
      out.push({ escalation, hours: spike.hours });
    }
  }
  return out.sort((x, y) => cmp(x.escalation.id, y.escalation.id));
}

/** What the waits say of the clock: the spike of each hand-off, and whether the waits come in fixed steps. */
export interface Clock {
  spikes: Map<string, { hours: number; count: number; near: number }>;
  /** Most hand-offs lie in spikes, over several hand-offs: a simulated or batch clock (fixed delays), not a timeout. */
  quantized: boolean;
  share: number;
  durations: number[];
}
/** Share of all hand-offs in spikes from which the clock is read as ticking in fixed steps, over at least QUANTIZED_EDGES. */
const QUANTIZED_SHARE = 0.5;
const QUANTIZED_EDGES = 3;

export function readClock(f: Facts, resolutionHours: number): Clock {
  const spikes = new Map<string, { hours: number; count: number; near: number }>();
  let all = 0;
  let inSpikes = 0;
  for (const a of f.activities) {
    for (const e of successors(f, a)) {
      const n = sketchCount(e.wait);
      if (e.to === '' || n === 0) continue;
      all += n;
      if (n < FIXED_MIN) continue;
      const spike = spikeOf(e.wait, n, f, resolutionHours);
      if (!spike) continue;
      spikes.set(`${a}\u0000${e.to}`, spike);
      inSpikes += spike.count;
    }
  }
  const share = all ? inSpikes / all : 0;
  const quantized = spikes.size >= QUANTIZED_EDGES && share >= QUANTIZED_SHARE;
  const durations = [...new Set([...spikes.values()].map((s) => Number(hoursText(s.hours))))].sort((x, y) => x - y);
  return { spikes, quantized, share, durations };
}

function spikeOf(wait: Sketch, n: number, f: Facts, resolutionHours: number): { hours: number; count: number; near: number } | undefined {
  const points = [...wait].map(([b, c]) => [f.toHours(bucketValue(b)), c] as const).sort((x, y) => x[0] - y[0]);
  // Prefix sums and moving bounds: linear in the sketch's buckets, since every edge of a large log is looked at.
  const prefix = [0];
  for (const [, c] of points) prefix.push(prefix[prefix.length - 1]! + c);
  const bounds = [0, 0, 0, 0];
  const move = (k: number, limit: number, inclusive: boolean) => {
    while (bounds[k]! < points.length && (inclusive ? points[bounds[k]!]![0] <= limit : points[bounds[k]!]![0] < limit)) bounds[k]!++;
    return bounds[k]!;
  };
  let best: { hours: number; count: number; near: number } | undefined;
  for (const [h] of points) {
    const count = prefix[move(1, h * WINDOW, true)]! - prefix[move(0, h / WINDOW, false)]!;
    const near = prefix[move(3, h * NEAR, true)]! - prefix[move(2, h / NEAR, false)]!;
    if (h < MIN_HOURS || h * (WINDOW - 1 / WINDOW) < RESOLUTION_STEPS * resolutionHours) continue;
    if (count < FIXED_MIN || count < FIXED_SHARE * n || count < SPIKE * near) continue;
    if (!best || count > best.count) best = { hours: h, count, near };
  }
  return best;
}

/** Waits of a sketch longer than `hours`. */
function countAbove(wait: Sketch, hours: number, f: Facts): number {
  let k = 0;
  for (const [b, c] of wait) if (f.toHours(bucketValue(b)) > hours) k += c;
  return k;
}
