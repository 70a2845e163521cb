import type { Event } from './event.js';
import { bucketOf } from './sketch.js';
import { caseFold, choiceValue, END, isRoleAttribute, MAX_CHOICE_ATTRIBUTES, pairKey, roleValue, START, variantKey, type Tally } from './tally.js';
import { HOUR_MS } from './time.js';
import { counterKey, tallyFromRows, counterRows, type Counters } from './store/codec.js';

/** A case's events in case order (see compareEvents). */
export type Trace = readonly Event[];

/**
 * The version of what a case contributes. Raise it whenever step or finish
 * count something new or differently: a store opened with counters of an older
 * version rebuilds them from its kept events.
 */
export const COUNTING_VERSION = 2;

/** How long from one time to another; the working-time calendar swaps this in. */
export type Duration = (fromMillis: number, toMillis: number) => number;
export const clockDuration: Duration = (from, to) => to - from;

/** counters[key] += by, dropping entries that reach zero. */
export function bump(into: Counters, key: string, by: number): void {
  const next = (into.get(key) ?? 0) + by;
  if (next === 0) into.delete(key);
  else into.set(key, next);
}

/**
 * What one case contributes to the project's counters, as a fold over its
 * events in case order. `step` adds what one more event adds; `finish` adds
 * what depends on where the case ends (the edge to END, the variant, the
 * duration). A case's contribution is step over every event, then finish.
 *
 * The fold is what makes appends cheap: the store keeps a case's fold and,
 * when new events come after the last one, applies finish(−1), step(+1) for
 * each new event, finish(+1). Anything else (a late event, a replaced body)
 * retracts the whole old contribution and adds the new one. Both are exact
 * because every counter is a sum over cases; "once per case" counters are
 * remembered in `seen`. New counters belong in step or finish, and nowhere else.
 */
export class CaseFold {
  private readonly seen = new Set<string>();
  private readonly perActivity = new Map<string, number>();
  private readonly path: string[] = [];
  private first: Event | undefined;
  private last: Event | undefined;
  /** Reading counters: attribute → pairKey(attribute, counted value) known so far, and whether the last event was its activity's first visit. */
  private readonly known = new Map<string, string>();
  private fold = -1;
  private lastIsFirstVisit = false;
  private readonly byResource = new Map<string, Set<string>>();

  constructor(private readonly duration: Duration = clockDuration) {}

  get size(): number {
    return this.path.length;
  }

  /** The time of the case's last event (-Infinity when empty). */
  get lastTime(): number {
    return this.last ? this.last.time : -Infinity;
  }

  get lastEvent(): Event | undefined {
    return this.last;
  }

  step(ev: Event, into: Counters, sign: 1 | -1): void {
    const once = (key: string) => {
      if (this.seen.has(key)) return;
      this.seen.add(key);
      bump(into, key, sign);
    };
    const a = ev.activity;
    const prev = this.last;
    if (!prev) {
      this.first = ev;
      bump(into, counterKey('cases', '', '', 0), sign);
    }
    bump(into, counterKey('events', '', '', 0), sign);
    const seenBefore = this.perActivity.get(a) ?? 0;
    this.perActivity.set(a, seenBefore + 1);
    if (seenBefore === 0) bump(into, counterKey('activity.cases', a, '', 0), sign);
    if (seenBefore === 1) bump(into, counterKey('activity.repeating', a, '', 0), sign);

    const from = prev ? prev.activity : START;
    bump(into, counterKey('edge.events', from, a, 0), sign);
    once(counterKey('edge.cases', from, a, 0));
    if (prev) {
      const b = bucketOf(this.duration(prev.time, ev.time));
      bump(into, counterKey('edge.wait', from, a, b), sign);
    }
    if (ev.resource !== undefined) {
      bump(into, counterKey('resource.events', a, ev.resource, 0), sign);
      once(counterKey('resource.cases', a, ev.resource, 0));
    }
    if (ev.objects.length) {
      for (const type of new Set(ev.objects.map((o) => o.type))) {
        bump(into, counterKey('object_type.events', a, type, 0), sign);
        once(counterKey('object_type.cases', a, type, 0));
      }
    }
    this.readingStep(ev, into, sign, once, seenBefore === 0);
    this.path.push(a);
    this.last = ev;
  }

  /** The interpreter's counters (see Tally.choices, sameResource): choices at first visits, shared resources. */
  private readingStep(ev: Event, into: Counters, sign: 1 | -1, once: (key: string) => void, firstVisit: boolean): void {
    if (this.last && this.lastIsFirstVisit) this.countChoice(this.last.activity, ev.activity, into, sign);
    for (const name in ev.attributes) {
      const value = name === '' ? undefined : choiceValue(ev.attributes[name]!);
      if (value !== undefined && (this.known.has(name) || this.known.size < MAX_CHOICE_ATTRIBUTES)) this.known.set(name, pairKey(name, value));
      if (isRoleAttribute(name)) {
        const role = roleValue(ev.attributes[name]!);
        if (role !== undefined) {
          const k2 = pairKey(name, role);
          bump(into, counterKey('role.events', ev.activity, k2, 0), sign);
          once(counterKey('role.cases', ev.activity, k2, 0));
        }
      }
    }
    this.lastIsFirstVisit = firstVisit;
    if (ev.resource === undefined) return;
    let done = this.byResource.get(ev.resource);
    if (!done) this.byResource.set(ev.resource, (done = new Set()));
    if (done.has(ev.activity)) return;
    for (const other of done) {
      once(other < ev.activity ? counterKey('same_resource', other, ev.activity, 0) : counterKey('same_resource', ev.activity, other, 0));
    }
    done.add(ev.activity);
  }

  private countChoice(at: string, next: string, into: Counters, sign: 1 | -1): void {
    if (this.fold < 0) this.fold = caseFold(this.first!.caseId);
    const k1 = pairKey(at, next);
    bump(into, counterKey('choice', k1, pairKey('', ''), this.fold), sign);
    for (const k2 of this.known.values()) bump(into, counterKey('choice', k1, k2, this.fold), sign);
  }

  finish(into: Counters, sign: 1 | -1): void {
    const last = this.last;
    if (!last) return;
    // The edge to END is the one edge a case has exactly once, so it needs no `seen`.
    bump(into, counterKey('edge.events', last.activity, END, 0), sign);
    bump(into, counterKey('edge.cases', last.activity, END, 0), sign);
    bump(into, counterKey('variant', variantKey(this.path), '', 0), sign);
    bump(into, counterKey('duration', '', '', bucketOf(this.duration(this.first!.time, last.time))), sign);
    bump(into, counterKey('last', last.activity, '', Math.floor(last.time / HOUR_MS)), sign);
  }
}

/** Adds sign × a whole case's contribution; returns the case's fold for later appends. */
export function contribute(into: Counters, trace: Trace, sign: 1 | -1, duration: Duration = clockDuration): CaseFold {
  const fold = new CaseFold(duration);
  for (const ev of trace) fold.step(ev, into, sign);
  fold.finish(into, sign);
  return fold;
}

/** What one case adds to the project's tally, as a structured tally (tests, rebuilds). */
export function contribution(trace: Trace, duration: Duration = clockDuration): Tally {
  const c: Counters = new Map();
  contribute(c, trace, 1, duration);
  return tallyFromRows(counterRows(c));
}
