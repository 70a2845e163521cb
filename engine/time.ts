/**
 * Timestamps are epoch milliseconds everywhere inside the engine.
 * The wire format takes ISO 8601 text or epoch milliseconds; a zone-less ISO
 * text is read as UTC (Date.parse would read it as local time, which makes the
 * same log mean different things on different machines).
 */
const isoPattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Parses ISO 8601 (date or date-time, optional fraction and zone). Returns NaN when it is not ISO. */
export function parseIsoMillis(text: string, defaultOffsetMinutes = 0): number {
  const quick = quickUtcMillis(text);
  if (quick === quick) return quick;
  const m = isoPattern.exec(text.trim());
  if (!m) return Number.NaN;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const utc = utcFromParts(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), frac);
  let offset = defaultOffsetMinutes;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  } else if (zone) {
    offset = 0;
  }
  return utc - offset * 60_000;
}

const digitAt = (text: string, i: number): number => {
  const c = text.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : Number.NaN;
};
const twoDigits = (text: string, i: number): number => digitAt(text, i) * 10 + digitAt(text, i + 1);

/**
 * The form nearly every event arrives in, `YYYY-MM-DDTHH:MM:SS[.fff]Z`, read
 * without the pattern (it is read once per event); NaN for anything else,
 * which parseIsoMillis then reads in full.
 */
function quickUtcMillis(text: string): number {
  const n = text.length;
  if ((n !== 20 && n !== 24) || text.charCodeAt(n - 1) !== 90 /* Z */ || text[4] !== '-' || text[7] !== '-' || text[10] !== 'T' || text[13] !== ':' || text[16] !== ':') {
    return Number.NaN;
  }
  if (n === 24 && text[19] !== '.') return Number.NaN;
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const millis = n === 24 ? digitAt(text, 20) * 100 + twoDigits(text, 21) : 0;
  // NaN digits make NaN parts, which utcFromParts turns into NaN.
  return utcFromParts(year, twoDigits(text, 5), twoDigits(text, 8), twoDigits(text, 11), twoDigits(text, 14), twoDigits(text, 17)) + millis;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days of a month (1-12) in the proleptic Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  return month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** 400 Gregorian years are exactly this many days: shifting by them keeps every date's weekday and leap day. */
const GREGORIAN_CYCLE_MS = 146_097 * 86_400_000;

/**
 * Epoch millis of calendar parts read as UTC, or NaN for an impossible date
 * (month 13, 31 February, 25:00); hour 24 is the end of the day and second 60
 * a leap second, both rolled forward. `frac` holds the digits after the
 * decimal point, truncated to milliseconds. Years 0-99 are taken as written
 * (Date.UTC alone would read them as 19xx).
 */
export function utcFromParts(year: number, month: number, day: number, hour: number, minute: number, second: number, frac = ''): number {
  if (month < 1 || month > 12 || day < 1 || hour > 24 || minute > 59 || second > 60) return Number.NaN;
  if (day > daysInMonth(year, month)) return Number.NaN;
  const millis = frac ? Math.floor(Number(`0.${frac}`) * 1000 + 1e-6) : 0;
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second, millis);
  return Date.UTC(year + 400, month - 1, day, hour, minute, second, millis) - GREGORIAN_CYCLE_MS;
}

/** ISO 8601 UTC text with milliseconds, the engine's one way of printing a time. */
export function isoUtc(millis: number): string {
  return new Date(millis).toISOString();
}

export const HOUR_MS = 3_600_000;
/**
 * The time a file reader gives every event of a log that records no time at all (a CSV without a timestamp column:
 * only the order of the steps per case). Every event at this one instant is what the reading calls a frozen clock
 * (engine/reading/profile.ts): order from the file (event ids are file ordinals), no waits, durations or timing
 * claims; the document's period is then empty, since 1970-01-01 would be a date the log never gave.
 */
export const NO_CLOCK_TIME = 0;

export const DAY_MS = 86_400_000;

