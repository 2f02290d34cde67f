import { binomialTailP } from '#statistics';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CompletedDowsingOutcome, DowsingRequest, SearchCircle } from './dowsing-engine.js';
import { SimulatedDowsingEngine } from './simulated-dowsing-engine.js';

/**
 * docs/statistics.md, "Dowsing": the simulated dowser's readings ignore the
 * truth, so every variant sits at chance. Over RUNS organisation seeds per
 * variant we compare what the engine reports with what chance predicts,
 * exactly, for its fixed n and p0; each tolerance is 4 standard errors of
 * the Monte Carlo estimate, so the test is deterministic (fixed seeds) and
 * fails only if the engine leaks skill or bias.
 */
const RUNS = 2_000;
const engine = new SimulatedDowsingEngine();
const CIRCLE: SearchCircle = { latitude: 60.17, longitude: 24.94, radius_meters: 2_000 };
const POINT = { latitude: 60.17, longitude: 24.94 };

const base = { question: 'Chance check', precisionLevel: 'standard', context: {} } as const;
const CASES: [string, DowsingRequest][] = [
  ['yes_no', { ...base, queryType: 'yes_no', input: { variant: 'query' } }],
  ['information, compass', { ...base, queryType: 'information', input: { variant: 'query' } }],
  [
    'information, 5 options at high precision',
    {
      ...base,
      precisionLevel: 'high',
      queryType: 'information',
      context: { parameters: { options: ['a', 'b', 'c', 'd', 'e'] } },
      input: { variant: 'query' },
    },
  ],
  [
    'location, standard',
    { ...base, queryType: 'location', context: { location: CIRCLE }, input: { variant: 'query' } },
  ],
  [
    'location, high',
    {
      ...base,
      precisionLevel: 'high',
      queryType: 'location',
      context: { location: CIRCLE },
      input: { variant: 'query' },
    },
  ],
  [
    'multi_point',
    {
      ...base,
      queryType: 'location',
      input: {
        variant: 'multi_point',
        points: ['A', 'B', 'C', 'D'].map((name, i) => ({ name, latitude: i, longitude: i })),
      },
    },
  ],
  [
    'energy_map',
    {
      ...base,
      queryType: 'location',
      input: {
        variant: 'energy_map',
        bounds: { south: 60, west: 24.5, north: 60.5, east: 25.5 },
        grid: { rows: 3, columns: 4 },
      },
    },
  ],
  [
    'depth_analysis',
    {
      ...base,
      queryType: 'information',
      input: { variant: 'depth_analysis', point: POINT, max_depth_meters: 80 },
    },
  ],
  [
    'material_identification',
    {
      ...base,
      queryType: 'information',
      input: {
        variant: 'material_identification',
        point: POINT,
        sample_description: null,
        candidates: null,
      },
    },
  ],
  [
    'chart_analysis',
    {
      ...base,
      queryType: 'information',
      input: {
        variant: 'chart_analysis',
        chart_type: 'radar',
        options: ['1', '2', '3', '4', '5', '6'],
      },
    },
  ],
  [
    'location_finding',
    {
      ...base,
      queryType: 'location',
      input: { variant: 'location_finding', area: CIRCLE, sought: 'a well', max_candidates: 3 },
    },
  ],
  [
    'energy_detection',
    {
      ...base,
      queryType: 'information',
      input: {
        variant: 'energy_detection',
        point: POINT,
        window: { from: '2026-03-01T00:00:00Z', to: '2026-03-02T00:00:00Z' },
      },
    },
  ],
];

/** Exact probability, under chance, that X ~ Binomial(n, p0) satisfies `event`. */
function chanceProbability(n: number, p0: number, event: (hits: number) => boolean): number {
  let p = 0;
  for (let h = 0; h <= n; h++) {
    if (event(h)) p += binomialTailP(h, n, p0) - (h < n ? binomialTailP(h + 1, n, p0) : 0);
  }
  return p;
}

const se = (p: number, m: number) => Math.sqrt((p * (1 - p)) / m);

describe.each(CASES)('simulated dowsing at chance: %s', (_, request) => {
  let outcomes: CompletedDowsingOutcome[] = [];
  let n = 0;
  let p0 = 0;
  beforeAll(() => {
    outcomes = Array.from({ length: RUNS }, (_, i) => {
      const outcome = engine.outcome(request, `chance-${i}`);
      if (outcome.status !== 'completed') throw new Error('unexpected failure');
      return outcome;
    });
    ({ trials: n, p0 } = outcomes[0]!.judging);
  });

  it('hits at the chance rate p0 over all readings', () => {
    const hits = outcomes.reduce((sum, o) => sum + o.judging.hits, 0);
    expect(outcomes.every((o) => o.judging.trials === n && o.judging.p0 === p0)).toBe(true);
    expect(Math.abs(hits / (n * RUNS) - p0)).toBeLessThan(4 * se(p0, n * RUNS));
  });

  it('has effect ≈ 0 and reports confidence at chance on average', () => {
    const effects = outcomes.map((o) => o.result.statistical_significance.effect_size);
    // Each effect is z/√n with z of mean 0 and variance 1 under chance.
    const meanEffect = effects.reduce((s, e) => s + e, 0) / RUNS;
    expect(Math.abs(meanEffect)).toBeLessThan(4 / Math.sqrt(n * RUNS));
    // (X + 2·p0) / (n + 2) has mean p0 and sd √(n·p0·(1 − p0)) / (n + 2).
    const meanConfidence = outcomes.reduce((s, o) => s + o.result.confidence, 0) / RUNS;
    const sd = Math.sqrt(n * p0 * (1 - p0)) / (n + 2);
    expect(Math.abs(meanConfidence - p0)).toBeLessThan((4 * sd) / Math.sqrt(RUNS) + 1e-6);
  });

  it('rejects at p < 0.05 no more often than chance allows (at most ~5 %)', () => {
    const rate =
      outcomes.filter((o) => o.result.statistical_significance.p_value < 0.05).length / RUNS;
    const expected = chanceProbability(n, p0, (h) => binomialTailP(h, n, p0) < 0.05);
    expect(expected).toBeLessThanOrEqual(0.05);
    expect(Math.abs(rate - expected)).toBeLessThanOrEqual(4 * se(Math.max(expected, 1e-3), RUNS));
    expect(rate).toBeLessThanOrEqual(0.05 + 4 * se(0.05, RUNS));
  });
});
