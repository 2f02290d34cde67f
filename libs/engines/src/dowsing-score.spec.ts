import { describe, expect, it } from 'vitest';
import { scoreJudged, supportShare } from './dowsing-score.js';

describe('scoreJudged', () => {
  it('scores 7 hits of 12 yes/no readings against chance 1/3 (worked example)', () => {
    // P(X ≥ 7 | 12, ⅓) = Σ C(12,k) (⅓)^k (⅔)^(12−k) for k ≥ 7 = 35 313 / 531 441 = 0.0664476.
    // z = (7 − 4) / √(12·⅓·⅔) = 1.837117, effect z/√12 = 0.530330.
    // Confidence (7 + ⅔) / (12 + 2) = 0.547619.
    expect(scoreJudged({ hits: 7, trials: 12, p0: 1 / 3 })).toEqual({
      p_value: 0.0664476,
      effect_size: 0.53033,
      sample_size: 12,
      confidence: 0.547619,
      confidence_interval: [0.319511, 0.80674],
      baseline: 0.333333,
    });
  });

  it('sits exactly at chance when the hits are what chance expects', () => {
    const score = scoreJudged({ hits: 3, trials: 12, p0: 0.25 });
    expect(score.effect_size).toBe(0);
    expect(score.confidence).toBe(0.25);
    expect(score.p_value).toBeGreaterThan(0.5);
  });

  it('never claims more than n readings allow: all 12 hits at chance ½ is p = 1/4096', () => {
    expect(scoreJudged({ hits: 12, trials: 12, p0: 0.5 }).p_value).toBe(roundSix(1 / 4096));
  });
});

describe('supportShare', () => {
  it('shrinks a share towards chance and gives the Wilson interval of the raw share', () => {
    const backing = supportShare(0, 12, 0.25);
    expect(backing.share).toBeCloseTo(0.5 / 14, 12);
    expect(backing.confidence_interval[0]).toBe(0);
  });
});

function roundSix(p: number): number {
  return Number(p.toPrecision(6));
}
