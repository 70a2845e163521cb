import { compareEvents, type Event } from './event.js';
import { bucketOf } from './sketch.js';
import { caseFold, choiceValue, END, isRoleAttribute, pairKey, roleValue, START, type Tally } from './tally.js';
import { FollowedAttributes } from './profile-fold.js';
import { HOUR_MS } from './time.js';
import { waitEnd } from './lifecycle.js';
import { Counters, tallyFromRows } from './store/codec.js';
import { KeyBook, type VariantNode } from './store/counter-keys.js';

/** A case's events in case order (see compareEvents). */
export type Trace = readonly Event[];

/**
 * The version of what a case contributes. Raise it whenever step or finish
 * count something new or differently: a store opened with counters of an older
 * version rebuilds them from its kept events.
 */
export const COUNTING_VERSION = 6;

/** How long from one time to another; the working-time calendar swaps this in. */
export type Duration = (fromMillis: number, toMillis: number) => number;
export const clockDuration: Duration = (from, to) => to - from;

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
  // A stream keeps a fold per open case, so its state is kept small: ids and
  // strings (shared through the book) rather than events, flat arrays rather
  // than maps (a V8 Map or a pushed-to array costs a few hundred bytes even
  // when nearly empty), collections made only when first needed.
  /** Ids of the once-per-case counters met so far (an array while small). */
  private seen: number[] | Set<number> = [];
  /** Visits per activity, kept once the case is long; a shorter case counts them in `path`. */
  private perActivity: Map<string, number> | undefined;
  private readonly path: string[] = [];
  private caseId = '';
  private firstAt = Infinity;
  private lastAt = -Infinity;
  private lastKey = '';
  /** The attributes followed (their last counted values, read by the choice counters, and the log profile's state), and whether the last event was its activity's first visit. */
  private attrs: FollowedAttributes | undefined;
  private fold = -1;
  private lastIsFirstVisit = false;
  /** Resource, activity, … : the activities each resource did in this case. */
  private byResource: string[] | undefined;
  /** The path so far, as a node of the book's variant trie. */
  private variant: VariantNode;
  /**
   * For a case whose older events were pruned: the latest of them (case order). An event not after
   * it is stepped after them anyway, without re-sequencing (engine/store/retention.ts).
   */
  prunedUntil: { time: number; key: string } | undefined;

  constructor(
    /** The book the fold's counter ids come from: the Counters it adds into must share it. */
    readonly book: KeyBook,
    private readonly duration: Duration = clockDuration,
  ) {
    this.variant = book.variantRoot;
  }

  get size(): number {
    return this.path.length;
  }

  /** The time of the case's first event (Infinity when empty). */
  get firstTime(): number {
    return this.firstAt;
  }

  /** The time of the case's last event (-Infinity when empty). */
  get lastTime(): number {
    return this.lastAt;
  }

  /** Whether the event comes after every event folded so far (so stepping it is an append). */
  precedes(e: { time: number; key: string }): boolean {
    return this.path.length === 0 || compareEvents({ time: this.lastAt, key: this.lastKey }, e) < 0;
  }

  step(ev: Event, into: Counters, sign: 1 | -1): void {
    const book = this.book;
    const activity = book.activity(ev.activity);
    const a = activity.name;
    const prev = this.path.length ? this.path[this.path.length - 1]! : undefined;
    if (prev === undefined) {
      this.caseId = ev.caseId;
      this.firstAt = ev.time;
      into.add(book.cases, sign);
    }
    into.add(book.events, sign);
    FollowedAttributes.event(book, ev.time, into, sign);
    const seenBefore = this.visits(a);
    if (seenBefore === 0) into.add(activity.cases, sign);
    if (seenBefore === 1) into.add(activity.repeating, sign);

    const edge = book.edge(prev ?? START, a);
    into.add(edge.events, sign);
    this.once(edge.cases, into, sign);
    // The wait is idle time: up to the step's recorded start, when the log has one (start/complete pairs).
    if (prev !== undefined) into.add(edge.wait(bucketOf(this.duration(this.lastAt, waitEnd(ev, this.lastAt)))), sign);
    if (ev.resource !== undefined) {
      const keys = activity.resource(ev.resource);
      into.add(keys.events, sign);
      this.once(keys.cases, into, sign);
    }
    if (ev.objects.length) {
      for (const type of new Set(ev.objects.map((o) => o.type))) {
        into.add(this.book.id('object_type.events', a, type, 0), sign);
        this.once(this.book.id('object_type.cases', a, type, 0), into, sign);
      }
    }
    this.readingStep(ev, prev, into, sign, seenBefore === 0);
    this.path.push(a);
    if (this.perActivity) this.perActivity.set(a, seenBefore + 1);
    else if (this.path.length > LONG_CASE) this.perActivity = countVisits(this.path);
    this.variant = book.variantStep(this.variant, a);
    this.lastAt = ev.time;
    this.lastKey = ev.key;
  }

  /** How often the case visited an activity before: exact for long cases, else 0, 1 or 2 (meaning two or more), all that step asks. */
  private visits(a: string): number {
    if (this.perActivity) return this.perActivity.get(a) ?? 0;
    const first = this.path.indexOf(a);
    return first < 0 ? 0 : this.path.indexOf(a, first + 1) < 0 ? 1 : 2;
  }

  /** Counters counted once per case: the first step that meets one bumps it. */
  private once(id: number, into: Counters, sign: 1 | -1): void {
    const seen = this.seen;
    if (Array.isArray(seen)) {
      if (seen.includes(id)) return;
      seen.push(id);
      // A long case meets many: past a few dozen a set is cheaper to search.
      if (seen.length > 48) this.seen = new Set(seen);
    } else {
      if (seen.has(id)) return;
      seen.add(id);
    }
    into.add(id, sign);
  }

  /** The interpreter's counters (see Tally.choices, sameResource): choices at first visits, shared resources. */
  private readingStep(ev: Event, prev: string | undefined, into: Counters, sign: 1 | -1, firstVisit: boolean): void {
    if (prev !== undefined && this.lastIsFirstVisit) this.countChoice(prev, ev.activity, into, sign);
    const attributes = ev.attributes;
    for (const name in attributes) {
      if (name === '') continue;
      const raw = attributes[name]!;
      const value = choiceValue(raw);
      const pair = value === undefined ? undefined : this.book.pair(name, value);
      (this.attrs ??= new FollowedAttributes()).attribute(this.book, name, raw, pair, ev, prev === undefined, into, sign, this.duration);
      if (isRoleAttribute(name)) {
        const role = roleValue(raw);
        if (role !== undefined) {
          const k2 = pairKey(name, role);
          into.add(this.book.id('role.events', ev.activity, k2, 0), sign);
          this.once(this.book.id('role.cases', ev.activity, k2, 0), into, sign);
        }
      }
    }
    this.lastIsFirstVisit = firstVisit;
    if (ev.resource === undefined) return;
    const r = ev.resource;
    const a = ev.activity;
    const done = (this.byResource ??= []);
    for (let i = 0; i < done.length; i += 2) if (done[i] === r && done[i + 1] === a) return;
    for (let i = 0; i < done.length; i += 2) {
      if (done[i] !== r) continue;
      const other = done[i + 1]!;
      this.once(this.book.activity(a).sameResource(other), into, sign);
    }
    done.push(this.book.resourceName(r), this.book.activity(a).name);
  }

  private countChoice(at: string, next: string, into: Counters, sign: 1 | -1): void {
    if (this.fold < 0) this.fold = caseFold(this.caseId);
    const edge = this.book.edge(at, next);
    into.add(edge.choice(this.fold, ALL_CASES), sign);
    const list = this.attrs?.list;
    if (list) {
      for (let i = 1; i < list.length; i += 4) {
        const pair = list[i] as string;
        if (pair !== '') into.add(edge.choice(this.fold, pair), sign);
      }
    }
  }

  /**
   * The fold's state in words rather than counter ids (a KeyBook's ids mean something only in one
   * process), for a case whose events are pruned (engine/store/retention.ts): `restore` continues it.
   * The once-per-case counters that the path and the resources imply are left out and derived again.
   */
  toJSON(): FoldState {
    const book = this.book;
    const seen = this.seen instanceof Set ? this.seen : new Set(this.seen);
    const derived = this.derivedSeen();
    const all = derived.some((id) => !seen.has(id));
    const implied = new Set(all ? [] : derived);
    const state: FoldState = { v: 1, c: this.caseId, p: [...this.path], f: this.firstAt, l: this.lastAt, k: this.lastKey };
    if (this.lastIsFirstVisit) state.fv = 1;
    if (this.attrs) Object.assign(state, this.attrs.toJSON());
    // Each resource's activity by its first place in the path (the path names every activity already).
    if (this.byResource?.length) state.r = this.byResource.map((x, i) => (i % 2 === 0 ? x : this.path.indexOf(x)));
    const s = [...seen].filter((id) => !implied.has(id)).map((id): [string, string, string, number] => [book.kinds[id]!, book.k1s[id]!, book.k2s[id]!, book.buckets[id]!]);
    if (s.length) state.s = s;
    if (all) state.all = 1;
    return state;
  }

  /** A fold continuing where `toJSON` left it, numbered by `book`. */
  static restore(state: FoldState, book: KeyBook, duration: Duration = clockDuration): CaseFold {
    const fold = new CaseFold(book, duration);
    fold.caseId = state.c;
    fold.firstAt = state.f;
    fold.lastAt = state.l;
    fold.lastKey = state.k;
    fold.lastIsFirstVisit = state.fv === 1;
    for (const a of state.p) {
      fold.path.push(book.activity(a).name);
      fold.variant = book.variantStep(fold.variant, a);
    }
    if (fold.path.length > LONG_CASE) fold.perActivity = countVisits(fold.path);
    fold.attrs = FollowedAttributes.restore(book, state);
    const r = state.r ?? [];
    if (r.length) fold.byResource = r.map((x, i) => (i % 2 === 0 ? book.resourceName(String(x)) : fold.path[Number(x)]!));
    const ids = new Set(state.all ? [] : fold.derivedSeen());
    for (const [kind, k1, k2, bucket] of state.s ?? []) ids.add(book.id(kind, k1, k2, bucket));
    fold.seen = ids.size > 48 ? ids : [...ids];
    return fold;
  }

  /**
   * The fold as compact text for this process only, in numbers of its book instead of words: a
   * cache that gives up a fold and takes it back later (CaseCache) then skips the naming `toJSON`
   * does, and keeps about twice as many folds in the same bytes. Only `unpack` under the same book
   * reads it; a new book must drop such texts (ProjectStore renews its book by clearing its cache).
   * One JSON array: case id, first time, last time, last key, flags (1: the last event was a first
   * visit, 2: pruned until a time and key that follow), the path's node in the variant trie, the
   * count of ids met once and the ids, the attributes followed (FollowedAttributes.pack: their count,
   * then two numbers each), then the resources' activities (resource number, activity.cases id of the
   * activity, ...).
   */
  pack(): string {
    const book = this.book;
    const out: (string | number)[] = [this.caseId, this.firstAt, this.lastAt, this.lastKey, (this.lastIsFirstVisit ? 1 : 0) | (this.prunedUntil ? 2 : 0)];
    if (this.prunedUntil) out.push(this.prunedUntil.time, this.prunedUntil.key);
    out.push(this.variant.index);
    const seen = this.seen;
    out.push(Array.isArray(seen) ? seen.length : seen.size);
    for (const id of seen) out.push(id);
    if (this.attrs) this.attrs.pack(book, out);
    else out.push(0);
    const r = this.byResource ?? [];
    for (let i = 0; i < r.length; i += 2) out.push(book.resourceId(r[i]!), book.activity(r[i + 1]!).cases);
    return JSON.stringify(out);
  }

  /** The fold `pack` wrote, under the same book. */
  static unpack(text: string, book: KeyBook, duration: Duration = clockDuration): CaseFold {
    const a = JSON.parse(text) as (string | number)[];
    const fold = new CaseFold(book, duration);
    fold.caseId = a[0] as string;
    fold.firstAt = a[1] as number;
    fold.lastAt = a[2] as number;
    fold.lastKey = a[3] as string;
    const flags = a[4] as number;
    fold.lastIsFirstVisit = (flags & 1) !== 0;
    let i = 5;
    if (flags & 2) {
      fold.prunedUntil = { time: a[5] as number, key: a[6] as string };
      i = 7;
    }
    // The path is the trie node's, read upwards; its names are the book's own strings.
    const node = book.variantNodes[a[i++] as number]!;
    fold.variant = node;
    for (let n: VariantNode = node; n.parent !== undefined; n = n.parent) fold.path.push(n.activity);
    fold.path.reverse();
    if (fold.path.length > LONG_CASE) fold.perActivity = countVisits(fold.path);
    const seen = a.slice(i + 1, i + 1 + (a[i] as number)) as number[];
    fold.seen = seen.length > 48 ? new Set(seen) : seen;
    i += 1 + seen.length;
    [fold.attrs, i] = FollowedAttributes.unpack(book, a, i);
    if (i < a.length) {
      const r: string[] = [];
      for (; i < a.length; i += 2) r.push(book.resourceNames[a[i] as number]!, book.k1s[a[i + 1] as number]!);
      fold.byResource = r;
    }
    return fold;
  }

  /** The once-per-case counters every fold with this path and these resources has met: each edge's cases, each resource's, each pair one resource did. */
  private derivedSeen(): number[] {
    const book = this.book;
    const ids: number[] = [];
    let prev = START;
    for (const a of this.path) {
      ids.push(book.edge(prev, a).cases);
      prev = a;
    }
    const r = this.byResource ?? [];
    for (let i = 0; i < r.length; i += 2) {
      const activity = book.activity(r[i + 1]!);
      ids.push(activity.resource(r[i]!).cases);
      for (let j = 0; j < i; j += 2) if (r[j] === r[i]) ids.push(activity.sameResource(r[j + 1]!));
    }
    return ids;
  }

  finish(into: Counters, sign: 1 | -1): void {
    const last = this.path.length ? this.path[this.path.length - 1]! : undefined;
    if (last === undefined) return;
    const book = this.book;
    // The edge to END is the one edge a case has exactly once, so it needs no `seen`.
    const end = book.edge(last, END);
    into.add(end.events, sign);
    into.add(end.cases, sign);
    // Retracting and re-adding an unchanged case (an append's first half) reuses the key.
    into.add(this.book.variantId(this.variant, this.path), sign);
    into.add(book.duration(bucketOf(this.duration(this.firstAt, this.lastAt))), sign);
    into.add(book.activity(last).last(Math.floor(this.lastAt / HOUR_MS)), sign);
    into.add(book.activity(last).began(Math.floor(this.firstAt / HOUR_MS)), sign);
    // Stopping is a branch of a decision too: a case whose last event is its activity's first visit goes to END.
    if (this.lastIsFirstVisit) this.countChoice(last, END, into, sign);
    this.attrs?.finish(book, last, into, sign);
  }
}

