import { describe, expect, it } from 'vitest';
import type { SourceOutcome } from '#history';
import { engineFiguresOf, percentile, type FinishedWork } from './work-performance.js';

function piece(id: string, overrides: Partial<FinishedWork> = {}): FinishedWork {
  return { id, engine: 'simulated', failed: false, seconds: 10, ...overrides };
}

function outcome(sourceId: string, overrides: Partial<SourceOutcome>): SourceOutcome {
  return { sourceId, classified: false, verdict: null, chanceBaseline: null, ...overrides };
}

describe('percentile', () => {
  it('interpolates between the nearest ranks as percentile_cont does', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(percentile([1, 2, 3, 4], 0.9)).toBeCloseTo(3.7, 12);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([0, 100], 0.99)).toBe(99);
  });
});

describe('engineFiguresOf', () => {
  it('sums each engine’s work, its completed seconds and its verified cases against the kind’s default baseline', () => {
    const work = [
      piece('a', { seconds: 4 }),
      piece('b', { seconds: 2 }),
      piece('c', { failed: true, seconds: null }),
      piece('d', { engine: 'analyst', seconds: 60 }),
    ];
    const outcomes = new Map([
      ['a', outcome('a', { verdict: 'hit', chanceBaseline: 0.5 })],
      ['b', outcome('b', { verdict: 'miss' })],
    ]);
    const [simulated, analyst] = engineFiguresOf('analysis', work, outcomes, 0.25);
    expect(simulated).toMatchObject({
      kind: 'analysis',
      engine: 'simulated',
      work: 3,
      failed: 1,
      seconds: [3, 3.8, 3.98],
      accuracy: null,
      scored: 0,
      verified: 2,
      hits: 1,
      baselineSum: 0.75,
    });
    expect(analyst).toMatchObject({ engine: 'analyst', work: 1, seconds: [60, 60, 60] });
  });

  it('leaves out work whose case is classified, and averages the scores the work records', () => {
    const work = [
      piece('a', { accuracy: 0.4, reliability: 0.2, scored: true }),
      piece('b', { accuracy: null, reliability: null, scored: true }),
      piece('c', { accuracy: 0.9, reliability: 0.9, scored: true }),
      piece('d', { failed: true, seconds: null }),
    ];
    const outcomes = new Map([['c', outcome('c', { classified: true, verdict: 'hit' })]]);
    const [figures] = engineFiguresOf('session', work, outcomes, 0.25);
    expect(figures).toMatchObject({
      work: 3,
      failed: 1,
      accuracy: 0.4,
      reliability: 0.2,
      scored: 2,
      verified: 0,
      seconds: [10, 10, 10],
    });
    expect(engineFiguresOf('session', [piece('c')], outcomes, 0.25)).toEqual([]);
  });
});
