import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chiSquareMonteCarloPValue } from './chi-square-monte-carlo.js';
import { chiSquareGoodnessOfFit, chiSquareSurvival, chiSquareUniformity } from './chi-square.js';
import { mulberry32 } from './mulberry32.js';
import { erfc } from './normal.js';

const relativeError = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

/** Multinomial counts of n draws over k equally likely cells. */
function uniformCounts(random: () => number, n: number, k: number): number[] {
  const counts = new Array<number>(k).fill(0);
  for (let i = 0; i < n; i++) counts[Math.floor(random() * k)]! += 1;
  return counts;
}

describe('chiSquareSurvival', () => {
  it('gives 0.05 at the tabulated 95 % points', () => {
    // SciPy 1.17 stats.chi2.ppf(0.95, df); the printed tables give 3.841, 12.592, 35.172.
    expect(chiSquareSurvival(3.841458820694124, 1)).toBeCloseTo(0.05, 14);
    expect(chiSquareSurvival(12.591587243743977, 6)).toBeCloseTo(0.05, 14);
    expect(chiSquareSurvival(35.17246162690806, 23)).toBeCloseTo(0.05, 14);
  });

  it('matches SciPy in the far tail (stats.chi2.sf)', () => {
    expect(relativeError(chiSquareSurvival(100, 23), 1.4078728712722855e-11)).toBeLessThan(1e-11);
    expect(relativeError(chiSquareSurvival(60, 6), 4.501016648012131e-11)).toBeLessThan(1e-11);
    expect(relativeError(chiSquareSurvival(0.5, 7), 0.9994464813904249)).toBeLessThan(1e-13);
  });

  it('equals the closed forms for 1 and 2 degrees of freedom (property)', () => {
    // χ²₁ is Z², so P(χ²₁ ≥ x) = P(|Z| ≥ √x) = erfc(√(x/2)); χ²₂ is
    // exponential with mean 2, so P(χ²₂ ≥ x) = e^(−x/2).
    fc.assert(
      fc.property(fc.double({ min: 0, max: 200, noNaN: true }), (x) => {
        const one = erfc(Math.sqrt(x / 2));
        expect(Math.abs(chiSquareSurvival(x, 1) - one)).toBeLessThan(1e-14 + 1e-11 * one);
        const two = Math.exp(-x / 2);
        expect(Math.abs(chiSquareSurvival(x, 2) - two)).toBeLessThan(1e-14 + 1e-11 * two);
      }),
    );
  });

  it('rejects bad input', () => {
    expect(chiSquareSurvival(0, 3)).toBe(1);
    expect(() => chiSquareSurvival(1, 0)).toThrow(RangeError);
    expect(() => chiSquareSurvival(-1, 3)).toThrow(RangeError);
    expect(() => chiSquareSurvival(Number.NaN, 3)).toThrow(RangeError);
  });
});

describe('chiSquareUniformity', () => {
  it('works a weekday example by hand', () => {
    // 140 items, 20 expected per weekday: X² = (0 + 25 + 4 + 4 + 25 + 100 + 100)/20 = 12.9;
    // SciPy stats.chisquare gives p = 0.04465172691950906.
    const test = chiSquareUniformity([20, 15, 18, 22, 25, 30, 10]);
    expect(test.statistic).toBeCloseTo(12.9, 12);
    expect(test.df).toBe(6);
    expect(test.p_value).toBeCloseTo(0.04465172691950906, 13);
    expect(test.expected).toEqual([20, 20, 20, 20, 20, 20, 20]);
    expect(test.small_expected).toBe(false);
  });

  it('flags expected counts below 5 and gives no evidence without observations', () => {
    // 30 items over 24 hours: 1.25 expected per hour.
    const hours = new Array<number>(24).fill(1);
    hours[0] = 7;
    expect(chiSquareUniformity(hours).small_expected).toBe(true);
    expect(chiSquareUniformity([0, 0, 0])).toEqual({
      statistic: 0,
      df: 2,
      p_value: 1,
      expected: [0, 0, 0],
      small_expected: true,
    });
  });

  it('rejects bad input', () => {
    expect(() => chiSquareUniformity([5])).toThrow(RangeError);
    expect(() => chiSquareUniformity([5, -1])).toThrow(RangeError);
    expect(() => chiSquareUniformity([5, 1.5])).toThrow(RangeError);
  });

  it('gives about 5 % of p-values below 0.05 under the null (property)', () => {
    const random = mulberry32(2024);
    for (const k of [7, 24]) {
      const draws = 2_000;
      let below = 0;
      for (let d = 0; d < draws; d++) {
        if (chiSquareUniformity(uniformCounts(random, 500, k)).p_value < 0.05) below++;
      }
      // Binomial sd of the share over 2000 draws: √(.05·.95/2000) ≈ 0.0049; allow 3 sd.
      expect(Math.abs(below / draws - 0.05)).toBeLessThan(0.015);
    }
  });
});

