import { daysInMonth, utcFromParts, wallClockReader } from '../../engine/index.js';
import { FileImportError } from './errors.js';

/**
 * Reading the timestamp texts found in real logs into epoch milliseconds.
 * A time with a zone (Z, +02:00) is exact; a zone-less one is read in the
 * chosen zone (`UTC` or an IANA name, offsets from Intl, DST included).
 *
 * Accepted: ISO 8601 (`T` or space, fraction, zone), `2014/10/22 11:15:41.000`
 * (year first with `/` or `.`), day-first `22-10-2014 11:15` and `22/10/2014`
 * (month-first only when the first number cannot be a month), and epoch
 * numbers: below 1e11 seconds, else milliseconds.
 */
const yearFirst =
  /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/;
const dayFirst =
  /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})(?:[T ]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/;
const epoch = /^\d{1,16}(?:\.\d+)?$/;

const MIN_TIME = Date.UTC(1, 0, 1);
const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export type ZoneReader = (localMillis: number) => number;

/** The function turning a zone-less wall-clock time (as if UTC) into real UTC millis. */
export function zoneReader(zone: string | undefined): ZoneReader {
  if (!zone) return (local) => local;
  try {
    return wallClockReader(zone);
  } catch (error) {
    if (error instanceof RangeError) {
      throw new FileImportError('invalid_option', `unknown time zone '${zone}' (use UTC or an IANA name such as Europe/Amsterdam)`);
    }
    throw error;
  }
}

/** Epoch millis, or NaN when the text is no time we read. */
export function parseTimestamp(text: string, zone: ZoneReader): number {
  const fast = fastIso(text, zone);
  if (fast !== undefined) return fast;
  const t = text.trim();
  if (!t) return Number.NaN;
  let m = yearFirst.exec(t);
  let y: string, mo: string, d: string;
  if (m) {
    [, y, mo, d] = m as unknown as [string, string, string, string];
  } else if ((m = dayFirst.exec(t))) {
    [, d, mo, y] = m as unknown as [string, string, string, string];
    if (Number(mo) > 12 && Number(d) <= 12) [d, mo] = [mo, d];
  } else if (epoch.test(t)) {
    const n = Number(t);
    const millis = Math.floor(n < 1e11 ? n * 1000 : n);
    return inRange(millis);
  } else {
    return Number.NaN;
  }
  const [, , , , h = '0', mi = '0', s = '0', frac = '', z] = m;
  const local = utcFromParts(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), frac);
  if (Number.isNaN(local)) return local;
  if (!z) return inRange(zone(local));
  if (z === 'Z' || z === 'z' || z === 'UTC' || z === 'GMT') return inRange(local);
  const sign = z[0] === '-' ? -1 : 1;
  const digits = z.slice(1).replace(':', '');
  const offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  return inRange(local - offset * 60_000);
}

function inRange(millis: number): number {
  return Number.isFinite(millis) && millis >= MIN_TIME && millis <= MAX_TIME ? millis : Number.NaN;
}

function digits(t: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = t.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * `YYYY-MM-DD[T| ]HH:MM[:SS[.frac]][Z|±HH[:MM]]` read by hand: the form of
 * nearly every XES and pm4py timestamp, and the hot spot of reading them.
 * Undefined sends the text to the general parser.
 */
function fastIso(t: string, zone: ZoneReader): number | undefined {
  const n = t.length;
  if (n < 16 || t.charCodeAt(4) !== 45 || t.charCodeAt(7) !== 45 || t.charCodeAt(13) !== 58) return undefined;
  const sep = t.charCodeAt(10);
  if (sep !== 84 && sep !== 32) return undefined;
  const year = digits(t, 0, 4);
  const month = digits(t, 5, 2);
  const day = digits(t, 8, 2);
  const hour = digits(t, 11, 2);
  const minute = digits(t, 14, 2);
  if (year < 100 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59) return undefined;
  if (day > daysInMonth(year, month)) return Number.NaN;
  let i = 16;
  let second = 0;
  let millis = 0;
  if (i < n && t.charCodeAt(i) === 58) {
    second = digits(t, 17, 2);
    if (second < 0 || second > 59 || n < 19) return undefined;
    i = 19;
    const c = t.charCodeAt(i);
    if (i < n && (c === 46 || c === 44)) {
      i++;
      let scale = 100;
      while (i < n) {
        const d = t.charCodeAt(i) - 48;
        if (d < 0 || d > 9) break;
        millis += d * scale;
        scale /= 10;
        i++;
      }
      millis = Math.floor(millis + 1e-6);
    }
  }
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  if (i === n) return zone(local);
  const z = t.charCodeAt(i);
  if ((z === 90 || z === 122) && i + 1 === n) return local;
  if (z !== 43 && z !== 45) return undefined;
  const oh = digits(t, i + 1, 2);
  let om = 0;
  if (i + 3 === n) om = 0;
  else if (i + 6 === n && t.charCodeAt(i + 3) === 58) om = digits(t, i + 4, 2);
  else if (i + 5 === n) om = digits(t, i + 3, 2);
  else return undefined;
  if (oh < 0 || om < 0) return undefined;
  const offset = (z === 45 ? -1 : 1) * (oh * 60 + om);
  return local - offset * 60_000;
}
