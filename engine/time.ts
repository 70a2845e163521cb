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
  const m = isoPattern.exec(text.trim());
  if (!m) return Number.NaN;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 24 || minute > 59 || second > 60) return Number.NaN;
  const millis = frac ? Math.floor(Number(`0.${frac}`) * 1000 + 1e-6) : 0;
  let utc = Date.UTC(Number(y), month - 1, day, hour, minute, second, millis);
  // Date.UTC silently rolls 31 February into March; refuse such dates.
  if (new Date(utc).getUTCDate() !== day && hour < 24) return Number.NaN;
  let offset = defaultOffsetMinutes;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  } else if (zone) {
    offset = 0;
  }
  utc -= offset * 60_000;
  return utc;
}

/** ISO 8601 UTC text with milliseconds, the engine's one way of printing a time. */
export function isoUtc(millis: number): string {
  return new Date(millis).toISOString();
}

export const HOUR_MS = 3_600_000;

/**
 * Time zones, from the platform's IANA database (Intl): one place for what
 * importers (zone-less times) and the working-time calendar both need.
 * Throws RangeError for an unknown zone name.
 */
export function zoneOffset(zone: string): (utcMillis: number) => number {
  if (zone.toUpperCase() === 'UTC' || zone === 'Z') return () => 0;
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
  // Offsets change on whole hours at most a few times a year: one lookup per UTC hour.
  const cache = new Map<number, number>();
  return (utc) => {
    const hour = Math.floor(utc / HOUR_MS);
    let offset = cache.get(hour);
    if (offset === undefined) {
      const p: Record<string, number> = {};
      for (const part of format.formatToParts(hour * HOUR_MS)) if (part.type !== 'literal') p[part.type] = Number(part.value);
      offset = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - hour * HOUR_MS;
      if (cache.size > 100_000) cache.clear();
      cache.set(hour, offset);
    }
    return offset;
  };
}

/** Reads a zone-less wall-clock time (given as if it were UTC) in a zone: real UTC millis. */
export function wallClockReader(zone: string): (localMillis: number) => number {
  const offsetAt = zoneOffset(zone);
  return (local) => {
    // The offset at the guessed instant; a second look settles times next to a change.
    const first = offsetAt(local - offsetAt(local));
    return local - first;
  };
}
