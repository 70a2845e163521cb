import { cmp } from '../event.js';
import { splitKey } from '../tally.js';
import { HOUR_MS } from '../time.js';
import type { Outcome } from '../document/types.js';
import { pct, q, quantile, ratio, slug, uniqueIds, type Facts } from './facts.js';

/** Name fragments read as a failed or a successful ending (a guess from words, hence `hypothesis`). */
export const FAILURE_WORDS = /cancel|reject|declin|fail|abort|error|den(y|ied)|refus|withdr|terminat|void|revok|expir|invalid|duplicate|lost|unsuccess|abandon/i;
export const SUCCESS_WORDS = /clos|complet|pay|paid|approv|accept|resolv|finish|done|deliver|settl|ship|archiv|success|won|fulfil|releas|grant/i;
/** An open case's last event is no older than this quantile of the usual time from its activity to the next step. */
export const OPEN_QUANTILE = 0.99;

export interface EndReading {
  outcomes: Outcome[];
  /** Activities seen ending finished cases, with their kind. */
  ends: Map<string, Outcome['kind']>;
  successEnds: string[];
  failureEnds: string[];
  openCases: number;
  stalledCases: number;
  method: string;
}

/**
 * Where cases stop. A case stopping at x is recent when its last event is no
 * older (from the period end, to the hour) than the OPEN_QUANTILE of the
 * time from x to the next step; x is an end seen in finished cases when more
 * cases stop there long ago than recently (or at least 2 and 0.5% of cases
 * do). Recent cases at other activities are open; quiet ones are `other`.
 */
export function readEnds(f: Facts, periodEnd: number | undefined): EndReading {
  const counted = new Map<string, { recent: number; old: number }>();
  const cut = new Map<string, number>();
  // Counts are whole numbers, so they are summed in the map's order; the activities are then taken
  // in sorted order (the order of the sorted keys: activity, then U+0000, then the hour).
  for (const [key, n] of f.tally.lastEvents) {
    const [activity, hourText] = splitKey(key);
    if (!cut.has(activity)) {
      const next = f.tally.activities.get(activity)?.timeToNext;
      cut.set(activity, next && next.size ? quantile(next, OPEN_QUANTILE) : 0);
    }
    const age = Math.max(0, (periodEnd ?? 0) - (Number(hourText) + 1) * HOUR_MS);
    const c = cut.get(activity)!;
    let s = counted.get(activity);
    if (!s) counted.set(activity, (s = { recent: 0, old: 0 }));
    if (c > 0 && age <= c) s.recent += n;
    else s.old += n;
  }
  const stops = new Map([...counted].sort((a, b) => cmp(a[0], b[0])));
  const minOld = Math.max(2, Math.ceil(0.005 * f.cases));
  const mainEnd = f.variants[0]?.path[f.variants[0].path.length - 1];
  const ends = new Map<string, Outcome['kind']>();
  const items: Outcome[] = [];
  let openCases = 0;
  let stalledCases = 0;
  for (const [x, s] of stops) {
    if (s.old > s.recent || s.old >= minOld) {
      const kind: Outcome['kind'] = FAILURE_WORDS.test(x) ? 'failure' : SUCCESS_WORDS.test(x) || x === mainEnd ? 'success' : 'other';
      ends.set(x, kind);
      items.push({ id: `${kind}-${slug(x)}`, end_activity: x, kind, cases: s.old + s.recent, share: ratio(s.old + s.recent, f.cases) });
    } else {
      if (s.recent) items.push({ id: `open-${slug(x)}`, end_activity: x, kind: 'open', cases: s.recent, share: ratio(s.recent, f.cases) });
      if (s.old) items.push({ id: `other-${slug(x)}`, end_activity: x, kind: 'other', cases: s.old, share: ratio(s.old, f.cases) });
      openCases += s.recent;
      stalledCases += s.old;
    }
  }
  items.sort((a, b) => b.cases - a.cases || cmp(a.end_activity, b.end_activity) || cmp(a.kind, b.kind));
  const successEnds = [...ends].filter(([, k]) => k === 'success').map(([a]) => a).sort(cmp);
  const failureEnds = [...ends].filter(([, k]) => k === 'failure').map(([a]) => a).sort(cmp);
  const method =
    `a case stopping at activity x is recent when its last event is no older than the ${OPEN_QUANTILE * 100}th percentile of the time from x to the next step ` +
    `(measured back from the period end, to the hour); x is an end seen in finished cases when more cases stop there long ago than recently, or at least ${minOld} do; ` +
    `cases recent at any other activity are open, quiet ones are other (stalled); an end is failure when its name reads as one (${FAILURE_WORDS.source}), ` +
    `success when its name reads as one (${SUCCESS_WORDS.source}) or it ends the commonest variant${mainEnd ? ` (${q(mainEnd)})` : ''}, else other`;
  return { outcomes: uniqueIds(items), ends, successEnds, failureEnds, openCases, stalledCases, method };
}

export function describeOpenCut(f: Facts, ends: EndReading): string {
  const total = ends.openCases + ends.stalledCases;
  return `${ends.openCases} cases (${pct(ratio(ends.openCases, f.cases))}) are open and ${ends.stalledCases} stalled among ${total} that stopped outside the ends seen in finished cases`;
}
