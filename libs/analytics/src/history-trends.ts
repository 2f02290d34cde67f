import { MIN_TREND_BUCKETS, type TemporalInterval, type Trend } from '#dowsing';
import type { RollupTally } from '#history';
import { mannKendall, type Rate } from '#statistics';
import { hitRateOf, meanConfidenceOf, tallyBy } from './case-tally.js';

/** A bucket's hit rate over fewer verified cases than this is mostly noise. */
export const MIN_BUCKET_VERIFIED = 5;

export interface TrendBucket {
  start: Date;
  end: Date;
  /** The bucket is over: only complete buckets feed the count trend. */
  complete: boolean;
  cases: number;
  verified: number;
  hitRate: Rate | null;
  meanConfidence: number | null;
}

export interface HistoryTrends {
  interval: TemporalInterval;
  buckets: TrendBucket[];
  trends: { cases: Trend | null; hitRate: Trend | null; meanConfidence: Trend | null };
  warning: string | null;
}

/**
 * The buckets (from `bucketsCovering`) filled from rollup tallies summed per bucket, and
 * the Mann–Kendall trend (with Sen's slope per interval) of the count over
 * complete buckets, of the hit rate over the buckets with verified cases and
 * of the mean confidence over those with a confidence, each at its place in
 * time; a trend needs 3 values (else null).
 */
export function historyTrends(
  interval: TemporalInterval,
  ranges: readonly { start: Date; end: Date }[],
  rows: readonly RollupTally[],
  now: Date,
): HistoryTrends {
  // Rows come summed per bucket, each dated by its bucket's first day.
  const byBucket = tallyBy(rows, (row) => Date.parse(`${row.day}T00:00:00Z`));
  const buckets = ranges.map(({ start, end }): TrendBucket => {
    const tally = byBucket.get(start.getTime()) ?? null;
    return {
      start,
      end,
      complete: end <= now,
      cases: tally?.cases ?? 0,
      verified: tally?.verified ?? 0,
      hitRate: tally ? hitRateOf(tally) : null,
      meanConfidence: tally ? meanConfidenceOf(tally) : null,
    };
  });
  const indexed = buckets.map((bucket, index) => ({ bucket, index }));
  const complete = indexed.filter(({ bucket }) => bucket.complete);
  const rated = indexed.filter(({ bucket }) => bucket.hitRate !== null);
  const confident = indexed.filter(({ bucket }) => bucket.meanConfidence !== null);
  return {
    interval,
    buckets,
    trends: {
      cases: trend(complete.map(({ bucket, index }) => [index, bucket.cases])),
      hitRate: trend(rated.map(({ bucket, index }) => [index, bucket.hitRate!.value])),
      meanConfidence: trend(confident.map(({ bucket, index }) => [index, bucket.meanConfidence!])),
    },
    warning: warningOf(buckets, complete.length, rated.length),
  };
}

function trend(points: [number, number][]): Trend | null {
  if (points.length < 3) return null;
  const test = mannKendall(
    points.map(([, value]) => value),
    points.map(([time]) => time),
  );
  const direction =
    test.pValue < 0.05 && test.s !== 0 ? (test.s > 0 ? 'increasing' : 'decreasing') : 'none';
  return { ...test, direction };
}

function warningOf(
  buckets: readonly TrendBucket[],
  complete: number,
  rated: number,
): string | null {
  const total = buckets.reduce((sum, bucket) => sum + bucket.cases, 0);
  if (total === 0) return 'No case matched: there is nothing to measure.';
  const warnings: string[] = [];
  if (complete < MIN_TREND_BUCKETS) {
    warnings.push(
      `Only ${complete} complete bucket(s): the count trend needs at least ${MIN_TREND_BUCKETS} to be able to reach p < 0.05.`,
    );
  }
  if (rated < MIN_TREND_BUCKETS) {
    warnings.push(
      `Only ${rated} bucket(s) with verified cases: the hit-rate trend needs at least ${MIN_TREND_BUCKETS} to be able to reach p < 0.05.`,
    );
  }
  const sizes = buckets
    .filter((bucket) => bucket.verified > 0)
    .map((bucket) => bucket.verified)
    .sort((a, b) => a - b);
  if (sizes.length > 0 && sizes[Math.floor((sizes.length - 1) / 2)]! < MIN_BUCKET_VERIFIED) {
    warnings.push(
      `Half the buckets with verified cases hold fewer than ${MIN_BUCKET_VERIFIED}: their hit rates are mostly noise.`,
    );
  }
  return warnings.length > 0 ? warnings.join(' ') : null;
}
