import { parseIsoMillis } from '../../../engine/index.js';
import { OcelError } from './errors.js';

/**
 * OCEL times: ISO text with or without a zone (the XML and SQLite forms of
 * the same log often drop it), or epoch numbers from SQLite. A zone-less time
 * is wall-clock time in `zone` (IANA name or UTC). NaN when unreadable.
 */
export function timeReader(zone = 'UTC'): (raw: string | number) => number {
  const utc = zone === 'UTC' || zone === 'Etc/UTC' || zone === 'Z';
  const offset = utc ? undefined : offsetFinder(zone);
  return (raw) => {
    if (typeof raw === 'number') return Math.abs(raw) < 1e11 ? Math.round(raw * 1000) : Math.round(raw);
    const asUtc = parseIsoMillis(raw, 0);
    if (!offset || !Number.isFinite(asUtc)) return asUtc;
    // The same text read at two default offsets gives one instant only when it names its zone.
    if (parseIsoMillis(raw, 60) === asUtc) return asUtc;
    let t = asUtc - offset(asUtc) * 60_000;
    const second = offset(t);
    if (asUtc - second * 60_000 !== t) t = asUtc - second * 60_000;
    return t;
  };
}

function offsetFinder(zone: string): (millis: number) => number {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    throw new OcelError('ocel_bad_option', `unknown time zone "${zone}"`);
  }
  return (millis) => {
    const p: Record<string, number> = {};
    for (const part of format.formatToParts(new Date(millis))) if (part.type !== 'literal') p[part.type] = Number(part.value);
    const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
    return Math.round((wall - Math.floor(millis / 1000) * 1000) / 60_000);
  };
}
