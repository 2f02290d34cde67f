import { describe, expect, it } from 'vitest';
import { verifiedRecord, wilsonInterval } from '#statistics';
import type { AnalysisWorkInput } from './analysis-engine.js';
import type { DowsingRequest } from './dowsing-engine.js';
import type { CompletedOutcome, SessionWorkInput } from './session-engine.js';
import { SimulatedAnalysisEngine } from './simulated-analysis-engine.js';
import { SimulatedDowsingEngine } from './simulated-dowsing-engine.js';
import { SimulatedSessionEngine } from './simulated-session-engine.js';
import { roundSignificant, roundTo } from './rounding.js';
import { verifiedSentence, verifiedStatistics } from './verified-evidence.js';

const ORG_SEED = 'e'.repeat(64);

/** docs/statistics.md's worked example: 12 yes/no cases at 1/3, 7 hits, 1 partial, 4 misses. */
const TWELVE = verifiedRecord([{ p0: 1 / 3, hits: 7, partials: 1, misses: 4 }]);
/** P(X ≥ 7 | 12, 1/3), the partial counted as a miss. */
const TWELVE_P = 11_771 / 177_147;
const TWELVE_INTERVAL = wilsonInterval(7, 12).map((x) => roundTo(x));

function completed<T extends { status: string }>(outcome: T): Extract<T, { status: 'completed' }> {
  if (outcome.status !== 'completed') throw new Error(`expected completed, got ${outcome.status}`);
  return outcome as Extract<T, { status: 'completed' }>;
}

describe('verifiedStatistics and verifiedSentence', () => {
  it('are null without a verified trial, and tell the record in words', () => {
    expect(verifiedStatistics(null)).toBeNull();
    expect(verifiedStatistics(verifiedRecord([]))).toBeNull();
    expect(verifiedSentence(verifiedStatistics(TWELVE)!, 'yes_no queries')).toBe(
      "Based on 12 verified outcomes of your organisation's yes_no queries: 7 hits " +
        '(and 1 partial, counted as a miss) where chance expects 4, p = 0.066 (exact, one-sided).',
    );
  });
});

describe('SimulatedDowsingEngine with a verified record', () => {
  const engine = new SimulatedDowsingEngine();
  const request: DowsingRequest = {
    queryType: 'yes_no',
    question: 'Is there water under the north field?',
    precisionLevel: 'standard',
    context: {},
    input: { variant: 'query' },
  };

  it('takes confidence, interval and significance from the verified outcomes, and keeps the readings and the answer', () => {
    const prior = completed(engine.outcome(request, ORG_SEED));
    const verified = completed(engine.outcome(request, ORG_SEED, TWELVE));
    expect(prior.evidence).toBe('prior');
    expect(verified.evidence).toBe('verified');
    expect(verified.result.statistical_significance).toEqual({
      p_value: roundSignificant(TWELVE_P),
      effect_size: roundTo(0.5303300858899107),
      sample_size: 12,
    });
    expect(verified.result.confidence).toBe(roundTo((7 + 2 / 3) / 14));
    expect(verified.result.confidence_interval).toEqual(TWELVE_INTERVAL);
    // The query's own chance rate: what its history case records.
    expect(verified.result.baseline).toBe(prior.result.baseline);
    // The record is no part of the seed: the same readings, answer and chart.
    expect(verified.seed).toBe(prior.seed);
    expect(verified.judging).toEqual(prior.judging);
    expect(verified.readings).toEqual(prior.readings);
    expect(verified.result.answer).toBe(prior.result.answer);
    expect(verified.result.chart_data.readings).toEqual(prior.result.chart_data.readings);
    expect(verified.result.locations).toEqual(prior.result.locations);
    expect(verified.result.additional_insights[1]).toMatch(
      /^Based on 12 verified outcomes of your organisation's yes_no queries: 7 hits \(and 1 partial, counted as a miss\) where chance expects 4, p = 0\.066/,
    );
    expect(verified.result.additional_insights.at(-1)).toMatch(/verified outcomes instead\.$/);
    expect(verified.result.chart_data.interpretation).toBe(
      `${prior.result.chart_data.interpretation} Verified record: 7 of 12 hits where chance expects 4, p = 0.066.`,
    );
  });

  it('is the prior outcome, unchanged, with an empty record', () => {
    expect(engine.outcome(request, ORG_SEED, verifiedRecord([]))).toEqual(
      engine.outcome(request, ORG_SEED),
    );
  });

  it('tests a record of different baselines with the Poisson-binomial tail', () => {
    const mixed = verifiedRecord([
      { p0: 1 / 3, hits: 4, partials: 0, misses: 4 },
      { p0: 1 / 8, hits: 1, partials: 0, misses: 3 },
    ]);
    const outcome = completed(engine.outcome(request, ORG_SEED, mixed));
    expect(outcome.result.statistical_significance).toEqual({
      p_value: roundSignificant(50_975 / 279_936),
      effect_size: roundTo(0.3616904180652583),
      sample_size: 12,
    });
  });
});

