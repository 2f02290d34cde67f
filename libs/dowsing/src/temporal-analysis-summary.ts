import { mannKendall, type MannKendallTest, type Rate } from '#statistics';

/**
 * What temporal analysis says about its buckets: the Mann–Kendall trends of
 * the count and of the confidence above chance, and a warning when the
 * buckets are too few or too small for either to mean much.
 */

export interface TemporalBucket {
  start: Date;
  end: Date;
  /** The bucket is over (its end is past): only complete buckets feed the count trend. */
  complete: boolean;
  count: number;
  meanConfidence: number | null;
  meanBaseline: number | null;
  /** Queries whose own test beat chance at p < 0.05, against the 5 % chance gives. */
  significant: Rate | null;
}

export interface Trend extends MannKendallTest {
  /** 'increasing' or 'decreasing' when p < 0.05, else 'none'. */
  direction: 'increasing' | 'decreasing' | 'none';
}

export interface TemporalSummary {
  totalQueries: number;
  trends: { count: Trend | null; excessConfidence: Trend | null };
  warning: string | null;
}

/** Below this, Mann–Kendall cannot reach p < 0.05 at all (4 values: 2/4! = 0.083). */
export const MIN_TREND_BUCKETS = 5;
/** A bucket mean over fewer queries than this is mostly noise. */
export const MIN_BUCKET_QUERIES = 5;
/** The level at which a query's own test counts as beating chance; 5 % of queries do by chance. */
export const SIGNIFICANCE_LEVEL = 0.05;

/**
 * The count trend runs over the complete buckets (empty ones count 0: no
 * queries is a count); the confidence trend over the buckets with queries,
 * each at its place in time (Sen's slope per interval either way).
 */
export function summarize(buckets: readonly TemporalBucket[]): TemporalSummary {
  const totalQueries = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  const indexed = buckets.map((bucket, index) => ({ bucket, index }));
  const complete = indexed.filter(({ bucket }) => bucket.complete);
  const answered = indexed.filter(({ bucket }) => bucket.count > 0);
  const count = trend(
    complete.map(({ bucket }) => bucket.count),
    complete.map(({ index }) => index),
  );
  const excessConfidence = trend(
    answered.map(({ bucket }) => bucket.meanConfidence! - bucket.meanBaseline!),
    answered.map(({ index }) => index),
  );
  const warnings: string[] = [];
  if (totalQueries === 0) {
    warnings.push('No completed query matched: there is nothing to measure.');
  } else {
    if (complete.length < MIN_TREND_BUCKETS) {
      warnings.push(
        `Only ${complete.length} complete ${plural(complete.length, 'bucket')}: the count trend needs at least ${MIN_TREND_BUCKETS} to be able to reach p < 0.05.`,
      );
    }
    if (answered.length < MIN_TREND_BUCKETS) {
      warnings.push(
        `Only ${answered.length} ${plural(answered.length, 'bucket')} with queries: the confidence trend needs at least ${MIN_TREND_BUCKETS} to be able to reach p < 0.05.`,
      );
    }
    const sizes = answered.map(({ bucket }) => bucket.count).sort((a, b) => a - b);
    const median = sizes[Math.floor((sizes.length - 1) / 2)]!;
    if (median < MIN_BUCKET_QUERIES) {
      warnings.push(
        `Half the buckets with queries hold ${median === 1 ? 'one query' : `${median} or fewer queries`} (fewer than ${MIN_BUCKET_QUERIES}): their means are mostly noise.`,
      );
    }
  }
  return {
    totalQueries,
    trends: { count, excessConfidence },
    warning: warnings.length > 0 ? warnings.join(' ') : null,
  };
}

/** Mann–Kendall over at least 3 values (fewer cannot say anything). */
function trend(values: number[], times: number[]): Trend | null {
  if (values.length < 3) return null;
  const test = mannKendall(values, times);
  const direction =
    test.pValue < 0.05 && test.s !== 0 ? (test.s > 0 ? 'increasing' : 'decreasing') : 'none';
  return { ...test, direction };
}

function plural(n: number, noun: string): string {
  return n === 1 ? noun : `${noun}s`;
}
