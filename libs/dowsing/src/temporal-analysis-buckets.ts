/**
 * The calendar of temporal analysis: buckets of a day, an ISO week (from
 * Monday) or a calendar month, in UTC — as PostgreSQL's
 * date_trunc(interval, created_at, 'UTC') cuts them.
 */

export const TEMPORAL_INTERVALS = ['day', 'week', 'month'] as const;
export type TemporalInterval = (typeof TEMPORAL_INTERVALS)[number];

export const MAX_TEMPORAL_BUCKETS = 1_000;

const DAY_MS = 86_400_000;

/** The start of the bucket holding `at`. */
export function bucketStart(at: Date, interval: TemporalInterval): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  switch (interval) {
    case 'day':
      return new Date(day);
    case 'week':
      // getUTCDay counts from Sunday = 0; ISO weeks start on Monday.
      return new Date(day - ((at.getUTCDay() + 6) % 7) * DAY_MS);
    case 'month':
      return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  }
}

/** The start of the bucket after the one starting at `start`. */
export function nextBucketStart(start: Date, interval: TemporalInterval): Date {
  switch (interval) {
    case 'day':
      return new Date(start.getTime() + DAY_MS);
    case 'week':
      return new Date(start.getTime() + 7 * DAY_MS);
    case 'month':
      return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  }
}

/**
 * The whole buckets that cover [from, to]: from the start of the one holding
 * `from` to the end of the one holding `to`, at most `max` of them (null
 * when more would be needed).
 */
export function bucketsCovering(
  from: Date,
  to: Date,
  interval: TemporalInterval,
  max = MAX_TEMPORAL_BUCKETS,
): { start: Date; end: Date }[] | null {
  const buckets: { start: Date; end: Date }[] = [];
  let start = bucketStart(from, interval);
  while (start <= to) {
    if (buckets.length === max) return null;
    const end = nextBucketStart(start, interval);
    buckets.push({ start, end });
    start = end;
  }
  return buckets;
}

/** How many buckets cover [from, to], without listing them (for the error's suggestion). */
export function bucketCount(from: Date, to: Date, interval: TemporalInterval): number {
  const first = bucketStart(from, interval);
  const last = bucketStart(to, interval);
  if (interval === 'month') {
    return (
      (last.getUTCFullYear() - first.getUTCFullYear()) * 12 +
      last.getUTCMonth() -
      first.getUTCMonth() +
      1
    );
  }
  const days = (last.getTime() - first.getTime()) / DAY_MS;
  return (interval === 'day' ? days : days / 7) + 1;
}
