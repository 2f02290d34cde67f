import { describe, expect, it } from 'vitest';
import {
  MIN_TRACK_RECORD_TRIALS,
  trackRecordOf,
  trackRecordSentence,
  type JudgedTrialGroup,
} from './track-record.js';

const group = (setSize: number, trials: number, hits: number, saic: number[][] = []) =>
  ({
    setSize,
    trials,
    hits,
    scoredTrials: saic.length,
    accuracySum: saic.reduce((sum, [a]) => sum + a!, 0),
    reliabilitySum: saic.reduce((sum, [, r]) => sum + r!, 0),
  }) satisfies JudgedTrialGroup;

describe('trackRecordOf', () => {
  it('3 hits in 5 trials of five candidates: p = P(X ≥ 3 | 5, 1/5) = 0.05792, Wilson, θ = 3.4/7', () => {
    const record = trackRecordOf([group(5, 5, 3)]);
    expect(record).toMatchObject({ trials: 5, hits: 3, evidence: 'track_record' });
    expect(record.hitRate).toMatchObject({ value: 0.6, successes: 3, n: 5, baseline: 0.2 });
    // 0.0512 + 0.0064 + 0.00032
    expect(record.hitRate.pValue).toBeCloseTo(0.05792, 12);
    expect(record.hitRate.ciLow).toBeCloseTo(0.230724, 5);
    expect(record.hitRate.ciHigh).toBeCloseTo(0.882379, 5);
    // (hits + a)/(n + a + b), a = 0.2·2, b = 0.8·2
    expect(record.theta).toBeCloseTo(3.4 / 7, 12);
    expect(record.saicAccuracy).toBeNull();
    expect(record.saicReliability).toBeNull();
  });

  it('mixes set sizes: exact Poisson-binomial tail, mean baseline, θ toward the mean baseline', () => {
    // 3 trials of 2 candidates (p = 1/2) and 2 of 4 (p = 1/4); hits 2 + 2 = 4 of 5.
    // P(X ≥ 4), X = A + B, A ~ Bin(3, 1/2), B ~ Bin(2, 1/4):
    // P(A=3)·P(B≥1) + P(A=2)·P(B=2) = 1/8·7/16 + 3/8·1/16 = 7/128 + 3/128 = 10/128 = 0.078125
    // (A = 3, B ≥ 1 or A = 2, B = 2; A ≤ 1 cannot reach 4).
    const record = trackRecordOf([group(2, 3, 2), group(4, 2, 2)]);
    expect(record.hitRate.pValue).toBeCloseTo(0.078125, 12);
    // (3·½ + 2·¼)/5 = 0.4
    expect(record.hitRate.baseline).toBe(0.4);
    expect(record.theta).toBeCloseTo((4 + 0.8) / 7, 12);
  });

  it('means SAIC over the trials that had ground-truth descriptors only', () => {
    const record = trackRecordOf([
      group(5, 4, 1, [
        [1, 0.5],
        [0.5, 0.25],
      ]),
      group(3, 2, 1, [[0, 0]]),
    ]);
    expect(record.saicAccuracy).toBeCloseTo(1.5 / 3, 6);
    expect(record.saicReliability).toBeCloseTo(0.75 / 3, 6);
  });

  it('too few trials: the chance prior, said plainly', () => {
    const record = trackRecordOf([group(5, MIN_TRACK_RECORD_TRIALS - 2, 3)]);
    expect(record.evidence).toBe('prior');
    expect(record.theta).toBe(0.2);
    expect(record.hitRate).toMatchObject({ successes: 3, n: 3, value: 1 });
    expect(trackRecordSentence(record)).toBe(
      '3 judged trials: too few to rest on (fewer than 5); chance prior (20 %) used.',
    );
  });

  it('no trials: zeros, the interval [0, 1], p = 1, θ the default chance', () => {
    const record = trackRecordOf([]);
    expect(record).toEqual({
      trials: 0,
      hits: 0,
      hitRate: { value: 0, successes: 0, n: 0, ciLow: 0, ciHigh: 1, baseline: 0.2, pValue: 1 },
      saicAccuracy: null,
      saicReliability: null,
      theta: 0.2,
      evidence: 'prior',
    });
    expect(trackRecordSentence(record)).toBe(
      'No judged trials yet: the chance prior (20 %) is used.',
    );
  });

  it('says a record it rests on with its interval and p-value', () => {
    expect(trackRecordSentence(trackRecordOf([group(5, 5, 3)]))).toBe(
      '5 judged trials, 3 hits: 60 % (95 % CI 23.1–88.2 %) against 20 % by chance, p = 0.0579.',
    );
  });
});
