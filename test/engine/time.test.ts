import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { daysInMonth, parseIsoMillis, utcFromParts, wallClockReader, zoneOffset } from '../../engine/index.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const at = (iso: string) => Date.parse(iso);
const iso = (millis: number) => new Date(millis).toISOString();

/** Offset straight from Intl's long offset name ("GMT+05:30"), minute-precise: the reference zoneOffset must match. */
function intlOffset(zone: string, utc: number): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(utc).find((p) => p.type === 'timeZoneName')!.value;
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * HOUR + Number(m[3]) * MIN);
}

describe('utcFromParts', () => {
  it('reads calendar parts as UTC', () => {
    expect(iso(utcFromParts(2024, 2, 29, 13, 5, 7, '1239'))).toBe('2024-02-29T13:05:07.123Z');
    expect(iso(utcFromParts(2000, 2, 29, 0, 0, 0))).toBe('2000-02-29T00:00:00.000Z');
    expect(iso(utcFromParts(2014, 12, 31, 24, 0, 0))).toBe('2015-01-01T00:00:00.000Z');
    expect(iso(utcFromParts(2016, 12, 31, 23, 59, 60))).toBe('2017-01-01T00:00:00.000Z');
  });
  it('refuses impossible dates', () => {
    const impossible: [number, number, number, number, number, number][] = [
      [2014, 2, 29, 0, 0, 0],
      [1900, 2, 29, 0, 0, 0],
      [2014, 4, 31, 0, 0, 0],
      [2014, 13, 1, 0, 0, 0],
      [2014, 0, 1, 0, 0, 0],
      [2014, 1, 0, 0, 0, 0],
      [2014, 1, 1, 25, 0, 0],
      [2014, 1, 1, 0, 60, 0],
      [2014, 1, 1, 0, 0, 61],
    ];
    for (const parts of impossible) expect(utcFromParts(...parts)).toBeNaN();
  });
  it('knows the Gregorian leap years', () => {
    expect([daysInMonth(2000, 2), daysInMonth(1900, 2), daysInMonth(2024, 2), daysInMonth(2023, 2), daysInMonth(2024, 4), daysInMonth(2024, 12)]).toEqual([29, 28, 29, 28, 30, 31]);
  });
  it('takes years below 100 as written', () => {
    expect(iso(utcFromParts(50, 3, 1, 12, 0, 0))).toBe('0050-03-01T12:00:00.000Z');
    expect(iso(utcFromParts(48, 2, 29, 0, 0, 0))).toBe('0048-02-29T00:00:00.000Z');
    expect(iso(utcFromParts(99, 12, 31, 24, 0, 0))).toBe('0100-01-01T00:00:00.000Z');
    expect(iso(parseIsoMillis('0050-03-01'))).toBe('0050-03-01T00:00:00.000Z');
  });
  it('agrees with Date for every valid instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1, 0, 1), max: Date.UTC(9999, 11, 31) }), (t) => {
        const d = new Date(t);
        const frac = String(d.getUTCMilliseconds()).padStart(3, '0');
        expect(utcFromParts(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), frac)).toBe(t);
      }),
      { numRuns: 500 },
    );
  });
});

describe('zoneOffset', () => {
  it('gives local minus UTC, DST included', () => {
    const ams = zoneOffset('Europe/Amsterdam');
    expect(ams(at('2024-01-15T12:00:00Z'))).toBe(HOUR);
    expect(ams(at('2024-07-15T12:00:00Z'))).toBe(2 * HOUR);
    // The change is at 01:00 UTC.
    expect(ams(at('2024-03-31T00:59:59.999Z'))).toBe(HOUR);
    expect(ams(at('2024-03-31T01:00:00Z'))).toBe(2 * HOUR);
    expect(zoneOffset('UTC')(at('2024-07-15T12:00:00Z'))).toBe(0);
    expect(zoneOffset('Asia/Kolkata')(at('2024-07-15T12:00:00Z'))).toBe(5.5 * HOUR);
  });
  it('is exact in an hour holding a change off the whole UTC hour', () => {
    // St. John's springs forward at 02:00 -03:30, i.e. 05:30 UTC; Lord Howe moves half an hour at 15:30 UTC.
    const stJohns = zoneOffset('America/St_Johns');
    expect(stJohns(at('2024-03-10T05:00:00Z'))).toBe(-3.5 * HOUR);
    expect(stJohns(at('2024-03-10T05:29:59.999Z'))).toBe(-3.5 * HOUR);
    expect(stJohns(at('2024-03-10T05:30:00Z'))).toBe(-2.5 * HOUR);
    expect(stJohns(at('2024-03-10T05:59:00Z'))).toBe(-2.5 * HOUR);
    const lordHowe = zoneOffset('Australia/Lord_Howe');
    expect(lordHowe(at('2024-10-05T15:29:59Z'))).toBe(10.5 * HOUR);
    expect(lordHowe(at('2024-10-05T15:30:00Z'))).toBe(11 * HOUR);
  });
  it('matches Intl at random instants', () => {
    const zones = ['Europe/Amsterdam', 'America/New_York', 'America/St_Johns', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Asia/Tehran'];
    const readers = zones.map((z) => zoneOffset(z));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: zones.length - 1 }), fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2040, 0, 1) }), (z, t) => {
        expect(readers[z]!(t)).toBe(intlOffset(zones[z]!, t));
      }),
      { numRuns: 400 },
    );
  });
  it('stays sane before year 100', () => {
    expect(Math.abs(zoneOffset('Europe/Amsterdam')(utcFromParts(50, 6, 1, 0, 0, 0)))).toBeLessThan(HOUR);
  });
  it('throws RangeError for an unknown zone', () => {
    expect(() => zoneOffset('Mars/Olympus')).toThrow(RangeError);
    expect(() => wallClockReader('Mars/Olympus')).toThrow(RangeError);
  });
});

