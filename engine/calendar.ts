import { z } from 'zod';
import { EngineError } from './errors.js';
import { wallClockReader, zoneOffset } from './time.js';

/**
 * A working-time calendar: which local days are worked, the working hours of
 * such a day, the time zone they are local to, and holidays. With it a
 * duration counts only working time: a request sent Friday 16:00 and answered
 * Monday 10:00 waited 2 working hours on a 9-to-17 calendar, not 66.
 */
export interface WorkingCalendar {
  /** IANA zone the hours and days are local to. */
  timeZone: string;
  /** ISO weekdays worked: 1 = Monday .. 7 = Sunday. */
  days: number[];
  /** Working intervals of a worked day, local `HH:MM` (24:00 allowed as an end), not overlapping. */
  hours: { from: string; to: string }[];
  /** Local dates (`YYYY-MM-DD`) not worked. */
  holidays: string[];
}

const hhmm = z.string().regex(/^([01]\d|2[0-4]):[0-5]\d$/, 'expected HH:MM');

export const calendarSchema = z.strictObject({
  timeZone: z
    .string()
    .default('UTC')
    .refine((tz) => {
      try {
        zoneOffset(tz);
        return true;
      } catch {
        return false;
      }
    }, 'unknown IANA time zone'),
  days: z.array(z.int().min(1).max(7)).default([1, 2, 3, 4, 5]),
  hours: z
    .array(z.strictObject({ from: hhmm, to: hhmm }).refine((h) => minutes(h.from) < minutes(h.to), 'from must be before to'))
    .default([{ from: '09:00', to: '17:00' }]),
  holidays: z.array(z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD')).default([]),
});

export const DEFAULT_CALENDAR: WorkingCalendar = { timeZone: 'UTC', days: [1, 2, 3, 4, 5], hours: [{ from: '09:00', to: '17:00' }], holidays: [] };

/** `unknown` in (JSON object), a checked calendar out; every field has a default. */
export function parseCalendar(input: unknown): WorkingCalendar {
  const parsed = calendarSchema.safeParse(input ?? {});
  if (!parsed.success) {
    throw new EngineError('invalid_argument', `calendar: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'calendar'}: ${i.message}`).join('; ')}`);
  }
  const c = parsed.data;
  const hours = [...c.hours].sort((a, b) => minutes(a.from) - minutes(b.from));
  for (let i = 1; i < hours.length; i++) {
    if (minutes(hours[i]!.from) < minutes(hours[i - 1]!.to)) throw new EngineError('invalid_argument', 'calendar: working hours overlap');
  }
  return { timeZone: c.timeZone, days: [...new Set(c.days)].sort(), hours, holidays: [...new Set(c.holidays)].sort() };
}

function minutes(hm: string): number {
  const [h, m] = hm.split(':').map(Number);
  return h! * 60 + m!;
}

const DAY = 86_400_000;

/**
 * The working clock of a calendar: W(t) = working milliseconds from a base day
 * to t, so a duration is W(to) - W(from). Days are computed once and kept as
 * running sums, so a duration costs two lookups however long it is.
 */
class WorkingClock {
  /** Local time minus UTC at an instant. */
  private readonly offset: (t: number) => number;
  /** The UTC instant of a local wall time (the earlier one when the clock repeats, the shifted one in a gap). */
  private readonly utcOf: (local: number) => number;
  private readonly worked: Set<number>;
  private readonly holidays: Set<number>;
  private readonly spans: [number, number][];
  private base = 0;
  /** prefix[i] = working millis of days base .. base + i - 1. */
  private prefix: number[] = [0];
  private intervals: [number, number][][] = [];

  constructor(calendar: WorkingCalendar) {
    this.offset = zoneOffset(calendar.timeZone);
    this.utcOf = wallClockReader(calendar.timeZone, this.offset);
    this.worked = new Set(calendar.days);
    this.holidays = new Set(calendar.holidays.map((d) => Date.UTC(+d.slice(0, 4), +d.slice(5, 7) - 1, +d.slice(8, 10)) / DAY));
    this.spans = calendar.hours.map((h) => [minutes(h.from) * 60_000, minutes(h.to) * 60_000]);
  }

  private dayIntervals(day: number): [number, number][] {
    const weekday = ((((day + 3) % 7) + 7) % 7) + 1;
    if (!this.worked.has(weekday) || this.holidays.has(day)) return [];
    return this.spans.map(([from, to]) => [this.utcOf(day * DAY + from), this.utcOf(day * DAY + to)]);
  }

  private ensure(day: number): number {
    if (this.intervals.length === 0 || day < this.base) {
      // Start (again) a little before the day asked for, so earlier days rarely force a rebuild.
      const end = this.intervals.length ? this.base + this.intervals.length : day + 1;
      this.base = day - 366;
      this.intervals = [];
      this.prefix = [0];
      this.extend(end);
    }
    this.extend(day + 1);
    return day - this.base;
  }

  private extend(endDay: number): void {
    while (this.base + this.intervals.length < endDay) {
      const iv = this.dayIntervals(this.base + this.intervals.length);
      this.intervals.push(iv);
      let total = 0;
      for (const [a, b] of iv) total += b - a;
      this.prefix.push(this.prefix[this.prefix.length - 1]! + total);
    }
  }

  at(t: number): number {
    const day = Math.floor((t + this.offset(t)) / DAY);
    const i = this.ensure(day);
    let w = this.prefix[i]!;
    for (const [a, b] of this.intervals[i]!) w += Math.max(0, Math.min(t, b) - a);
    return w;
  }
}

const clocks = new WeakMap<WorkingCalendar, WorkingClock>();

/** Working milliseconds between two epoch times (0 when `to` is not after `from`). */
export function workingMillisBetween(from: number, to: number, calendar: WorkingCalendar): number {
  if (!(to > from)) return 0;
  let clock = clocks.get(calendar);
  if (!clock) clocks.set(calendar, (clock = new WorkingClock(calendar)));
  return Math.max(0, clock.at(to) - clock.at(from));
}

/** A duration function over the calendar, in the shape contribution() takes. */
export function workingDuration(calendar: WorkingCalendar): (fromMillis: number, toMillis: number) => number {
  return (from, to) => workingMillisBetween(from, to, calendar);
}
