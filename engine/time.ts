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
