import { describe, expect, it } from 'vitest';
import { parseCalendar, workingMillisBetween } from '../../engine/calendar.js';

const H = 3_600_000;

describe('working-time calendar', () => {
  const nineToFive = parseCalendar({});

  it('counts only working hours of working days', () => {
    const fri16 = Date.UTC(2025, 0, 10, 16);
    const mon10 = Date.UTC(2025, 0, 13, 10);
    expect(workingMillisBetween(fri16, mon10, nineToFive)).toBe(2 * H);
    // Within one working day, and wholly outside working hours.
    expect(workingMillisBetween(Date.UTC(2025, 0, 6, 9, 30), Date.UTC(2025, 0, 6, 11), nineToFive)).toBe(1.5 * H);
    expect(workingMillisBetween(Date.UTC(2025, 0, 6, 18), Date.UTC(2025, 0, 7, 8), nineToFive)).toBe(0);
    // Four weeks: 20 working days of 8 hours.
    expect(workingMillisBetween(Date.UTC(2025, 0, 6), Date.UTC(2025, 1, 3), nineToFive)).toBe(160 * H);
    expect(workingMillisBetween(mon10, fri16, nineToFive)).toBe(0);
  });

  it('leaves out holidays and takes split hours', () => {
    const c = parseCalendar({ hours: [{ from: '13:00', to: '17:00' }, { from: '08:00', to: '12:00' }], holidays: ['2025-01-07'] });
    expect(c.hours[0]).toEqual({ from: '08:00', to: '12:00' });
    // Monday 00:00 to Wednesday 00:00: Monday's 8 hours, Tuesday is a holiday.
    expect(workingMillisBetween(Date.UTC(2025, 0, 6), Date.UTC(2025, 0, 8), c)).toBe(8 * H);
    expect(workingMillisBetween(Date.UTC(2025, 0, 6, 11), Date.UTC(2025, 0, 6, 14), c)).toBe(2 * H);
  });

  it('reads the hours in the calendar time zone, across a daylight-saving change', () => {
    const ams = parseCalendar({ timeZone: 'Europe/Amsterdam', days: [1, 2, 3, 4, 5, 6, 7] });
    // 09:00-17:00 Amsterdam is 08:00-16:00 UTC in winter.
    expect(workingMillisBetween(Date.UTC(2025, 0, 6, 7), Date.UTC(2025, 0, 6, 9), ams)).toBe(1 * H);
    // Summer time starts 30 March 2025; a week around it still has 8 working hours a day.
    expect(workingMillisBetween(Date.UTC(2025, 2, 27), Date.UTC(2025, 3, 3), ams)).toBe(7 * 8 * H);
    expect(workingMillisBetween(Date.UTC(2025, 2, 31, 6), Date.UTC(2025, 2, 31, 8), ams)).toBe(1 * H);
  });

  it('refuses a bad calendar with the reason', () => {
    expect(() => parseCalendar({ timeZone: 'Mars/Olympus' })).toThrow(/time zone/);
    expect(() => parseCalendar({ hours: [{ from: '17:00', to: '09:00' }] })).toThrow(/before/);
    expect(() => parseCalendar({ hours: [{ from: '09:00', to: '13:00' }, { from: '12:00', to: '17:00' }] })).toThrow(/overlap/);
    expect(() => parseCalendar({ days: [0] })).toThrow(/days/);
    expect(() => parseCalendar({ weekend: true })).toThrow(/weekend/);
  });
});