function isUtc(zone: string): boolean {
  return zone.toUpperCase() === 'UTC' || zone === 'Z';
}

/**
 * Time zones, from the platform's IANA database (Intl): one place for what
 * importers (zone-less times) and the working-time calendar both need.
 * `zoneOffset(zone)(t)` is local time minus UTC, in millis, at instant t.
 * Throws RangeError for an unknown zone name.
 */
export function zoneOffset(zone: string): (utcMillis: number) => number {
  if (isUtc(zone)) return () => 0;
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const exact = (utc: number): number => {
    const whole = Math.floor(utc / 1000) * 1000;
    const p: Record<string, number> = {};
    for (const part of format.formatToParts(whole)) if (part.type !== 'literal') p[part.type] = Number(part.value);
    return utcFromParts(p.year!, p.month!, p.day!, p.hour!, p.minute!, p.second!) - whole;
  };
  // Offsets change a few times a year, nearly always on a whole UTC hour: one
  // lookup per hour. An hour that ends on another offset than it starts on
  // (half-hour zones such as America/St_Johns, old local mean times) keeps the
  // second the change happens, found by bisection once.
  const starts = new Map<number, number>();
  const changes = new Map<number, number>();
  const startOf = (hour: number): number => {
    let offset = starts.get(hour);
    if (offset === undefined) {
      offset = exact(hour * HOUR_MS);
      if (starts.size > 100_000) {
        starts.clear();
        changes.clear();
      }
      starts.set(hour, offset);
    }
    return offset;
  };
  const changeIn = (hour: number, before: number): number => {
    let change = changes.get(hour);
    if (change === undefined) {
      let lo = hour * HOUR_MS;
      let hi = lo + HOUR_MS;
      while (hi - lo > 1000) {
        const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
        if (exact(mid) === before) lo = mid;
        else hi = mid;
      }
      change = hi;
      changes.set(hour, change);
    }
    return change;
  };
  return (utc) => {
    const hour = Math.floor(utc / HOUR_MS);
    const before = startOf(hour);
    const after = startOf(hour + 1);
    return before === after || utc < changeIn(hour, before) ? before : after;
  };
}

/**
 * Reads a zone-less wall-clock time (given as if it were UTC) in a zone: real
 * UTC millis. A time the clock shows twice (the hour after a fall-back) is the
 * earlier instant; a time it skips (spring-forward gap) is moved forward by
 * the gap, 02:30 becoming 03:30 summer time, east and west of Greenwich alike.
 * Assumes a zone changes offset at most once within a day either side.
 * Throws RangeError for an unknown zone name; `offsetAt` shares a zoneOffset's cache.
 */
export function wallClockReader(zone: string, offsetAt = zoneOffset(zone)): (localMillis: number) => number {
  if (isUtc(zone)) return (local) => local;
  // Every instant a local time can be lies within 14 h of it, so the offsets a
  // day either side bound its candidates; when they agree (all but a day or
  // two a year) the whole local hour reads with one offset.
  const steady = new Map<number, number>();
  const near = (local: number): number => {
    const before = offsetAt(local - DAY_MS);
    const after = offsetAt(local + DAY_MS);
    const early = local - before;
    const late = local - after;
    const earlyOk = offsetAt(early) === before;
    const lateOk = offsetAt(late) === after;
    if (earlyOk && lateOk) return Math.min(early, late);
    if (earlyOk) return early;
    if (lateOk) return late;
    // In the gap: the offset before it, which lands past the change.
    return local - before;
  };
  return (local) => {
    const hour = Math.floor(local / HOUR_MS);
    let offset = steady.get(hour);
    if (offset === undefined) {
      const before = offsetAt(hour * HOUR_MS - DAY_MS);
      offset = before === offsetAt((hour + 1) * HOUR_MS + DAY_MS) ? before : Number.NaN;
      if (steady.size > 100_000) steady.clear();
      steady.set(hour, offset);
    }
    return Number.isNaN(offset) ? near(local) : local - offset;
  };
}
