import { parseIsoMillis, wallClockReader } from '../../../engine/index.js';
import { OcelError } from './errors.js';

/**
 * OCEL times: ISO text with or without a zone (the XML and SQLite forms of
 * the same log often drop it), or epoch numbers from SQLite. A zone-less time
 * is wall-clock time in `zone` (IANA name or UTC). NaN when unreadable.
 */
export function timeReader(zone = 'UTC'): (raw: string | number) => number {
  const utc = zone === 'UTC' || zone === 'Etc/UTC' || zone === 'Z';
  const wallClock = utc ? undefined : zoneWallClock(zone);
  return (raw) => {
    if (typeof raw === 'number') return Math.abs(raw) < 1e11 ? Math.round(raw * 1000) : Math.round(raw);
    const asUtc = parseIsoMillis(raw, 0);
    if (!wallClock || !Number.isFinite(asUtc)) return asUtc;
    // The same text read at two default offsets gives one instant only when it names its zone.
    if (parseIsoMillis(raw, 60) === asUtc) return asUtc;
    return wallClock(asUtc);
  };
}

function zoneWallClock(zone: string): (localMillis: number) => number {
  try {
    return wallClockReader(zone);
  } catch (error) {
    if (error instanceof RangeError) throw new OcelError('ocel_bad_option', `unknown time zone "${zone}"`);
    throw error;
  }
}
