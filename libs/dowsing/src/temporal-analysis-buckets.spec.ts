import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bucketCount,
  bucketsCovering,
  bucketStart,
  nextBucketStart,
  TEMPORAL_INTERVALS,
} from './temporal-analysis-buckets.js';

const at = (iso: string) => new Date(iso);

describe('the calendar of temporal analysis (UTC)', () => {
  it('starts days at midnight, ISO weeks on Monday and months on the 1st', () => {
    // 2026-11-26 is a Thursday.
    const thursday = at('2026-11-26T17:45:00Z');
    expect(bucketStart(thursday, 'day')).toEqual(at('2026-11-26T00:00:00Z'));
    expect(bucketStart(thursday, 'week')).toEqual(at('2026-11-23T00:00:00Z'));
    expect(bucketStart(thursday, 'month')).toEqual(at('2026-11-01T00:00:00Z'));
    // A Sunday belongs to the week that began the Monday before; a Monday starts its own.
    expect(bucketStart(at('2026-11-29T23:59:59Z'), 'week')).toEqual(at('2026-11-23T00:00:00Z'));
    expect(bucketStart(at('2026-11-30T00:00:00Z'), 'week')).toEqual(at('2026-11-30T00:00:00Z'));
    // Months of every length, and the year's turn.
    expect(nextBucketStart(at('2028-02-01T00:00:00Z'), 'month')).toEqual(
      at('2028-03-01T00:00:00Z'),
    );
    expect(nextBucketStart(at('2026-12-01T00:00:00Z'), 'month')).toEqual(
      at('2027-01-01T00:00:00Z'),
    );
  });

  it('covers date_from to date_to with whole buckets, the one holding date_to included', () => {
    const buckets = bucketsCovering(
      at('2026-11-03T10:00:00Z'),
      at('2026-12-01T00:00:00Z'),
      'month',
    );
    expect(buckets).toEqual([
      { start: at('2026-11-01T00:00:00Z'), end: at('2026-12-01T00:00:00Z') },
      { start: at('2026-12-01T00:00:00Z'), end: at('2027-01-01T00:00:00Z') },
    ]);
    expect(
      bucketsCovering(at('2026-11-26T05:00:00Z'), at('2026-11-26T06:00:00Z'), 'day'),
    ).toHaveLength(1);
  });

  it('refuses more buckets than allowed, and counts them without listing them', () => {
    const from = at('2020-01-01T00:00:00Z');
    const to = at('2026-03-01T00:00:00Z');
    expect(bucketsCovering(from, to, 'day')).toBeNull();
    expect(bucketCount(from, to, 'day')).toBe(2252);
    expect(bucketCount(from, to, 'week')).toBe(322); // 2019-12-30 to the week of 2026-02-23
    expect(bucketCount(from, to, 'month')).toBe(75);
    expect(bucketsCovering(from, to, 'month')).toHaveLength(75);
  });

  it('lists buckets that follow each other, each holding its start (property)', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: at('1990-01-01T00:00:00Z'),
          max: at('2040-01-01T00:00:00Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: 0, max: 400 * 86_400_000 }),
        fc.constantFrom(...TEMPORAL_INTERVALS),
        (from, span, interval) => {
          const to = new Date(from.getTime() + span);
          const buckets = bucketsCovering(from, to, interval)!;
          expect(buckets.length).toBe(bucketCount(from, to, interval));
          expect(buckets[0]!.start.getTime()).toBeLessThanOrEqual(from.getTime());
          expect(buckets.at(-1)!.end.getTime()).toBeGreaterThan(to.getTime());
          buckets.forEach((bucket, i) => {
            expect(bucketStart(bucket.start, interval)).toEqual(bucket.start);
            if (i > 0) expect(bucket.start).toEqual(buckets[i - 1]!.end);
          });
        },
      ),
    );
  });
});
