import { describe, expect, it } from 'vitest';
import { summarize, type TemporalBucket } from './temporal-analysis-summary.js';

const DAY = 86_400_000;

function buckets(
  counts: number[],
  options: { excess?: number[]; incompleteLast?: boolean } = {},
): TemporalBucket[] {
  return counts.map((count, i) => ({
    start: new Date(i * DAY),
    end: new Date((i + 1) * DAY),
    complete: !(options.incompleteLast && i === counts.length - 1),
    count,
    meanConfidence: count === 0 ? null : 0.25 + (options.excess?.[i] ?? 0),
    meanBaseline: count === 0 ? null : 0.25,
    significant: null,
  }));
}

describe('summarize', () => {
  it('finds a rising count over complete buckets (empty ones count 0) and says nothing when all is well', () => {
    const summary = summarize(buckets([0, 6, 7, 9, 12, 15, 3], { incompleteLast: true }));
    expect(summary.totalQueries).toBe(52);
    // The running bucket (3 so far) is left out: 0, 6, 7, 9, 12, 15 rise strictly.
    expect(summary.trends.count).toMatchObject({
      n: 6,
      s: 15,
      exact: true,
      direction: 'increasing',
      senSlope: 3,
    });
    expect(summary.trends.count!.pValue).toBeCloseTo(2 / 720, 12);
    // The confidence trend covers the six buckets with queries, each at its own place.
    expect(summary.trends.excessConfidence).toMatchObject({ n: 6, s: 0, direction: 'none' });
    expect(summary.warning).toBeNull();
  });

  it("measures the confidence above chance, with Sen's slope per interval across empty buckets", () => {
    const summary = summarize(
      buckets([5, 0, 5, 5, 0, 5, 5], { excess: [0, 0, 0.02, 0.03, 0, 0.05, 0.06] }),
    );
    expect(summary.trends.excessConfidence).toMatchObject({ n: 5, s: 10, direction: 'increasing' });
    // Times 0, 2, 3, 5, 6: the pairwise slopes' median is 0.01 per day.
    expect(summary.trends.excessConfidence!.senSlope).toBeCloseTo(0.01, 12);
    expect(summary.warning).toBeNull();
  });

  it('warns when there is nothing, too few buckets, or too small ones', () => {
    expect(summarize(buckets([0, 0, 0, 0, 0, 0]))).toMatchObject({
      totalQueries: 0,
      trends: { excessConfidence: null },
      warning: 'No completed query matched: there is nothing to measure.',
    });
    const few = summarize(buckets([8, 9, 7]));
    expect(few.trends.count).toMatchObject({ n: 3 });
    expect(few.warning).toMatch(/Only 3 complete buckets: the count trend needs at least 5/);
    expect(few.warning).toMatch(
      /Only 3 buckets with queries: the confidence trend needs at least 5/,
    );
    const two = summarize(buckets([8, 9]));
    expect(two.trends).toEqual({ count: null, excessConfidence: null });
    const small = summarize(buckets([1, 2, 1, 9, 1, 3]));
    expect(small.warning).toBe(
      'Half the buckets with queries hold one query (fewer than 5): their means are mostly noise.',
    );
  });
});
