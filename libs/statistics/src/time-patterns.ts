/**
 * Counts of timestamps by weekday and by hour of the day, in UTC, as the
 * cells of a chi-square uniformity test (chi-square.ts). UTC because a
 * timestamp carries no time zone; patterns in local time need the caller
 * to shift the timestamps first.
 */

export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;

export interface WeekdayHourCounts {
  /** Seven counts, Monday first (ISO 8601 order). */
  weekday: number[];
  /** Twenty-four counts, hour 0 (00:00–00:59 UTC) first. */
  hour: number[];
}

export function weekdayHourCounts(timestamps: readonly Date[]): WeekdayHourCounts {
  const weekday = new Array<number>(7).fill(0);
  const hour = new Array<number>(24).fill(0);
  timestamps.forEach((t, i) => {
    if (!(t instanceof Date) || Number.isNaN(t.getTime())) {
      throw new RangeError(`timestamps[${i}] is not a valid date`);
    }
    // getUTCDay counts from Sunday = 0; ISO weeks start on Monday.
    weekday[(t.getUTCDay() + 6) % 7]! += 1;
    hour[t.getUTCHours()]! += 1;
  });
  return { weekday, hour };
}
