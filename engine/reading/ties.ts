import { sketchCount, ZERO_BUCKET } from '../sketch.js';
import { pairKey } from '../tally.js';
import { pct, type Facts } from './facts.js';
import type { LogProfile } from './profile.js';

/**
 * How far the order of steps rests on equal timestamps. Two events of a case
 * at one time are put in the order of the file (event id): on day-level data
 * (a hospital writing lab tests by date) that order is how the log was
 * written, not what happened first. A claim about order among such steps
 * (a rule, an order policy, a zero-hour timing, a repeat) says nothing about
 * the process, so it is made at most `weak`, or not at all.
 *
 * Measured per claim, not per log: a log with few ties can still hold a
 * claim resting on them, and a log with many can hold claims that do not.
 * A hand-off is tied when its wait is 0 (the sketches' zero bucket, below
 * 1 ms); the order of a and b in a case rests on ties when every hand-off
 * between the first a and the first b is tied.
 */
export const TIED = 0.5;

/**
 * Of `zero` hand-offs into b with no wait, those made at one timestamp. A wait runs to b's recorded start where it
 * has one (start/complete pairs), so no wait there says b began as the step before it ended, and b's own time, its
 * completion, lies later: the order is time's, unless b took no time. The counters do not keep which hand-off led
 * to which execution, so the zero-length share of b's executions (those without a recorded start counting as such)
 * stands for each.
 */
export function tiedWaits(f: Facts, b: string, zero: number): number {
  const service = f.tally.serviceTime.get(b);
  const events = f.tally.activities.get(b)?.events ?? 0;
  if (!service || zero === 0 || events === 0) return zero;
  const timed = sketchCount(service);
  const instant = (service.get(ZERO_BUCKET) ?? 0) + Math.max(0, events - timed);
  return zero * Math.min(1, instant / events);
}
/** A claim whose supporting cases rest on ties at least this share is made at most weak. */
export const TIE_DEPENDENT = 0.5;

/**
 * Why a claim on the order of a and b, holding in `holds` of `of` cases and kept at `keep` (a share), could fall by
 * the file order of tied events, or undefined when it cannot: counted against it, the cases whose order rests on
 * ties would take it under its cut. On day-level data every order within a day is the file's, and which of a
 * case's steps share a day the variants do not keep, so every order claim could.
 */
export function orderFragile(ties: Ties, a: string, b: string, holds: number, of: number, keep: number): string | undefined {
  if (ties.profile.dayLevel) return 'times are day-level, so the order of steps within a day is the file\'s';
  const tied = ties.orderDependence(a, b);
  if (tied <= 0) return undefined;
  const both = ties.both(a, b);
  if (tied >= TIE_DEPENDENT || holds - tied * both < keep * of) return `in ${pct(tied)} of the cases with both only equal timestamps order the two (the file's order), enough to break it`;
  return undefined;
}

export class Ties {
  /** Per hop (from * n + to): the share of its hand-offs made at one timestamp. */
  private readonly tiedHop: Float64Array;
  private readonly n: number;
  private readonly cache = new Map<string, number>();

  constructor(
    private readonly f: Facts,
    /** Day-level data: every order within a day is the file's. */
    readonly profile: Pick<LogProfile, 'dayLevel' | 'resolutionHours'> = { dayLevel: false, resolutionHours: 0 },
  ) {
    const n = f.activities.length;
    this.n = n;
    this.tiedHop = new Float64Array(n * n);
    for (const [a, i] of f.idOf) {
      for (const e of f.out.get(a) ?? []) {
        const j = f.idOf.get(e.to);
        if (j === undefined) continue;
        const waits = sketchCount(e.wait);
        if (waits > 0) this.tiedHop[i * n + j] = tiedWaits(f, e.to, e.wait.get(ZERO_BUCKET) ?? 0) / waits;
      }
    }
  }

  /** Hours below which the data's times say nothing (LogProfile.resolutionHours). */
  get resolutionHours(): number {
    return this.profile.resolutionHours;
  }

  /** Cases with both a and b (counted over the variants). */
  both(a: string, b: string): number {
    return this.f.order(a, b).both;
  }

  /** Share of the direct hand-offs a -> b made at one timestamp (0 when there are none). */
  handoff(a: string, b: string): number {
    const e = this.f.tally.edges.get(pairKey(a, b));
    const waits = e ? sketchCount(e.wait) : 0;
    return waits ? tiedWaits(this.f, b, e!.wait.get(ZERO_BUCKET) ?? 0) / waits : 0;
  }

  /**
   * Share of the cases with both a and b whose order between the first a and the first b (whichever comes first)
   * rests on tied hand-offs only: swap the tied events and the order turns. Counted over the variants, each
   * hand-off between them tied as often as its edge's hand-offs are (the variants keep no times), so a case's
   * chance is the product over its hops.
   */
  orderDependence(a: string, b: string): number {
    const key = pairKey(a, b);
    const known = this.cache.get(key);
    if (known !== undefined) return known;
    const ia = this.f.idOf.get(a);
    const ib = this.f.idOf.get(b);
    let both = 0;
    let tied = 0;
    if (ia !== undefined && ib !== undefined && ia !== ib) {
      const n = this.n;
      for (const v of this.f.variants) {
        const ids = v.ids;
        let pa = -1;
        let pb = -1;
        for (let i = 0; i < ids.length && (pa < 0 || pb < 0); i++) {
          if (ids[i] === ia && pa < 0) pa = i;
          else if (ids[i] === ib && pb < 0) pb = i;
        }
        if (pa < 0 || pb < 0) continue;
        both += v.count;
        const from = Math.min(pa, pb);
        const to = Math.max(pa, pb);
        let chance = 1;
        for (let i = from; i < to && chance > 0; i++) {
          const x = ids[i]!;
          const y = ids[i + 1]!;
          chance *= x < 0 || y < 0 ? 0 : this.tiedHop[x * n + y]!;
        }
        tied += chance * v.count;
      }
    }
    const share = both ? tied / both : 0;
    this.cache.set(key, share);
    this.cache.set(pairKey(b, a), share);
    return share;
  }
}
