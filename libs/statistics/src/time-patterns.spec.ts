import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEEKDAYS, weekdayHourCounts } from './time-patterns.js';

describe('weekdayHourCounts', () => {
  it('counts by UTC weekday (Monday first) and hour', () => {
    const counts = weekdayHourCounts([
      new Date('2024-01-01T00:30:00Z'), // a Monday
      new Date('2024-01-07T23:59:59Z'), // the Sunday after
      new Date('1970-01-01T12:00:00Z'), // the epoch was a Thursday
      new Date('2024-01-01T01:30:00+02:00'), // 23:30 UTC on Sunday 31 December 2023
    ]);
    expect(counts.weekday).toEqual([1, 0, 0, 1, 0, 0, 2]);
    expect(counts.hour[0]).toBe(1);
    expect(counts.hour[12]).toBe(1);
    expect(counts.hour[23]).toBe(2);
    expect(counts.hour.reduce((s, c) => s + c, 0)).toBe(4);
    expect(WEEKDAYS[3]).toBe('thursday');
  });

  it('is all zeros without timestamps and rejects invalid dates', () => {
    expect(weekdayHourCounts([])).toEqual({
      weekday: new Array(7).fill(0),
      hour: new Array(24).fill(0),
    });
    expect(() => weekdayHourCounts([new Date('not a date')])).toThrow(RangeError);
  });

  it('agrees with the day count since a known Monday (property)', () => {
    const monday = Date.UTC(2024, 0, 1);
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 4e12 }), (ms) => {
        const counts = weekdayHourCounts([new Date(ms)]);
        const days = Math.floor((ms - monday) / 86_400_000);
        expect(counts.weekday[((days % 7) + 7) % 7]).toBe(1);
        expect(
          counts.hour[Math.floor((((ms % 86_400_000) + 86_400_000) % 86_400_000) / 3_600_000)],
        ).toBe(1);
      }),
    );
  });
});
