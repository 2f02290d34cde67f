import { describe, expect, it } from 'vitest';
import {
  combineSubmissions,
  type RecordForResults,
  type SubmissionForResults,
} from './combine-submissions.js';

const P0 = 0.2;

function record(hits: number, trials: number, theta: number, baseline = P0): RecordForResults {
  return {
    trials,
    hits,
    theta,
    baseline,
    saicAccuracy: null,
    saicReliability: null,
    established: trials >= 5,
  };
}

const paris = { latitude: 48.8566, longitude: 2.3522 };
const lyon = { latitude: 45.764, longitude: 4.8357 };

describe('combineSubmissions', () => {
  it('weighs nobody above chance equally, says so, and rests on the prior', () => {
    const submissions: SubmissionForResults[] = [
      { analystId: 'analyst_a', descriptors: ['Water', 'tall'], point: paris, notes: null },
      { analystId: 'analyst_b', descriptors: ['water', 'cold'], point: null, notes: 'Wind.\nMore' },
    ];
    const combined = combineSubmissions(submissions, new Map(), P0, null);
    expect(combined.equalWeightsFallback).toBe(true);
    expect(combined.collaborativeInsights.map((i) => i.contribution_weight)).toEqual([0.5, 0.5]);
    expect(combined.evidence).toBe('prior');
    expect(combined.descriptorSupport).toEqual({ water: 1, cold: 0.5, tall: 0.5 });
    expect(combined.descriptors).toEqual(['water', 'cold', 'tall']);
    // One point: the place is that point, with no dispersion to judge.
    expect(combined.coordinates).toEqual({ ...paris, confidence: 0 });
    expect(combined.statisticalValidation).toEqual({
      p_value: 1,
      confidence_interval: [0, 1],
      sample_size: 0,
    });
    // Agreement on descriptors: supports 1, .5, .5 rescaled for 2 analysts → 1, 0, 0.
    expect(combined.confidenceScore).toBeCloseTo(1 / 3, 6);
    expect(combined.collaborativeInsights[1]!.key_insights).toEqual(['water', 'cold', 'Wind.']);
  });

  it('gives one analyst the confidence of their calibrated record and its exact test', () => {
    const combined = combineSubmissions(
      [{ analystId: 'analyst_a', descriptors: ['water'], point: paris, notes: null }],
      new Map([['analyst_a', record(6, 10, 0.45)]]),
      P0,
      null,
    );
    expect(combined.evidence).toBe('track_record');
    expect(combined.confidenceScore).toBe(0.45);
    // P(X ≥ 6 | n = 10, p = 0.2) = 0.0063694 (hand-computed).
    expect(combined.statisticalValidation.p_value).toBeCloseTo(0.0063694, 6);
    expect(combined.statisticalValidation.sample_size).toBe(10);
  });

  it('weighs skill above chance, puts the place with the skilled, and pools every trial', () => {
    const combined = combineSubmissions(
      [
        { analystId: 'analyst_a', descriptors: ['water'], point: paris, notes: null },
        { analystId: 'analyst_b', descriptors: ['land'], point: lyon, notes: null },
      ],
      new Map([
        ['analyst_a', { ...record(6, 10, 0.5), saicAccuracy: 0.6, saicReliability: 0.4 }],
        ['analyst_b', { ...record(1, 5, 0.2, 0.25), saicAccuracy: 0.1, saicReliability: 0.9 }],
      ]),
      P0,
      null,
    );
    expect(combined.equalWeightsFallback).toBe(false);
    expect(combined.collaborativeInsights.map((i) => i.contribution_weight)).toEqual([1, 0]);
    expect(combined.leadAnalystId).toBe('analyst_a');
    expect(combined.coordinates!.latitude).toBeCloseTo(paris.latitude, 4);
    expect(combined.coordinates!.longitude).toBeCloseTo(paris.longitude, 4);
    // SAIC means weighted by contribution: all of A's.
    expect(combined.validationMetrics).toEqual({ accuracy: 0.6, reliability: 0.4 });
    // 7 hits in 15 trials, 10 at 1/5 and 5 at 1/4: P(X ≥ 7) = 0.0273240 (Poisson-binomial,
    // hand-convolved); Wilson 95 % of 7/15 = [0.248095, 0.698830].
    expect(combined.statisticalValidation.p_value).toBeCloseTo(0.027324, 6);
    expect(combined.statisticalValidation.confidence_interval).toEqual([0.248095, 0.69883]);
    expect(combined.statisticalValidation.sample_size).toBe(15);
  });

  it('lets verified outcomes speak above any track record', () => {
    const combined = combineSubmissions(
      [{ analystId: 'analyst_a', descriptors: [], point: null, notes: null }],
      new Map([['analyst_a', record(6, 10, 0.45)]]),
      P0,
      {
        n: 8,
        hits: 5,
        partials: 0,
        misses: 3,
        expectedHits: 2,
        meanP0: 0.25,
        pValue: 0.027,
        pValueMethod: 'exact',
        effectSize: 0.9,
        confidenceInterval: [0.3, 0.86],
        calibratedRate: 0.52,
      } as never,
    );
    expect(combined.evidence).toBe('verified');
    expect(combined.confidenceScore).toBe(0.52);
    expect(combined.statisticalValidation).toEqual({
      p_value: 0.027,
      confidence_interval: [0.3, 0.86],
      sample_size: 8,
    });
    expect(combined.coordinates).toBeNull();
  });
});
