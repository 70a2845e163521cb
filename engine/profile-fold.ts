import type { AttributeValue, Event } from './event.js';
import { bucketOf } from './sketch.js';
import { firstValue, MAX_CHOICE_ATTRIBUTES } from './tally.js';
import { parseIsoMillis } from './time.js';
import type { Counters } from './store/codec.js';
import type { KeyBook } from './store/counter-keys.js';

/**
 * The attributes a case's fold follows, and the log profile's part of the fold (Tally.profile,
 * Tally.serviceTime): what the data is, before what it says. The fold follows the first
 * MAX_CHOICE_ATTRIBUTES names met in case order ('' is never one), whatever their values, and knows of
 * each its last counted value (choiceValue), which the choice counters read (CaseFold.countChoice), its
 * counted value on the first event and whether its value changed or held a later date.
 *
 * CaseFold.step calls `event` for every event and `attribute` for every attribute of it (computing the
 * counted value once for both); CaseFold.finish calls `finish`. Per event: the minute of the day and the
 * resolution of its time, its lifecycle transition, its service time. Once per case, per followed
 * attribute: present, on the first event, its counted value changed, a text value of it a date after its
 * event. At the ending, per followed attribute with a counted value: its first with the case's last
 * activity, and its last.
 */
export class FollowedAttributes {
  /**
   * Four entries per attribute: its name, the pair (KeyBook.pair) of its last counted value and that of
   * its counted value on the first event ('' when none), and its flags (CHANGED, FUTURE once counted).
   * One flat array: a fold per open case, kept small.
   */
  readonly list: (string | number)[] = [];
  /**
   * Two counter ids per attribute: the `final` counter of its last counted value, and the `first`
   * counter of its first one for the ending `firstFor` (-1 when none). An ending then costs additions
   * only, and lookups only when the last activity changed: in a store's large book a lookup is a cache
   * miss or two, and appends retract and re-add the ending for every batch.
   */
  private readonly ids: number[] = [];
  private firstFor: string | undefined;

  /** Per event: `tod` and `grain` of its time. */
  static event(book: KeyBook, time: number, into: Counters, sign: 1 | -1): void {
    const keys = book.profile;
    // Integer arithmetic: % on a time (a double past 2^31) is a call to fmod, and four of them cost 100 ns.
    const ofDay = (time - Math.floor(time / DAY_MS) * DAY_MS) | 0;
    into.add(keys.tod((ofDay / MINUTE_MS) | 0), sign);
    // A day is whole seconds, minutes and hours, so the time of day has the time's resolution.
    into.add(keys.grain(ofDay % 1000 !== 0 ? 0 : ofDay % MINUTE_MS !== 0 ? 1 : ofDay % HOUR_MS !== 0 ? 2 : 3), sign);
  }

  /**
   * One attribute of an event (name not ''), `pair` its KeyBook.pair(name, counted value), undefined
   * when the value is not counted; `first` says whether the event is the case's first.
   */
  attribute(book: KeyBook, name: string, raw: AttributeValue, pair: string | undefined, ev: Event, first: boolean, into: Counters, sign: 1 | -1, duration: (from: number, to: number) => number): void {
    const keys = book.profile;
    if (name === LIFECYCLE) {
      const id = keys.lifecycle(raw);
      if (id >= 0) into.add(id, sign);
    } else if (name === START_TIMESTAMP) {
      const start = typeof raw === 'number' ? Math.floor(raw) : typeof raw === 'string' ? parseIsoMillis(raw) : Number.NaN;
      // NaN compares false: a start that does not parse counts nothing.
      if (start <= ev.time) into.add(keys.service(ev.activity, bucketOf(duration(start, ev.time))), sign);
    }
    const list = this.list;
    let i = 0;
    while (i < list.length && list[i] !== name) i += 4;
    if (i === list.length) {
      if (i >= 4 * MAX_CHOICE_ATTRIBUTES) return;
      list.push(name, '', '', 0);
      this.ids.push(-1, -1);
      const ids = keys.attribute(name);
      into.add(ids.present, sign);
      if (first) into.add(ids.atFirst, sign);
    }
    // An identifier of a larger case (an application's id on each offer) is counted on the first event only.
    if (pair === undefined && first && typeof raw === 'string') {
      const id = firstValue(name, raw);
      if (id !== undefined) {
        list[i + 2] = book.pair(name, id);
        this.firstFor = undefined;
      }
    }
    if (pair !== undefined) {
      const last = list[i + 1];
      if (last !== pair) {
        if (last !== '' && ((list[i + 3] as number) & CHANGED) === 0) {
          list[i + 3] = (list[i + 3] as number) | CHANGED;
          into.add(keys.attribute(name).changed, sign);
        }
        list[i + 1] = pair;
        this.ids[i >> 1] = keys.final(pair);
      }
      if (first) {
        list[i + 2] = pair;
        this.firstFor = undefined;
      }
    }
    // The pattern only for text that starts with a digit, and only until the case has one.
    if (typeof raw === 'string' && raw.length >= 16 && ((list[i + 3] as number) & FUTURE) === 0) {
      const c = raw.charCodeAt(0);
      if (c >= 48 && c <= 57 && DATE_TIME.test(raw) && parseIsoMillis(raw) > ev.time) {
        list[i + 3] = (list[i + 3] as number) | FUTURE;
        into.add(keys.attribute(name).future, sign);
      }
    }
  }