describe('wallClockReader', () => {
  const local = (text: string) => at(`${text}Z`);
  it('reads wall-clock time in a zone', () => {
    const ams = wallClockReader('Europe/Amsterdam');
    expect(iso(ams(local('2024-01-15T12:00:00')))).toBe('2024-01-15T11:00:00.000Z');
    expect(iso(ams(local('2024-07-15T12:00:00')))).toBe('2024-07-15T10:00:00.000Z');
    expect(wallClockReader('UTC')(local('2024-07-15T12:00:00'))).toBe(local('2024-07-15T12:00:00'));
  });
  it('takes the earlier instant when the clock repeats, east and west', () => {
    expect(iso(wallClockReader('Europe/Amsterdam')(local('2024-10-27T02:30:00')))).toBe('2024-10-27T00:30:00.000Z');
    expect(iso(wallClockReader('America/New_York')(local('2024-11-03T01:30:00')))).toBe('2024-11-03T05:30:00.000Z');
    expect(iso(wallClockReader('Europe/Amsterdam')(local('2024-10-27T03:00:00')))).toBe('2024-10-27T02:00:00.000Z');
  });
  it('moves a time in a spring-forward gap forward by the gap, east and west', () => {
    expect(iso(wallClockReader('Europe/Amsterdam')(local('2024-03-31T02:30:00')))).toBe('2024-03-31T01:30:00.000Z');
    expect(iso(wallClockReader('America/New_York')(local('2024-03-10T02:30:00')))).toBe('2024-03-10T07:30:00.000Z');
    expect(iso(wallClockReader('America/St_Johns')(local('2024-03-10T02:30:00')))).toBe('2024-03-10T06:00:00.000Z');
  });
  it('inverts zoneOffset: the earliest instant showing that wall-clock time', () => {
    const zones = ['Europe/Amsterdam', 'America/New_York', 'America/St_Johns', 'Australia/Lord_Howe', 'Asia/Tehran'];
    const offsets = zones.map((z) => zoneOffset(z));
    const readers = zones.map((z, i) => wallClockReader(z, offsets[i]));
    // Around every change and anywhere else.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: zones.length - 1 }), fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2035, 0, 1) }), (z, t) => {
        const off = offsets[z]!;
        const wall = t + off(t);
        const back = readers[z]!(wall);
        expect(back + off(back)).toBe(wall);
        expect(back).toBeLessThanOrEqual(t);
      }),
      { numRuns: 400 },
    );
    for (let i = 0; i < zones.length; i++) {
      const off = offsets[i]!;
      for (let t = Date.UTC(2024, 2, 9); t < Date.UTC(2024, 2, 12); t += 15 * MIN) {
        const back = readers[i]!(t + off(t));
        expect(back + off(back)).toBe(t + off(t));
      }
      for (let t = Date.UTC(2024, 9, 26); t < Date.UTC(2024, 10, 5); t += 15 * MIN) {
        const back = readers[i]!(t + off(t));
        expect(back + off(back)).toBe(t + off(t));
        expect(back).toBeLessThanOrEqual(t);
      }
    }
  });
});

describe('parseIsoMillis on the common UTC form', () => {
  // A leading space sends any text down the full pattern: the short path must agree with it.
  const pad = (n: number, w: number) => String(n).padStart(w, '0');
  const text = fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }),
      fc.integer({ min: 0, max: 13 }),
      fc.integer({ min: 0, max: 32 }),
      fc.integer({ min: 0, max: 25 }),
      fc.integer({ min: 0, max: 60 }),
      fc.integer({ min: 0, max: 61 }),
      fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }),
      fc.constantFrom('Z', 'z', '', '+02:00', 'x'),
      fc.constantFrom('T', ' ', 't'),
    )
    .map(([y, mo, d, h, mi, s, ms, zone, sep]) => `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}${sep}${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${ms === undefined ? '' : `.${pad(ms, 3)}`}${zone}`);

  it('agrees with the full pattern, valid dates or not', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ maxLength: 24 })), (t) => {
        expect(Object.is(parseIsoMillis(t), parseIsoMillis(` ${t}`))).toBe(true);
      }),
      { numRuns: 5000 },
    );
    expect(iso(parseIsoMillis('2024-02-29T23:59:60.500Z'))).toBe('2024-03-01T00:00:00.500Z');
    expect(parseIsoMillis('2023-02-29T10:00:00Z')).toBeNaN();
    expect(parseIsoMillis('2023-0a-01T10:00:00Z')).toBeNaN();
  });
});