describe('SimulatedAnalysisEngine with a verified record', () => {
  const engine = new SimulatedAnalysisEngine();
  const work: AnalysisWorkInput = {
    targetType: 'location',
    analysisType: 'comprehensive',
    description: 'The old mill by the river',
    coordinates: { latitude: 52.52, longitude: 13.405 },
    photoCount: 0,
    documentCount: 0,
    material: [],
    earlierWork: [],
  };
  const RECORD = verifiedRecord([{ p0: 0.25, hits: 6, partials: 1, misses: 3 }]);

  it('rests its confidence on the verified outcomes, and drops the prior-only factor', () => {
    const prior = completed(engine.outcome(work, ORG_SEED));
    const verified = completed(engine.outcome({ ...work, verified: RECORD }, ORG_SEED));
    expect(prior.evidence).toBe('prior');
    expect(prior.results.risk_assessment.factors).toContain('prior_only_evidence');
    expect(verified.evidence).toBe('verified');
    // (6 + 2·¼)/(10 + 2), the partial a miss.
    expect(verified.results.confidence_score).toBe(roundTo(6.5 / 12));
    expect(verified.results.risk_assessment.factors).not.toContain('prior_only_evidence');
    expect(verified.results.risk_assessment.factors).not.toContain('verified_at_chance');
    expect(verified.results.recommendations.join(' ')).not.toMatch(/replace the chance prior/);
    // P(X ≥ 6 | 10, ¼) = 0.019727…
    expect(verified.details).toEqual({
      ...prior.details,
      verified: {
        trials: 10,
        hits: 6,
        partials: 1,
        misses: 3,
        expected_hits: 2.5,
        p0: 0.25,
        p_value: 0.0197277,
        effect_size: roundTo((6 - 2.5) / Math.sqrt(10 * 0.25 * 0.75) / Math.sqrt(10)),
        confidence_interval: wilsonInterval(6, 10).map((x) => roundTo(x)),
      },
    });
    expect(verified.results.key_findings).toContain(
      "Based on 10 verified outcomes of your organisation's comprehensive analyses: 6 hits (and 1 partial, counted as a miss) " +
        'where chance expects 2.5, p = 0.02 (exact, one-sided). The confidence is their calibrated hit rate.',
    );
    expect(verified.results.summary).toMatch(
      /Confidence 0\.54 rests on 10 verified outcomes of your organisation's comprehensive analyses \(6 hits where chance expects 2\.5\); risk /,
    );
    // The analysts' work is the same: the record is no part of the seed.
    expect(verified.seed).toBe(prior.seed);
    expect(verified.results.descriptors).toEqual(prior.results.descriptors);
  });

  it('names a verified record that shows nothing beyond chance as a risk', () => {
    const atChance = verifiedRecord([{ p0: 0.25, hits: 2, partials: 0, misses: 6 }]);
    const outcome = completed(engine.outcome({ ...work, verified: atChance }, ORG_SEED));
    expect(outcome.results.risk_assessment.factors).toContain('verified_at_chance');
    expect(outcome.results.recommendations.join(' ')).toMatch(/not above chance \(p = 0\.63\)/);
    expect(outcome.results.confidence_score).toBe(roundTo(2.5 / 10));
  });
});

describe('SimulatedSessionEngine with a verified record', () => {
  const engine = new SimulatedSessionEngine();
  const input: SessionWorkInput = {
    type: 'remote_viewing',
    target: 'Lighthouse at the harbour mouth',
    modality: 'visual',
    durationMinutes: 30,
    privacyLevel: 'private',
  };
  const RECORD = verifiedRecord([{ p0: 0.25, hits: 5, partials: 0, misses: 7 }]);
  /** P(X ≥ 5 | 12, ¼). */
  const P = 0.15764367580413818;

  function expectVerified(prior: CompletedOutcome, verified: CompletedOutcome) {
    expect(verified.evidence).toBe('verified');
    expect(verified.results.statistical_validation).toEqual({
      p_value: roundSignificant(P),
      confidence_interval: wilsonInterval(5, 12).map((x) => roundTo(x)),
      sample_size: 12,
    });
    expect(verified.results.confidence_score).toBe(roundTo(5.5 / 14));
    const { confidence_score: _a, statistical_validation: _b, ...rest } = verified.results;
    const { confidence_score: _c, statistical_validation: _d, ...priorRest } = prior.results;
    expect(rest).toEqual(priorRest);
    expect(verified.seed).toBe(prior.seed);
    expect(verified.judging).toEqual(prior.judging);
  }

  it('takes the confidence and the statistical validation from the verified outcomes', () => {
    const prior = completed(engine.outcome(input, ORG_SEED));
    expect(prior.evidence).toBe('prior');
    expectVerified(prior, completed(engine.outcome(input, ORG_SEED, RECORD)));
    expect(engine.outcome(input, ORG_SEED, verifiedRecord([]))).toEqual(prior);
  });

  it('does the same for a merged session', () => {
    const sources = [input, { ...input, durationMinutes: 45 }];
    expectVerified(
      engine.mergedOutcome(sources, ORG_SEED),
      engine.mergedOutcome(sources, ORG_SEED, RECORD),
    );
  });
});