  /** The ending's part: each followed attribute's first counted value with the last activity (`first`), and its last (`final`). */
  finish(book: KeyBook, last: string, into: Counters, sign: 1 | -1): void {
    const list = this.list;
    const ids = this.ids;
    if (this.firstFor !== last) {
      const ending = book.profile.endingAt(last);
      for (let i = 0; i < list.length; i += 4) {
        const firstPair = list[i + 2] as string;
        ids[(i >> 1) + 1] = firstPair === '' ? -1 : ending.first(firstPair);
      }
      this.firstFor = last;
    }
    for (let j = 0; j < ids.length; j++) if (ids[j]! >= 0) into.add(ids[j]!, sign);
  }

  /**
   * By names (CaseFold.toJSON): `n`, [name, last counted value, …] ('' for none), then when any is
   * not '' or 0 the counted values on the first event (`nf`) and the flags (`nx`), one per attribute.
   */
  toJSON(): { n: string[]; nf?: string[]; nx?: number[] } {
    const list = this.list;
    const n: string[] = [];
    const nf: string[] = [];
    const nx: number[] = [];
    const value = (pair: string, name: string) => (pair === '' ? '' : pair.slice(name.length + 1));
    for (let i = 0; i < list.length; i += 4) {
      const name = list[i] as string;
      n.push(name, value(list[i + 1] as string, name));
      nf.push(value(list[i + 2] as string, name));
      nx.push(list[i + 3] as number);
    }
    return { n, ...(nf.some((v) => v !== '') ? { nf } : {}), ...(nx.some((f) => f !== 0) ? { nx } : {}) };
  }

  static restore(book: KeyBook, state: { n?: string[]; nf?: string[]; nx?: number[] }): FollowedAttributes | undefined {
    const n = state.n ?? [];
    if (n.length === 0) return undefined;
    const attrs = new FollowedAttributes();
    const pair = (name: string, value: string | undefined) => (value ? book.pair(name, value) : '');
    for (let i = 0; i < n.length; i += 2) {
      const name = n[i]!;
      attrs.carry(book, name, pair(name, n[i + 1]), pair(name, state.nf?.[i / 2]), state.nx?.[i / 2] ?? 0);
    }
    return attrs;
  }

  /**
   * In numbers of the book (CaseFold.pack): the count of followed attributes, then two numbers each: the
   * pair number of its last counted value (that of KeyBook.pair(name, '') when none, which names it), and
   * (the pair number of its counted value on the first event + 1, 0 when none) × 4 + its flags.
   */
  pack(book: KeyBook, out: (string | number)[]): void {
    const list = this.list;
    out.push(list.length / 4);
    for (let i = 0; i < list.length; i += 4) {
      const last = list[i + 1] as string;
      const first = list[i + 2] as string;
      out.push(book.pairId(last === '' ? book.pair(list[i] as string, '') : last), (first === '' ? 0 : book.pairId(first) + 1) * 4 + (list[i + 3] as number));
    }
  }

  /** What `pack` wrote from a[i]: the attributes (undefined when none) and the index after them. */
  static unpack(book: KeyBook, a: readonly (string | number)[], i: number): [FollowedAttributes | undefined, number] {
    const count = a[i++] as number;
    if (count === 0) return [undefined, i];
    const attrs = new FollowedAttributes();
    for (const end = i + 2 * count; i < end; i += 2) {
      const lastId = a[i] as number;
      const code = a[i + 1] as number;
      const name = book.pairNames[lastId]!;
      const last = book.pairKeys[lastId]!;
      const firstId = Math.floor(code / 4) - 1;
      attrs.carry(book, name, last.length === name.length + 1 ? '' : last, firstId < 0 ? '' : book.pairKeys[firstId]!, code % 4);
    }
    return [attrs, i];
  }

