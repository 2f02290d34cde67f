import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SIMULATED_ENGINE_VERSION } from './engine-version.js';
import type { CompletedOutcome, SessionEngineOutcome, SessionWorkInput } from './session-engine.js';
import { sessionSeed } from './session-seed.js';
import { SimulatedSessionEngine } from './simulated-session-engine.js';

const engine = new SimulatedSessionEngine();
const base: SessionWorkInput = {
  type: 'remote_viewing',
  target: 'Lighthouse at the harbour mouth',
  modality: 'visual',
  durationMinutes: 30,
  privacyLevel: 'private',
};

function completed(outcome: SessionEngineOutcome): CompletedOutcome {
  if (outcome.status !== 'completed') throw new Error(`expected completed, got ${outcome.status}`);
  return outcome;
}

const in01 = (x: number) => x >= 0 && x <= 1;

describe('SimulatedSessionEngine', () => {
  it('is deterministic in (input, orgSeed)', () => {
    expect(engine.outcome(base, 'org_a')).toEqual(engine.outcome({ ...base }, 'org_a'));
    expect(engine.outcome(base, 'org_a')).toEqual(
      engine.outcome({ ...base, analystCount: 1 }, 'org_a'),
    );
    expect(engine.outcome(base, 'org_b')).not.toEqual(engine.outcome(base, 'org_a'));
    expect(engine.outcome({ ...base, target: 'Another' }, 'org_a')).not.toEqual(
      engine.outcome(base, 'org_a'),
    );
  });

  it('stamps engine, version, seed and prior evidence', () => {
    const outcome = completed(engine.outcome(base, 'org_a'));
    expect(outcome).toMatchObject({
      engine: 'simulated',
      engineVersion: SIMULATED_ENGINE_VERSION,
      evidence: 'prior',
      analystId: 'analyst_sim_1',
      stepMultiplier: 1,
      seed: sessionSeed(base, 'org_a'),
    });
    expect(outcome.seed).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reports one analyst with the whole weight and a track-record confidence', () => {
    const outcome = completed(engine.outcome(base, 'org_a'));
    const { results, judging } = outcome;
    expect(results.collaborative_insights).toHaveLength(1);
    expect(results.collaborative_insights[0]!.contribution_weight).toBe(1);
    expect(results.statistical_validation.sample_size).toBe(12);
    // (hits + ¼·2) / (12 + 2): the calibrated record over the 12 judged trials.
    expect(results.confidence_score).toBeCloseTo((judging.hits + 0.5) / 14, 6);
    expect(results.coordinates!.confidence).toBe(0); // one point has no dispersion
  });

  it('scores collaborative sessions over analysts × trials', () => {
    const { results } = completed(engine.outcome({ ...base, analystCount: 5 }, 'org_a'));
    expect(results.statistical_validation.sample_size).toBe(60);
    expect(results.collaborative_insights.map((c) => c.analyst_id)).toEqual(
      [1, 2, 3, 4, 5].map((n) => `analyst_sim_${n}`),
    );
    const total = results.collaborative_insights.reduce((s, c) => s + c.contribution_weight, 0);
    expect(total).toBeCloseTo(1, 5);
  });

  it('merges sessions on one target: their analysts re-drawn, scored together against one truth', () => {
    const solo = completed(engine.outcome(base, 'org_a'));
    const pair = { ...base, modality: 'kinesthetic' as const, analystCount: 2 };
    const duo = completed(engine.outcome(pair, 'org_a'));
    const merged = engine.mergedOutcome([base, pair], 'org_a');
    expect(merged.judging.hits).toBe(solo.judging.hits + duo.judging.hits);
    expect(merged.results.statistical_validation.sample_size).toBe(36);
    // analyst_sim_1 worked on both: one analyst over 24 trials.
    expect(merged.results.collaborative_insights.map((c) => c.analyst_id)).toEqual([
      'analyst_sim_1',
      'analyst_sim_2',
    ]);
    expect(merged.seed).not.toBe(solo.seed);
    expect(engine.mergedOutcome([base, pair], 'org_a')).toEqual(merged);
    expect(() => engine.mergedOutcome([base], 'org_a')).toThrow(RangeError);
    expect(() => engine.mergedOutcome([base, { ...base, target: 'Elsewhere' }], 'org_a')).toThrow(
      RangeError,
    );
  });

  it('fails on [fail] at a seed-derived step and on [timeout] at 90', () => {
    const failed = engine.outcome({ ...base, target: 'Harbour [fail]' }, 'org_a');
    expect(failed).toMatchObject({ status: 'failed', reason: 'engine_failure' });
    if (failed.status !== 'failed') throw new Error('unreachable');
    expect(failed.failAtProgress % 10).toBe(0);
    expect(failed.failAtProgress).toBeGreaterThanOrEqual(10);
    expect(failed.failAtProgress).toBeLessThanOrEqual(80);
    const steps = new Set(
      Array.from({ length: 60 }, (_, i) =>
        engine.outcome({ ...base, target: `t${i} [fail]` }, 'org_a'),
      ).map((o) => (o.status === 'failed' ? o.failAtProgress : -1)),
    );
    expect(steps.size).toBeGreaterThan(3); // really seed-derived

    expect(engine.outcome({ ...base, target: '[timeout] Harbour' }, 'org_a')).toMatchObject({
      status: 'failed',
      reason: 'deadline_exceeded',
      failAtProgress: 90,
    });
  });

  it('passes [slow] through as a step multiplier without changing results', () => {
    const slow = completed(engine.outcome({ ...base, target: 'Harbour [slow]' }, 'org_a'));
    expect(slow.stepMultiplier).toBe(10);
  });

  it('rejects an impossible analyst count', () => {
    expect(() => engine.outcome({ ...base, analystCount: 0 }, 'org_a')).toThrow(RangeError);
    expect(() => engine.outcome({ ...base, analystCount: 2.5 }, 'org_a')).toThrow(RangeError);
  });

  it('keeps every number in range for any input (property)', () => {
    const input = fc.record({
      type: fc.constantFrom('remote_viewing', 'dowsing', 'automatic_writing'),
      target: fc.string({ maxLength: 40 }).filter((t) => !t.includes('[')),
      modality: fc.constantFrom('visual', 'kinesthetic', 'auditory', null),
      durationMinutes: fc.integer({ min: 1, max: 600 }),
      privacyLevel: fc.constantFrom('public', 'private', 'classified'),
      analystCount: fc.integer({ min: 1, max: 8 }),
    }) as fc.Arbitrary<SessionWorkInput>;
    fc.assert(
      fc.property(input, fc.string({ minLength: 1, maxLength: 20 }), (work, orgSeed) => {
        const { results } = completed(engine.outcome(work, orgSeed));
        const { coordinates, statistical_validation: s } = results;
        const c = coordinates!;
        expect(Math.abs(c.latitude)).toBeLessThanOrEqual(90);
        expect(Math.abs(c.longitude)).toBeLessThanOrEqual(180);
        for (const x of [
          c.confidence,
          results.confidence_score,
          s.p_value,
          ...s.confidence_interval,
        ])
          expect(in01(x)).toBe(true);
        expect(
          in01(results.validation_metrics.accuracy) && in01(results.validation_metrics.reliability),
        ).toBe(true);
        expect(s.confidence_interval[0]).toBeLessThanOrEqual(s.confidence_interval[1]);
        expect(s.sample_size).toBe(12 * work.analystCount!);
        expect(results.sketches.length).toBeGreaterThanOrEqual(1);
        expect(results.sketches.length).toBeLessThanOrEqual(3);
        expect(results.descriptors.length).toBeGreaterThan(0);
        for (const insight of results.collaborative_insights)
          expect(in01(insight.contribution_weight)).toBe(true);
        expect(JSON.parse(JSON.stringify(results))).toEqual(results); // plain JSON data
      }),
      { numRuns: 120 },
    );
  });
});
