import { cmp, type Event } from '../event.js';
import { backboneOf } from '../reading/backbone.js';
import { factsOf } from '../reading/facts.js';
import { readEnds } from '../reading/outcomes.js';
import { quantile, sketchCount } from '../sketch.js';
import { HOUR_MS } from '../time.js';
import type { ProjectSnapshot } from '../store/types.js';
import type { LiveActivity, LiveState } from './live-types.js';

export type { LiveActivity, LiveState };

const hours = (ms: number) => Math.round((ms / HOUR_MS) * 1e6) / 1e6;

/**
 * The cases in progress, per activity they sit at: the live state beside the
 * document. A case is open by the document's own outcome rule (readEnds): it
 * stopped at an activity that is no ending and names no failure, and its last
 * event's hour is recent for that activity. Here the rule is applied case by
 * case to every kept case's last event, so the counts are exact and equal the
 * document's `open` outcomes of the same data version (one pass over the
 * events: linear), and each open case's wait is known to the millisecond
 * (the counters keep last events by the hour only, while a live stream's
 * steps may be seconds apart).
 */
export function liveState(snapshot: ProjectSnapshot, traces: Iterable<Event[]>): LiveState {
  const tally = snapshot.tally;
  const f = factsOf(tally, (millis) => millis / HOUR_MS);
  const ends = readEnds(f, backboneOf(f), snapshot.periodEnd);
  const statuses = ends.status ? new Set(ends.status.members) : undefined;
  const waits = new Map<string, number[]>();
  let cases = 0;
  for (const trace of traces) {
    if (trace.length === 0) continue;
    cases += 1;
    // A case that reached an outcome status is finished, whatever work trails it.
    if (statuses && trace.some((e) => statuses.has(e.activity))) continue;
    const last = trace[trace.length - 1]!;
    const cut = ends.openCut.get(last.activity);
    if (cut === undefined) continue;
    const age = ends.logEnd - (Math.floor(last.time / HOUR_MS) + 1) * HOUR_MS;
    if (age > cut) continue;
    const list = waits.get(last.activity) ?? [];
    list.push(Math.max(0, ends.logEnd - last.time));
    waits.set(last.activity, list);
  }
  const activities: LiveActivity[] = [];
  let openCases = 0;
  for (const [activity, list] of waits) {
    list.sort((a, b) => a - b);
    const next = tally.activities.get(activity)?.timeToNext;
    const usual = next && sketchCount(next) > 0 ? quantile(next, 0.5) : 0;
    openCases += list.length;
    activities.push({
      activity,
      openCases: list.length,
      waitedHours: { median: hours(list[Math.floor((list.length - 1) / 2)]!), max: hours(list[list.length - 1]!) },
      usualWaitHours: usual / HOUR_MS,
      overUsual: usual > 0 ? list.filter((w) => w > usual).length : 0,
    });
  }
  activities.sort((a, b) => b.openCases - a.openCases || cmp(a.activity, b.activity));
  return {
    asOf: cases > 0 && snapshot.periodEnd !== undefined ? new Date(ends.logEnd).toISOString() : null,
    cases,
    openCases,
    activities,
    method:
      'open cases by the outcome rule of the document (see its outcomes assumption), applied to each kept case\'s last event: ' +
      'a case is open when it stopped at an activity that is no ending and names no failure, and its last event is recent there; ' +
      'waits run from that event to the log\'s end (asOf), in clock hours; the usual wait is the median time from the activity to the next step',
  };
}
