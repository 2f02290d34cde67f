import { binomialTailP, binomialZ, wilsonInterval } from '#statistics';
import { describe, expect, it } from 'vitest';
import type { CompletedOutcome, SessionWorkInput } from './session-engine.js';
import { CHANCE_HIT_RATE as P0, TRIALS_PER_ANALYST } from './session-protocol.js';
import { SimulatedSessionEngine } from './simulated-session-engine.js';

/**
 * docs/statistics.md: the simulator's statistics sit at chance. Over SESSIONS fixed
 * seeds (analyst counts 1–4 in turn) we compare what the engine reports with
 * what chance predicts, exactly, for the same mix of sample sizes; every
 * tolerance is 4 standard errors of the Monte Carlo estimate, so the test
 * is deterministic and fails only if the engine leaks skill or bias.
 */
const SESSIONS = 3000;
const ANALYST_COUNTS = [1, 2, 3, 4];
const base: SessionWorkInput = {
  type: 'remote_viewing',
  target: 'Chance check',
  modality: null,
  durationMinutes: 20,
  privacyLevel: 'private',
};

/** Exact probability, under chance, that a session of n trials satisfies `event(hits)`. */
function chanceProbability(n: number, event: (hits: number) => boolean): number {
  let p = 0;
  for (let h = 0; h <= n; h++)
    if (event(h)) p += binomialTailP(h, n, P0) - (h < n ? binomialTailP(h + 1, n, P0) : 0);
  return p;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const proportionSe = (p: number, m: number) => Math.sqrt((p * (1 - p)) / m);

describe('simulated engine at chance (Monte Carlo over fixed seeds)', () => {
  const engine = new SimulatedSessionEngine();
  const outcomes = Array.from({ length: SESSIONS }, (_, i) => {
    const outcome = engine.outcome(
      { ...base, analystCount: ANALYST_COUNTS[i % ANALYST_COUNTS.length] },
      `chance-${i}`,
    );
    if (outcome.status !== 'completed') throw new Error('unexpected failure');
    return outcome as CompletedOutcome;
  });
  const expectedOverMix = (event: (hits: number, n: number) => boolean) =>
    mean(
      ANALYST_COUNTS.map((a) =>
        chanceProbability(a * TRIALS_PER_ANALYST, (h) => event(h, a * TRIALS_PER_ANALYST)),
      ),
    );

  it('has a pooled hit rate of p0 = ¼', () => {
    const hits = outcomes.reduce((s, o) => s + o.judging.hits, 0);
    const trials = outcomes.reduce((s, o) => s + o.judging.trials, 0);
    expect(trials).toBe(SESSIONS * TRIALS_PER_ANALYST * mean(ANALYST_COUNTS));
    expect(Math.abs(hits / trials - P0)).toBeLessThan(4 * proportionSe(P0, trials));
  });

  it('has effect ≈ 0: mean binomial z near 0', () => {
    const zs = outcomes.map((o) => binomialZ(o.judging.hits, o.judging.trials, P0));
    expect(Math.abs(mean(zs))).toBeLessThan(4 / Math.sqrt(SESSIONS));
  });

  it('rejects at most ~5 % of sessions at p < 0.05 (the binomial is discrete, so fewer)', () => {
    const rate =
      outcomes.filter((o) => o.results.statistical_validation.p_value < 0.05).length / SESSIONS;
    const expected = expectedOverMix((h, n) => binomialTailP(h, n, P0) < 0.05);
    expect(expected).toBeLessThanOrEqual(0.05);
    expect(Math.abs(rate - expected)).toBeLessThan(4 * proportionSe(expected, SESSIONS));
    expect(rate).toBeLessThanOrEqual(0.05 + 4 * proportionSe(0.05, SESSIONS));
  });

  it('has Wilson intervals covering p0 about 95 % of the time', () => {
    const covered =
      outcomes.filter(({ results }) => {
        const [lo, hi] = results.statistical_validation.confidence_interval;
        return lo <= P0 && P0 <= hi;
      }).length / SESSIONS;
    const expected = expectedOverMix((h, n) => {
      const [lo, hi] = wilsonInterval(h, n);
      return lo <= P0 && P0 <= hi;
    });
    expect(Math.abs(covered - expected)).toBeLessThan(4 * proportionSe(expected, SESSIONS));
    expect(covered).toBeGreaterThan(0.9);
    expect(covered).toBeLessThan(0.99);
  });

  it('reports chance-level confidence: track record ≈ ¼ alone, location confidence ≈ uniform in groups', () => {
    const solo = outcomes.filter((o) => o.results.collaborative_insights.length === 1);
    // E[(X + ½)/14] with X ~ Bin(12, ¼) is exactly ¼; sd of one value √(12·3/16)/14.
    const soloSd = Math.sqrt((12 * 3) / 16) / 14;
    expect(Math.abs(mean(solo.map((o) => o.results.confidence_score)) - P0)).toBeLessThan(
      (4 * soloSd) / Math.sqrt(solo.length),
    );
    const groups = outcomes.filter((o) => o.results.collaborative_insights.length > 1);
    const locationConfidence = groups.map((o) => o.results.coordinates!.confidence);
    // Uniform on [0, 1] under the null: mean ½, sd √(1/12).
    expect(Math.abs(mean(locationConfidence) - 0.5)).toBeLessThan(
      (4 * Math.sqrt(1 / 12)) / Math.sqrt(groups.length),
    );
  });
});
