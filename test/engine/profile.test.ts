import { describe, expect, it } from 'vitest';
import { bucketOf, checkEvent, compareEvents, recompute, splitProfileKey, tallyToJson, type Event, type ProfileKind, type Tally, type WireEvent } from '../../engine/index.js';
import { CaseFold } from '../../engine/contribution.js';
import { Counters, tallyFromRows } from '../../engine/store/codec.js';
import { KeyBook } from '../../engine/store/counter-keys.js';
import { MAX_CHOICE_ATTRIBUTES } from '../../engine/tally.js';
import { freshStore } from './helpers.js';

/**
 * The log profile's counters (Tally.profile, Tally.serviceTime), one kind at a time on small logs
 * written by hand, with the exact counts. Each log goes through a store in the batches given (one
 * event at a time unless said otherwise: appends, late events) and must equal the oracle too.
 */
const T = Date.UTC(2025, 0, 1, 8, 30);
const MIN = 60_000;
const HOUR = 3_600_000;

let n = 0;
const ev = (caseId: string, activity: string, time: number | string, attributes?: WireEvent['attributes']): WireEvent => ({
  caseId,
  activity,
  timestamp: time,
  eventId: `e${++n}`,
  ...(attributes ? { attributes } : {}),
});

/** The tally of a store fed `batches` in order, checked against the oracle of all their events. */
function counted(...batches: WireEvent[][]): Tally {
  const store = freshStore();
  for (const batch of batches) store.apply({ records: batch });
  const tally = store.snapshot().tally;
  expect(tallyToJson(tally)).toEqual(tallyToJson(recompute(batches.flat())));
  return tally;
}

/** One event per batch, in the order given. */
const oneByOne = (...events: WireEvent[]): Tally => counted(...events.map((e) => [e]));

/** The counts of one kind, keyed by a (and '→ b' when b is not ''), pair keys written attribute=value. */
function kind(t: Tally, which: ProfileKind): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, count] of t.profile) {
    const { kind: k, a, b } = splitProfileKey(key);
    if (k === which) out[a.replace('\u0000', '=') + (b ? ` → ${b}` : '')] = count;
  }
  return out;
}