/**
 * A fold's state by names (CaseFold.toJSON): case id, path, first and last time, the last event's
 * key, whether the last event was its activity's first visit, the attributes followed (name, last
 * counted value or '' for none, …; with `nf` and `nx`), the resources' activities (resource, the
 * activity's first place in the path, …) and the once-per-case counters met that these do not imply
 * (all of them when `all`).
 */
export interface FoldState {
  v: 1;
  c: string;
  p: string[];
  f: number;
  l: number;
  k: string;
  fv?: 1;
  n?: string[];
  r?: (string | number)[];
  s?: [kind: string, k1: string, k2: string, bucket: number][];
  all?: 1;
  /** Per attribute in `n`, its counted value on the first event ('' for none); none when all are ''. */
  nf?: string[];
  /** Per attribute in `n`, its flags (1: its value changed, 2: a later date met); none when all are 0. */
  nx?: number[];
}

/** Past this many events a fold counts visits per activity in a map rather than searching its path. */
const LONG_CASE = 32;

function countVisits(path: readonly string[]): Map<string, number> {
  const visits = new Map<string, number>();
  for (const a of path) visits.set(a, (visits.get(a) ?? 0) + 1);
  return visits;
}

/** The attribute-value part of the choice counter over all cases. */
const ALL_CASES = pairKey('', '');

/** Adds sign × a whole case's contribution; returns the case's fold for later appends. */
export function contribute(into: Counters, trace: Trace, sign: 1 | -1, duration: Duration = clockDuration): CaseFold {
  const fold = new CaseFold(into.book, duration);
  for (const ev of trace) fold.step(ev, into, sign);
  fold.finish(into, sign);
  return fold;
}

/**
 * Adds sign × what `trace` adds to a case whose earlier events were pruned into `base` (their
 * contribution stays counted): the base's ending retracted, the trace stepped after it whatever its
 * times, the new ending added. Nothing when the trace is empty. Returns the continued fold.
 */
export function contributeAfter(into: Counters, base: FoldState, trace: Trace, sign: 1 | -1): CaseFold {
  const fold = CaseFold.restore(base, into.book);
  fold.finish(into, sign === 1 ? -1 : 1);
  for (const ev of trace) fold.step(ev, into, sign);
  fold.finish(into, sign);
  return fold;
}

/** What one case adds to the project's tally, as a structured tally (tests, rebuilds). */
export function contribution(trace: Trace, duration: Duration = clockDuration): Tally {
  const c = new Counters(new KeyBook());
  contribute(c, trace, 1, duration);
  return tallyFromRows(c.rows());
}
