import { describe, expect, it } from 'vitest';
import { verifiedOutcomeStatistics, verifiedRecord } from './verified-outcomes.js';

describe('verifiedRecord', () => {
  it('adds up tallies of one baseline, drops empty ones and orders by baseline', () => {
    expect(
      verifiedRecord([
        { p0: 1 / 3, hits: 2, partials: 1, misses: 1 },
        { p0: 0.125, hits: 0, partials: 0, misses: 0 },
        { p0: 0.25, hits: 1, partials: 0, misses: 2 },
        { p0: 1 / 3, hits: 1, partials: 0, misses: 3 },
      ]),
    ).toEqual({
      n: 11,
      hits: 4,
      partials: 1,
      misses: 6,
      byBaseline: [
        { p0: 0.25, hits: 1, partials: 0, misses: 2 },
        { p0: 1 / 3, hits: 3, partials: 1, misses: 4 },
      ],
    });
    expect(verifiedRecord([])).toEqual({ n: 0, hits: 0, partials: 0, misses: 0, byBaseline: [] });
    expect(() => verifiedRecord([{ p0: 2, hits: 1, partials: 0, misses: 0 }])).toThrow(RangeError);
    expect(() => verifiedRecord([{ p0: 0.5, hits: -1, partials: 0, misses: 0 }])).toThrow(
      RangeError,
    );
  });
});

describe('verifiedOutcomeStatistics', () => {
  it('worked example: 12 yes/no cases, 7 hits, 1 partial (docs/statistics.md)', () => {
    const stats = verifiedOutcomeStatistics(
      verifiedRecord([{ p0: 1 / 3, hits: 7, partials: 1, misses: 4 }]),
    );
    expect(stats).toMatchObject({ n: 12, hits: 7, partials: 1, misses: 4 });
    expect(stats.expectedHits).toBeCloseTo(4, 12);
    expect(stats.meanP0).toBeCloseTo(1 / 3, 12);
    // The partial counts as a miss: P(X ≥ 7 | 12, 1/3) = 11771/177147.
    expect(stats.pValue).toBeCloseTo(11_771 / 177_147, 14);
    expect(stats.pValueMethod).toBe('binomial');
    // z = (7 − 4)/√(12·⅓·⅔) = 1.8371, effect size z/√12 = 0.5303.
    expect(stats.z).toBeCloseTo(1.8371173070873836, 12);
    expect(stats.effectSize).toBeCloseTo(0.5303300858899107, 12);
    // Wilson 95 % of 7/12; calibrated (7 + ⅔)/(12 + 2).
    expect(stats.confidenceInterval[0]).toBeCloseTo(0.31951131254954973, 12);
    expect(stats.confidenceInterval[1]).toBeCloseTo(0.8067396863412435, 12);
    expect(stats.calibratedRate).toBeCloseTo((7 + 2 / 3) / 14, 14);
  });

  it('worked example: baselines that differ (8 yes/no at 1/3, 4 choices among 8 at 1/8)', () => {
    const stats = verifiedOutcomeStatistics(
      verifiedRecord([
        { p0: 1 / 3, hits: 4, partials: 0, misses: 4 },
        { p0: 1 / 8, hits: 1, partials: 0, misses: 3 },
      ]),
    );
    expect(stats.expectedHits).toBeCloseTo(8 / 3 + 0.5, 12);
    expect(stats.meanP0).toBeCloseTo((8 / 3 + 0.5) / 12, 12);
    // Poisson-binomial P(X ≥ 5), enumerated with exact fractions: 50975/279936.
    expect(stats.pValue).toBeCloseTo(50_975 / 279_936, 14);
    expect(stats.pValueMethod).toBe('exact');
    // Stouffer over the 12 trials: (√8·z₁ + √4·z₂)/√12 with each group's binomial z.
    expect(stats.z).toBeCloseTo(1.252932361399711, 12);
    expect(stats.effectSize).toBeCloseTo(0.3616904180652583, 12);
    expect(stats.calibratedRate).toBeCloseTo((5 + 2 * stats.meanP0) / 14, 14);
  });

  it('sits at chance when the hits are what chance expects', () => {
    const stats = verifiedOutcomeStatistics(
      verifiedRecord([{ p0: 0.25, hits: 3, partials: 0, misses: 9 }]),
    );
    expect(stats.z).toBe(0);
    expect(stats.calibratedRate).toBeCloseTo(0.25, 14);
    expect(stats.pValue).toBeGreaterThan(0.5);
  });

  it('lets trials at p0 0 or 1 count but add nothing to z', () => {
    const stats = verifiedOutcomeStatistics(
      verifiedRecord([
        { p0: 1, hits: 2, partials: 0, misses: 0 },
        { p0: 0.5, hits: 2, partials: 0, misses: 2 },
      ]),
    );
    expect(stats.n).toBe(6);
    expect(stats.z).toBe(0);
    expect(stats.effectSize).toBe(0);
    expect(stats.pValue).toBeCloseTo(11 / 16, 14); // P(X ≥ 4) = P(Bin(4, ½) ≥ 2)
  });

  it('refuses no trials and totals that disagree with the tallies', () => {
    expect(() => verifiedOutcomeStatistics(verifiedRecord([]))).toThrow(RangeError);
    const record = verifiedRecord([{ p0: 0.25, hits: 1, partials: 0, misses: 1 }]);
    expect(() => verifiedOutcomeStatistics({ ...record, hits: 2 })).toThrow(RangeError);
  });
});
