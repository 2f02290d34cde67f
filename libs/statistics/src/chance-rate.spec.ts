import { describe, expect, it } from 'vitest';
import { meanChance, rateAgainstChance } from './chance-rate.js';
import { rateOf } from './rate.js';

describe('rateAgainstChance', () => {
  it('is the binomial rate when every trial has one baseline: 3 hits in 5 at p0 = 1/5', () => {
    const rate = rateAgainstChance(3, [{ p: 0.2, trials: 5 }]);
    // P(X ≥ 3 | 5, 0.2) = C(5,3)·0.2³·0.8² + C(5,4)·0.2⁴·0.8 + 0.2⁵
    //                   = 0.0512 + 0.0064 + 0.00032 = 0.05792
    expect(rate.pValue).toBeCloseTo(0.05792, 12);
    // Wilson, z² = 3.841459: centre (0.6 + z²/10)/(1 + z²/5) = 0.556552,
    // half-width z·√(0.6·0.4/5 + z²/100)/(1 + z²/5) = 0.325828
    expect(rate.ciLow).toBeCloseTo(0.230724, 5);
    expect(rate.ciHigh).toBeCloseTo(0.882379, 5);
    expect(rate).toMatchObject({ value: 0.6, successes: 3, n: 5, baseline: 0.2 });
    expect(rate).toEqual(rateOf(3, 5, 0.2));
  });

  it('adds up groups of one baseline', () => {
    expect(
      rateAgainstChance(3, [
        { p: 0.2, trials: 2 },
        { p: 0.2, trials: 3 },
        { p: 0.5, trials: 0 },
      ]),
    ).toEqual(rateOf(3, 5, 0.2));
  });

  it('takes the exact Poisson-binomial tail and the mean baseline when set sizes differ', () => {
    // One trial with 2 candidates (p = 1/2), two with 4 (p = 1/4); 2 hits.
    // X = A + B, A ~ Bernoulli(1/2), B ~ Binomial(2, 1/4): P(B ≥ 1) = 7/16, P(B = 2) = 1/16,
    // P(X ≥ 2) = ½·7/16 + ½·1/16 = 1/4. Mean baseline (1/2 + 1/4 + 1/4)/3 = 1/3.
    const rate = rateAgainstChance(2, [
      { p: 0.5, trials: 1 },
      { p: 0.25, trials: 2 },
    ]);
    expect(rate.pValue).toBeCloseTo(0.25, 12);
    expect(rate.baseline).toBe(0.333333);
    expect(rate).toMatchObject({ value: 0.666667, successes: 2, n: 3 });
    // The interval depends on hits and n alone.
    expect([rate.ciLow, rate.ciHigh]).toEqual([rateOf(2, 3, 0.5).ciLow, rateOf(2, 3, 0.5).ciHigh]);
  });

  it('is p = 1 with no hits, and refuses an empty record', () => {
    expect(
      rateAgainstChance(0, [
        { p: 0.5, trials: 1 },
        { p: 0.2, trials: 4 },
      ]).pValue,
    ).toBe(1);
    expect(() => rateAgainstChance(0, [])).toThrow(RangeError);
    expect(() => rateAgainstChance(2, [{ p: 0.2, trials: 1 }])).toThrow(RangeError);
  });
});

describe('meanChance', () => {
  it('weighs each baseline by its trials', () => {
    expect(
      meanChance([
        { p: 0.2, trials: 3 },
        { p: 0.5, trials: 1 },
      ]),
    ).toBeCloseTo(1.1 / 4, 15);
    expect(
      meanChance([
        { p: 0.2, trials: 3 },
        { p: 0.5, trials: 0 },
      ]),
    ).toBe(0.2);
    expect(meanChance([])).toBe(0);
  });
});