  /** An attribute carried over (restore, unpack): its pairs and flags. */
  private carry(book: KeyBook, name: string, last: string, first: string, flags: number): void {
    this.list.push(name, last, first, flags);
    this.ids.push(last === '' ? -1 : book.profile.final(last), -1);
  }
}

/** The counter ids of the log profile in one book (KeyBook.profile). */
export class ProfileKeys {
  private readonly tods = new Int32Array(MINUTES_A_DAY).fill(-1);
  private readonly grains = [-1, -1, -1, -1];
  /** By the attribute's value as it came (cleared when large): its counter, -1 when it names none. */
  private readonly lifecycles = new Map<AttributeValue, number>();
  private readonly services = new Map<string, Map<number, number>>();
  private readonly attributes = new Map<string, { present: number; atFirst: number; changed: number; future: number }>();
  private readonly finals = new Map<string, number>();
  private readonly endings = new Map<string, EndingKeys>();

  constructor(private readonly book: KeyBook) {}

  tod(minute: number): number {
    let id = this.tods[minute]!;
    if (id < 0) this.tods[minute] = id = this.book.id('profile.tod', String(minute), '', 0);
    return id;
  }

  /** The grain by its place in GRAINS. */
  grain(index: number): number {
    let id = this.grains[index]!;
    if (id < 0) this.grains[index] = id = this.book.id('profile.grain', GRAINS[index]!, '', 0);
    return id;
  }

  /** The counter of a `lifecycle:transition` value, -1 when it names none (nothing but blanks). */
  lifecycle(value: AttributeValue): number {
    let id = this.lifecycles.get(value);
    if (id === undefined) {
      const label = lifecycleLabel(value);
      id = label === '' ? -1 : this.book.id('profile.lifecycle', label, '', 0);
      if (this.lifecycles.size >= 10_000) this.lifecycles.clear();
      this.lifecycles.set(value, id);
    }
    return id;
  }

  service(activity: string, bucket: number): number {
    let byBucket = this.services.get(activity);
    if (byBucket === undefined) this.services.set(activity, (byBucket = new Map()));
    let id = byBucket.get(bucket);
    if (id === undefined) byBucket.set(bucket, (id = this.book.id('profile.service', activity, '', bucket)));
    return id;
  }

  attribute(name: string): { present: number; atFirst: number; changed: number; future: number } {
    let ids = this.attributes.get(name);
    if (ids === undefined) {
      const b = this.book;
      ids = { present: b.id('profile.present', name, '', 0), atFirst: b.id('profile.atFirst', name, '', 0), changed: b.id('profile.changed', name, '', 0), future: b.id('profile.future', name, '', 0) };
      this.attributes.set(name, ids);
    }
    return ids;
  }

  /** Cases ending with this counted value of an attribute (pair: KeyBook.pair(attribute, value)). */
  final(pair: string): number {
    let id = this.finals.get(pair);
    if (id === undefined) this.finals.set(pair, (id = this.book.id('profile.final', pair, '', 0)));
    return id;
  }

  /** The `first` counters of cases whose last activity is `last`. */
  endingAt(last: string): EndingKeys {
    let keys = this.endings.get(last);
    if (keys === undefined) this.endings.set(last, (keys = new EndingKeys(this.book, last)));
    return keys;
  }
}

export class EndingKeys {
  private readonly firsts = new Map<string, number>();
  constructor(
    private readonly book: KeyBook,
    private readonly last: string,
  ) {}

  /** Cases with this counted value of an attribute on their first event (pair: KeyBook.pair(attribute, value)) that end here. */
  first(pair: string): number {
    let id = this.firsts.get(pair);
    if (id === undefined) this.firsts.set(pair, (id = this.book.id('profile.first', pair, this.last, 0)));
    return id;
  }
}

/** A `lifecycle:transition` value as counted: trimmed, lower-cased, at most 40 characters (never ending in half a surrogate pair). */
export function lifecycleLabel(value: AttributeValue): string {
  let s = String(value).trim().toLowerCase();
  if (s.length > 40) {
    s = s.slice(0, 40);
    const c = s.charCodeAt(39);
    if (c >= 0xd800 && c <= 0xdbff) s = s.slice(0, 39);
  }
  return s;
}

export const LIFECYCLE = 'lifecycle:transition';
export const START_TIMESTAMP = 'start_timestamp';
/** Text that may be a date-time (engine/time.ts parseIsoMillis decides): only such values are parsed. */
export const DATE_TIME = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d/;
export const GRAINS = ['ms', 's', 'min', 'h'] as const;
const CHANGED = 1;
const FUTURE = 2;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const MINUTES_A_DAY = 1440;
