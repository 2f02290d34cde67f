import { describe, expect, it } from 'vitest';
import { contributionWeights } from './contribution-weights.js';

describe('contributionWeights', () => {
  it('weights only skill above chance', () => {
    const { weights, equalWeightsFallback } = contributionWeights([0.45, 0.35, 0.2], 0.25);
    expect(equalWeightsFallback).toBe(false);
    expect(weights[0]).toBeCloseTo(0.2 / 0.3, 15);
    expect(weights[1]).toBeCloseTo(0.1 / 0.3, 15);
    expect(weights[2]).toBe(0);
  });

  it('falls back to equal weights (flagged) when nobody beats chance', () => {
    expect(contributionWeights([0.25, 0.1], 0.25)).toEqual({
      weights: [0.5, 0.5],
      equalWeightsFallback: true,
    });
    expect(contributionWeights([], 0.25)).toEqual({ weights: [], equalWeightsFallback: false });
  });
});
