import { describe, expect, it } from 'vitest';
import type { RollupTally } from '#history';
import { defaultBaseline } from './case-baselines.js';
import { hitRateOf, meanConfidenceOf, tallyOf } from './case-tally.js';

function row(overrides: Partial<RollupTally>): RollupTally {
  return {
    type: 'remote_viewing',
    subtype: '',
    modality: '',
    day: null,
    workStatus: 'completed',
    cases: 0,
    verified: 0,
    hits: 0,
    partials: 0,
    misses: 0,
    confidenceSum: 0,
    confidenceCount: 0,
    baselineSum: 0,
    baselineCount: 0,
    ...overrides,
  };
}

describe('default baselines', () => {
  it('are the kind’s p0', () => {
    expect(defaultBaseline('remote_viewing', null)).toBe(0.25);
    expect(defaultBaseline('analysis', 'quick_scan')).toBe(0.25);
    expect(defaultBaseline('dowsing', 'yes_no')).toBeCloseTo(1 / 3, 12);
    expect(defaultBaseline('dowsing', 'information')).toBe(1 / 8);
    expect(defaultBaseline('dowsing', null)).toBe(0.25);
  });
});

describe('tallies', () => {
  it('give verified cases without a baseline their kind’s default, and rate hits against the mean', () => {
    // 4 verified: one records 0.5, three take 1/3 (dowsing yes_no): mean (0.5 + 1)/4 = 0.375.
    const tally = tallyOf(
      row({
        type: 'dowsing',
        subtype: 'yes_no',
        cases: 5,
        verified: 4,
        hits: 2,
        partials: 1,
        misses: 1,
        baselineSum: 0.5,
        baselineCount: 1,
        confidenceSum: 1.5,
        confidenceCount: 2,
      }),
    );
    const rate = hitRateOf(tally)!;
    expect(rate).toMatchObject({ successes: 2, n: 4, value: 0.5, baseline: 0.375 });
    // P(X ≥ 2 | 4, 0.375) = 1 − 0.625⁴ − 4 · 0.375 · 0.625³
    expect(rate.pValue).toBeCloseTo(1 - 0.625 ** 4 - 4 * 0.375 * 0.625 ** 3, 9);
    expect(meanConfidenceOf(tally)).toBe(0.75);
  });

  it('have no rate without a verified case and no mean without a confidence', () => {
    const tally = tallyOf(row({ cases: 3 }));
    expect(hitRateOf(tally)).toBeNull();
    expect(meanConfidenceOf(tally)).toBeNull();
  });
});
