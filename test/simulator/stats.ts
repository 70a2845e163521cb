import type { WireEvent } from '../../engine/index.js';

/** First emissions per case, in case order (event ids are zero-padded, so they sort in time order). */
export function casesOf(events: Iterable<WireEvent>): Map<string, WireEvent[]> {
  const seen = new Set<string>();
  const byCase = new Map<string, WireEvent[]>();
  for (const e of events) {
    if (seen.has(e.eventId!)) continue;
    seen.add(e.eventId!);
    let trace = byCase.get(e.caseId);
    if (!trace) byCase.set(e.caseId, (trace = []));
    trace.push(e);
  }
  for (const trace of byCase.values()) trace.sort((a, b) => (a.eventId! < b.eventId! ? -1 : 1));
  return byCase;
}

export const millis = (e: WireEvent): number => (typeof e.timestamp === 'number' ? e.timestamp : Date.parse(e.timestamp));

/** Every directly-follows step of every case. */
export function* steps(byCase: Map<string, WireEvent[]>): Generator<[WireEvent, WireEvent, WireEvent[]]> {
  for (const trace of byCase.values()) for (let i = 0; i + 1 < trace.length; i++) yield [trace[i]!, trace[i + 1]!, trace];
}
