import { describe, expect, it } from 'vitest';
import { rateOf } from './rate.js';

describe('rateOf', () => {
  it('is the spec’s rate object: 3 of 20 against 5 %', () => {
    const rate = rateOf(3, 20, 0.05);
    expect(rate).toMatchObject({ value: 0.15, successes: 3, n: 20, baseline: 0.05 });
    // Wilson 95 %: 0.052369 … 0.360419; P(X ≥ 3 | 20, 0.05) = 0.0754837 (scipy.stats.binom.sf(2, 20, 0.05))
    expect(rate.ciLow).toBeCloseTo(0.052368, 5);
    expect(rate.ciHigh).toBeCloseTo(0.360419, 5);
    expect(rate.pValue).toBeCloseTo(0.07548367, 7);
  });
});