describe('the log profile', () => {
  it('tod: the minute of the UTC day of every event', () => {
    const t = oneByOne(
      ev('c1', 'a', '2025-01-01T00:00:00Z'),
      ev('c1', 'b', '2025-01-01T08:30:15.250Z'),
      ev('c2', 'a', '2025-01-02T08:30:59Z'),
      ev('c2', 'b', '2025-01-02T23:59:00Z'),
      // Before 1970: a negative time still falls in its minute of the day.
      ev('c3', 'a', '1969-12-31T23:59:30Z'),
    );
    expect(kind(t, 'tod')).toEqual({ '0': 1, '510': 2, '1439': 2 });
  });

  it('grain: milliseconds, whole seconds, whole minutes, whole hours', () => {
    const t = oneByOne(
      ev('c1', 'a', '2025-01-01T10:00:00Z'),
      ev('c1', 'b', '2025-01-01T10:05:00Z'),
      ev('c1', 'c', '2025-01-01T10:05:07Z'),
      ev('c1', 'd', '2025-01-01T10:05:07.250Z'),
      ev('c2', 'a', Date.UTC(2025, 0, 3)),
      ev('c2', 'b', '1969-12-31T23:00:00Z'),
      ev('c2', 'c', -1),
    );
    expect(kind(t, 'grain')).toEqual({ h: 3, min: 1, s: 1, ms: 2 });
  });

  it('lifecycle: each event\'s transition, trimmed, lower-cased, cut to 40 characters; blank ones and events without one not counted', () => {
    const long = `${'x'.repeat(39)}😀tail`;
    const t = oneByOne(
      ev('c1', 'a', T, { 'lifecycle:transition': ' Start ' }),
      ev('c1', 'a', T + MIN, { 'lifecycle:transition': 'COMPLETE' }),
      ev('c1', 'b', T + 2 * MIN, { 'lifecycle:transition': 'complete' }),
      ev('c1', 'c', T + 3 * MIN, { 'lifecycle:transition': '   ' }),
      ev('c1', 'd', T + 4 * MIN),
      ev('c2', 'a', T, { 'lifecycle:transition': 'In Progress' }),
      ev('c2', 'b', T + MIN, { 'lifecycle:transition': 'x'.repeat(45) }),
      // Cut at 40, the emoji's first half would be left alone: it goes too.
      ev('c2', 'c', T + 2 * MIN, { 'lifecycle:transition': long }),
      ev('c2', 'd', T + 3 * MIN, { 'lifecycle:transition': 7 }),
    );
    expect(kind(t, 'lifecycle')).toEqual({ start: 1, complete: 2, 'in progress': 1, ['x'.repeat(40)]: 1, ['x'.repeat(39)]: 1, '7': 1 });
  });

  it('service: the time from each event\'s start_timestamp (ISO text or epoch ms) to it, per activity, when it is not after the event', () => {
    const t = oneByOne(
      ev('c1', 'a', T, { start_timestamp: new Date(T - 5 * MIN).toISOString() }),
      ev('c1', 'a', T + HOUR, { start_timestamp: T + HOUR - 90_000 }),
      ev('c1', 'b', T + 2 * HOUR, { start_timestamp: '2025-01-01 10:00' }),
      // After its event, unreadable, the event's own time: none, none, a zero service time.
      ev('c2', 'a', T, { start_timestamp: T + 1 }),
      ev('c2', 'b', T + MIN, { start_timestamp: 'soon' }),
      ev('c2', 'c', T + 2 * MIN, { start_timestamp: new Date(T + 2 * MIN).toISOString() }),
    );
    expect(Object.fromEntries([...t.serviceTime].map(([a, s]) => [a, Object.fromEntries(s)]))).toEqual({
      a: { [bucketOf(5 * MIN)]: 1, [bucketOf(90_000)]: 1 },
      b: { [bucketOf(30 * MIN)]: 1 },
      c: { [bucketOf(0)]: 1 },
    });
  });

  it("waits end at the next step's recorded start: idle time, not the step's own work; an overlapping start waited nothing", () => {
    const t = oneByOne(
      ev('c1', 'a', T),
      // Began 2 h after a, took 3 h: the hand-off waited 2 h.
      ev('c1', 'b', T + 5 * HOUR, { start_timestamp: T + 2 * HOUR }),
      // Began before b ended (overlap): no wait; no start recorded: the whole gap.
      ev('c1', 'c', T + 6 * HOUR, { start_timestamp: T + 4 * HOUR }),
      ev('c1', 'd', T + 7 * HOUR),
    );
    const waits = (from: string, to: string) => Object.fromEntries(t.edges.get(`${from}\u0000${to}`)!.wait);
    expect(waits('a', 'b')).toEqual({ [bucketOf(2 * HOUR)]: 1 });
    expect(waits('b', 'c')).toEqual({ [bucketOf(0)]: 1 });
    expect(waits('c', 'd')).toEqual({ [bucketOf(HOUR)]: 1 });
    expect(Object.fromEntries(t.activities.get('a')!.timeToNext)).toEqual({ [bucketOf(2 * HOUR)]: 1 });
  });

  it('present and atFirst: once per case an attribute occurs, and when it is on the first event', () => {
    const t = oneByOne(
      ev('c1', 'a', T, { amount: 5, note: 'x' }),
      ev('c1', 'b', T + MIN, { amount: 7, id: 'INV-2025-00017' }),
      ev('c2', 'a', T),
      ev('c2', 'b', T + MIN, { amount: 12 }),
      // XES case attributes are on every event: present, on the first, never changed.
      ev('c3', 'a', T, { 'case:region': 'north' }),
      ev('c3', 'b', T + MIN, { 'case:region': 'north' }),
    );
    expect(kind(t, 'present')).toEqual({ amount: 2, note: 1, id: 1, 'case:region': 1 });
    expect(kind(t, 'atFirst')).toEqual({ amount: 1, note: 1, 'case:region': 1 });
    expect(kind(t, 'changed')).toEqual({});
  });

  it('changed: the counted value differs between two events of the case (uncounted values and absent events skipped)', () => {
    const t = oneByOne(
      ev('c1', 'a', T, { status: 'open', amount: 5 }),
      ev('c1', 'b', T + MIN, { status: 'open', amount: 5.1 }),
      ev('c1', 'c', T + 2 * MIN, { status: 'closed' }),
      ev('c1', 'd', T + 3 * MIN, { status: 'open' }),
      ev('c2', 'a', T, { status: 'open' }),
      ev('c2', 'b', T + MIN, { status: '' }),
      ev('c2', 'c', T + 2 * MIN),
      ev('c2', 'd', T + 3 * MIN, { status: 'open', amount: 800 }),
      ev('c3', 'a', T, { amount: 3 }),
      ev('c3', 'b', T + MIN, { amount: 300 }),
    );
    // 5 and 5.1 share a bin; '' is not counted; c3's amount changes bin.
    expect(kind(t, 'changed')).toEqual({ status: 1, amount: 1 });
  });

  it('future: a date-time text after its own event\'s time, once per case', () => {
    const t = oneByOne(
      ev('c1', 'a', '2025-01-01T08:00:00Z', { resolved_at: '2025-01-02T09:00:00Z' }),
      ev('c1', 'b', '2025-01-01T09:00:00Z', { resolved_at: '2025-01-02T09:00:00Z' }),
      // Equal to its event's time, before it, impossible, not ISO: none of them.
      ev('c2', 'a', '2025-01-01T08:00:00Z', { resolved_at: '2025-01-01 08:00', due: '2024-12-31T00:00:00Z' }),
      ev('c2', 'b', '2025-01-01T09:00:00Z', { resolved_at: '2025-02-30T00:00:00Z', due: '20250301' }),
      ev('c3', 'a', '2025-01-01T08:00:00Z', { due: '2025-01-01 09:15:00' }),
    );
    expect(kind(t, 'future')).toEqual({ resolved_at: 1, due: 1 });
  });

  it('first and final: the value on the first event with the last activity, and the last value, retracted and re-added as the case goes on', () => {
    const c1 = [ev('c1', 'a', T, { flag: false, tier: 'gold' }), ev('c1', 'b', T + MIN, { tier: 'silver' }), ev('c1', 'c', T + 2 * MIN, { flag: true })];
    const c2 = [ev('c2', 'a', T, { tier: 'gold' }), ev('c2', 'b', T + MIN, { flag: true })];
    // Appended one by one, c1's ending moves from a to b to c.
    const t = oneByOne(...c1, ...c2);
    expect(kind(t, 'first')).toEqual({ 'flag=b:false → c': 1, 'tier=s:gold → c': 1, 'tier=s:gold → b': 1 });
    expect(kind(t, 'final')).toEqual({ 'flag=b:true': 2, 'tier=s:silver': 1, 'tier=s:gold': 1 });
    // A late first event changes what is first: c2 now starts with tier silver and no flag.
    const late = ev('c2', 'z', T - MIN, { tier: 'silver', 'lifecycle:transition': 'start' });
    const after = counted(c1, c2, [late]);
    // The transition is an attribute like any other.
    expect(kind(after, 'first')).toEqual({ 'flag=b:false → c': 1, 'tier=s:gold → c': 1, 'tier=s:silver → b': 1, 'lifecycle:transition=s:start → b': 1 });
    expect(kind(after, 'final')).toEqual({ 'flag=b:true': 2, 'tier=s:silver': 1, 'tier=s:gold': 1, 'lifecycle:transition=s:start': 1 });
    expect(kind(after, 'atFirst')).toEqual({ flag: 1, tier: 2, 'lifecycle:transition': 1 });
    expect(kind(after, 'changed')).toEqual({ flag: 1, tier: 2 });
  });

  it(`follows the first ${MAX_CHOICE_ATTRIBUTES} attribute names of a case, in case order`, () => {
    const many = Object.fromEntries(Array.from({ length: MAX_CHOICE_ATTRIBUTES }, (_, i) => [`a${String(i).padStart(3, '0')}`, 'v']));
    const t = oneByOne(ev('c1', 'a', T, many), ev('c1', 'b', T + MIN, { a000: 'w', zz: 'later' }));
    const present = kind(t, 'present');
    expect(Object.keys(present)).toHaveLength(MAX_CHOICE_ATTRIBUTES);
    expect(present.zz).toBeUndefined();
    expect(kind(t, 'changed')).toEqual({ a000: 1 });
    // The choice counters follow the same attributes: the first 100 names, whatever their values, even when none is counted.
    const ids = Object.fromEntries(Array.from({ length: MAX_CHOICE_ATTRIBUTES }, (_, i) => [`id${String(i).padStart(3, '0')}`, `REF-${100000 + i}`]));
    const u = oneByOne(ev('c2', 'a', T, { ...ids, zz: 'x' }), ev('c2', 'b', T + MIN));
    expect(Object.keys(kind(u, 'present'))).toHaveLength(MAX_CHOICE_ATTRIBUTES);
    expect([...t.choices.keys(), ...u.choices.keys()].filter((k) => k.includes('zz'))).toEqual([]);
    expect(u.choices.size).toBe(2);
  });

  it('is the same whatever the batches and their order (duplicates, late events, one batch)', () => {
    const log = [
      ev('c1', 'a', T, { status: 'open', 'lifecycle:transition': 'start', resolved_at: '2025-01-03T00:00:00Z' }),
      ev('c1', 'a', T + 1500, { status: 'open', 'lifecycle:transition': 'complete', start_timestamp: T }),
      ev('c1', 'b', T + HOUR, { status: 'closed', resolved_at: '2025-01-03T00:00:00Z' }),
      ev('c2', 'b', T + 7_000, { status: 'closed' }),
    ];
    const whole = tallyToJson(counted(log));
    expect(tallyToJson(counted([log[3]!, log[2]!], [log[0]!, log[2]!], [log[1]!]))).toEqual(whole);
    expect(tallyToJson(oneByOne(...[...log].reverse()))).toEqual(whole);
  });

  it('survives a fold written by names (pruned cases) and packed in numbers (the case cache), cut anywhere', () => {
    const events = [
      ev('c1', 'a', T, { status: 'open', flag: false, due: '2025-01-01T09:00:00Z' }),
      ev('c1', 'b', T + MIN, { status: 'open', due: '2025-01-01T09:00:00Z' }),
      ev('c1', 'c', T + 2 * MIN, { status: 'closed', flag: true, id: 'X-12345' }),
      ev('c1', 'd', T + 3 * MIN, { status: 'open', 'lifecycle:transition': 'complete', start_timestamp: T }),
    ].map((w) => (checkEvent(w) as { ok: true; event: Event }).event).sort(compareEvents);
    const whole = new Counters(new KeyBook());
    const fold = new CaseFold(whole.book);
    for (const e of events) fold.step(e, whole, 1);
    fold.finish(whole, 1);
    for (let k = 1; k < events.length; k++) {
      for (const how of ['names', 'numbers'] as const) {
        // The first k events, the fold carried over, then the rest appended as the store does (ending retracted, steps, ending).
        const book = new KeyBook();
        const c = new Counters(book);
        const before = new CaseFold(book);
        for (const e of events.slice(0, k)) before.step(e, c, 1);
        before.finish(c, 1);
        const after = how === 'names' ? CaseFold.restore(JSON.parse(JSON.stringify(before.toJSON())), book) : CaseFold.unpack(before.pack(), book);
        after.finish(c, -1);
        for (const e of events.slice(k)) after.step(e, c, 1);
        after.finish(c, 1);
        expect(tallyToJson(tallyFromRows(c.rows()))).toEqual(tallyToJson(tallyFromRows(whole.rows())));
      }
    }
  });
});
