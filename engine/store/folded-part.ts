import { contribute } from '../contribution.js';
import { compareEvents, DEFAULT_EVENT_LIMITS, type Event, type EventLimits } from '../event.js';
import { Counters, tallyFromRows } from './codec.js';
import { KeyBook } from './counter-keys.js';
import { DigestSum, EMPTY_DIGEST } from './digest.js';
import type { MemoryPart } from './memory-project.js';
import { prepareBatch } from './prepare.js';
import type { Batch } from './types.js';

/**
 * Part of a log whose cases come whole (a XES trace holds all of its case),
 * folded as they come: each case's events are counted once its batches are
 * in and then let go, so no event outlives its case (a MemoryProject keeps
 * every event to the end; holding 262k of them is most of its garbage
 * collection). What it ends with is the MemoryPart a MemoryProject fed the
 * same records gives, as long as `exact` stays true: no case came in two
 * calls of addCases, no record was a duplicate, no event named an object
 * (a MemoryProject types objects; this does not). When it turns false the
 * caller reads the log through a MemoryProject instead.
 */
export class FoldedPart {
  private readonly counters = new Counters(new KeyBook());
  private readonly caseIds = new Set<string>();
  private readonly digest = new DigestSum(EMPTY_DIGEST);
  private start = Infinity;
  private end = -Infinity;
  private events = 0;
  private rejected = 0;
  exact = true;

  constructor(private readonly limits: EventLimits = DEFAULT_EVENT_LIMITS) {}

  /** Batches holding whole cases, none of them met before. */
  addCases(batches: readonly Batch[]): void {
    const byCase = new Map<string, Event[]>();
    for (const batch of batches) {
      const prepared = prepareBatch(batch, this.limits, false);
      this.rejected += prepared.rejected.length;
      if (prepared.duplicates > 0 || prepared.objects.length > 0 || prepared.relations.length > 0) this.exact = false;
      for (const e of prepared.events) {
        if (e.objects.length > 0) this.exact = false;
        this.digest.add(e.digest, 1);
        if (e.time < this.start) this.start = e.time;
        if (e.time > this.end) this.end = e.time;
        const trace = byCase.get(e.caseId);
        if (trace) trace.push(e);
        else byCase.set(e.caseId, [e]);
      }
      this.events += prepared.events.length;
    }
    for (const [caseId, trace] of byCase) {
      if (this.caseIds.has(caseId)) {
        this.exact = false;
        continue;
      }
      this.caseIds.add(caseId);
      contribute(this.counters, trace.sort(compareEvents), 1);
    }
  }

  part(): MemoryPart {
    return { tally: tallyFromRows(this.counters.rows()), digest: this.digest.toHex(), events: this.events, start: this.start, end: this.end, caseIds: [...this.caseIds], rejected: this.rejected };
  }
}