describe('chiSquareGoodnessOfFit', () => {
  it('tests against given probabilities', () => {
    // SciPy stats.chisquare([30,14,34,45,57,20], f_exp = 200·p): 11.441666666666666, 0.04329313031580497.
    const p = [0.1, 0.1, 0.15, 0.2, 0.3, 0.15];
    const test = chiSquareGoodnessOfFit([30, 14, 34, 45, 57, 20], p);
    expect(test.statistic).toBeCloseTo(11.441666666666666, 12);
    expect(test.df).toBe(5);
    expect(test.p_value).toBeCloseTo(0.04329313031580497, 13);
    expect(test.expected.map((e) => Math.round(e * 1e9) / 1e9)).toEqual([20, 20, 30, 40, 60, 30]);
  });

  it('rejects probabilities that are not a distribution over the cells', () => {
    expect(() => chiSquareGoodnessOfFit([1, 2], [0.5])).toThrow(RangeError);
    expect(() => chiSquareGoodnessOfFit([1, 2], [0.5, 0.6])).toThrow(RangeError);
    expect(() => chiSquareGoodnessOfFit([1, 2], [1, 0])).toThrow(RangeError);
    expect(() => chiSquareGoodnessOfFit([1, 2], [10, 20])).toThrow(RangeError);
  });
});

describe('chiSquareMonteCarloPValue', () => {
  it('agrees with the exact multinomial p-value for a small sample', () => {
    // 10 items over 7 weekdays, X² = 11. Exact P(X² ≥ 11) by enumerating all
    // 8008 tables of the multinomial(10, 1/7) in Python: 0.10085361142561346
    // (the χ² approximation says 0.0884, and the result is flagged).
    const counts = [4, 0, 1, 2, 0, 3, 0];
    expect(chiSquareUniformity(counts).small_expected).toBe(true);
    const p = chiSquareMonteCarloPValue(counts, undefined, { replicates: 19_999 });
    // Monte-Carlo sd: √(0.1·0.9/20000) ≈ 0.0021; allow 3 sd.
    expect(Math.abs(p - 0.10085361142561346)).toBeLessThan(0.0065);
    // The same input gives the same answer.
    expect(chiSquareMonteCarloPValue(counts, undefined, { replicates: 19_999 })).toBe(p);
  });

  it('handles the edges and rejects bad input', () => {
    expect(chiSquareMonteCarloPValue([0, 0, 0])).toBe(1);
    // All 3 items in one of 3 cells: X² = 6; P = 3/27 exactly.
    const p = chiSquareMonteCarloPValue([3, 0, 0], [1 / 3, 1 / 3, 1 / 3], { replicates: 9_999 });
    expect(Math.abs(p - 1 / 9)).toBeLessThan(0.01);
    expect(() => chiSquareMonteCarloPValue([1, 2], undefined, { replicates: 0 })).toThrow(
      RangeError,
    );
  });

  it('is valid at small n: at most about 5 % below 0.05 under the null (property)', () => {
    const random = mulberry32(77);
    const draws = 400;
    let below = 0;
    for (let d = 0; d < draws; d++) {
      const counts = uniformCounts(random, 12, 24);
      if (chiSquareMonteCarloPValue(counts, undefined, { replicates: 199, seed: d }) <= 0.05) {
        below++;
      }
    }
    // Discrete X² makes it conservative; 3 binomial sd above 5 % is 0.083.
    expect(below / draws).toBeLessThan(0.083);
  });
});
