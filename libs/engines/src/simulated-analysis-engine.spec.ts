import { describe, expect, it } from 'vitest';
import type { AnalysisMaterialFacts, AnalysisWorkInput } from './analysis-engine.js';
import {
  riskLevel,
  SimulatedAnalysisEngine,
  type RiskFactor,
} from './simulated-analysis-engine.js';

const engine = new SimulatedAnalysisEngine();
const ORG_SEED = 'a'.repeat(64);
const BERLIN = { latitude: 52.52, longitude: 13.405 };

function photo(overrides: Partial<AnalysisMaterialFacts> = {}): AnalysisMaterialFacts {
  return {
    url: 'https://files.example.com/p.jpg',
    kind: 'photo',
    status: 'fetched',
    error: null,
    sha256: 'b'.repeat(64),
    content_type: 'image/jpeg',
    width: 640,
    height: 480,
    exif: { captured_at: '2024-05-02T10:00:00.000Z', latitude: 52.53, longitude: 13.41 },
    ...overrides,
  };
}

function input(overrides: Partial<AnalysisWorkInput> = {}): AnalysisWorkInput {
  return {
    targetType: 'location',
    analysisType: 'comprehensive',
    description: 'The old mill by the river',
    coordinates: BERLIN,
    photoCount: 1,
    documentCount: 0,
    material: [photo()],
    earlierWork: [],
    ...overrides,
  };
}

function completed(work: AnalysisWorkInput) {
  const outcome = engine.outcome(work, ORG_SEED);
  if (outcome.status !== 'completed') throw new Error(`expected completed, got ${outcome.status}`);
  return outcome;
}

describe('SimulatedAnalysisEngine', () => {
  it('gives the same outcome for the same request and material, another for other material', () => {
    expect(engine.outcome(input(), ORG_SEED)).toEqual(engine.outcome(input(), ORG_SEED));
    const other = completed(input({ material: [photo({ sha256: 'c'.repeat(64) })] }));
    expect(other.seed).not.toBe(completed(input()).seed);
  });

  it('plans more steps and analysts for a deep_dive than a comprehensive analysis, and none for a quick_scan', () => {
    const quick = engine.plan(input({ analysisType: 'quick_scan' }), ORG_SEED);
    const comprehensive = engine.plan(input(), ORG_SEED);
    const deep = engine.plan(input({ analysisType: 'deep_dive' }), ORG_SEED);
    expect(quick.analystCount).toBe(0);
    expect(quick.crossReference).toBeNull();
    expect(quick.steps).not.toContain('analyst_work');
    expect(deep.steps.length).toBeGreaterThan(comprehensive.steps.length);
    expect(comprehensive.steps.length).toBeGreaterThan(quick.steps.length);
    expect(deep.analystCount).toBeGreaterThan(comprehensive.analystCount);
    expect(deep.crossReference!.radiusMeters).toBeGreaterThan(
      comprehensive.crossReference!.radiusMeters,
    );
    expect(engine.plan(input({ description: 'x [slow]' }), ORG_SEED).stepMultiplier).toBe(10);
  });

  it('reads a quick_scan from the material alone', () => {
    const outcome = completed(input({ analysisType: 'quick_scan' }));
    expect(outcome.details.analystAgreement).toBeNull();
    expect(outcome.results.descriptors).toEqual([]);
    expect(outcome.results.key_findings).toEqual([
      'Photo 1 (640×480 JPEG) was taken on 2024-05-02 at 1.2 km from the given coordinates.',
    ]);
    // 0.01° north and 0.005° east of Berlin: √(1112² + 338²) ≈ 1162 m.
    // One consistent item of one, shrunk towards chance by the Beta prior: (1 + 0.5) / (1 + 2).
    expect(outcome.results.confidence_score).toBe(0.5);
    expect(outcome.results.risk_assessment).toEqual({
      level: 'medium',
      factors: ['prior_only_evidence'],
    });
    expect(outcome.evidence).toBe('prior');
  });

  it('names a photo taken far from the coordinates and an item that could not be fetched as risks', () => {
    const outcome = completed(
      input({
        analysisType: 'quick_scan',
        material: [
          photo({ exif: { captured_at: null, latitude: 48.8566, longitude: 2.3522 } }),
          {
            url: 'https://files.example.com/gone.pdf',
            kind: 'document',
            status: 'failed',
            error: 'HTTP 404',
            sha256: null,
            content_type: null,
          },
        ],
      }),
    );
    expect(outcome.results.risk_assessment.factors).toEqual([
      'unreadable_material',
      'gps_far_from_coordinates',
      'prior_only_evidence',
    ]);
    expect(outcome.results.risk_assessment.level).toBe('high');
    expect(outcome.results.key_findings).toContain('Document 1 could not be used: HTTP 404.');
    expect(outcome.results.key_findings[0]).toMatch(/Photo 1 .* 87\d\.\d km from the given/);
    // Neither item agrees with the target: (0 + 0.5) / (2 + 2).
    expect(outcome.results.confidence_score).toBe(0.125);
  });

  it('treats missing material as a risk and rests confidence on the prior', () => {
    const outcome = completed(input({ analysisType: 'quick_scan', material: [], photoCount: 0 }));
    expect(outcome.results.confidence_score).toBe(0.25);
    expect(outcome.results.risk_assessment.factors).toEqual([
      'missing_material',
      'prior_only_evidence',
    ]);
  });

  it('reports the analysts of a comprehensive analysis and the earlier work it cross-referenced', () => {
    const outcome = completed(
      input({
        earlierWork: [
          {
            kind: 'analysis',
            id: 'anal_01jh2x7v4ke8rbk3a8y0v0d7qz',
            relation: 'nearby',
            distanceMeters: 120,
            confidenceScore: 0.3,
            completedAt: '2026-01-01T00:00:00.000Z',
          },
        ],
      }),
    );
    expect(outcome.details.judging).toMatchObject({ trials: 36, p0: 0.25 });
    expect(outcome.details.analystAgreement).not.toBeNull();
    expect(outcome.results.key_findings).toContain(
      '1 earlier piece of finished work lies within 1 km of the coordinates (anal_01jh2x7v4ke8rbk3a8y0v0d7qz).',
    );
    expect(outcome.results.key_findings.some((f) => f.startsWith('3 simulated analysts'))).toBe(
      true,
    );
    expect(outcome.results.summary).toMatch(/^Comprehensive analysis of a location target/);
  });

  it('fails on [fail] and [timeout] in the description', () => {
    expect(engine.outcome(input({ description: 'Mill [FAIL]' }), ORG_SEED)).toMatchObject({
      status: 'failed',
      reason: 'engine_failure',
    });
    expect(engine.outcome(input({ description: 'Mill [timeout]' }), ORG_SEED)).toMatchObject({
      status: 'failed',
      reason: 'deadline_exceeded',
    });
  });

  it('keeps the analysts at chance: about 5 % of judged p-values fall below 0.05', () => {
    let below = 0;
    const runs = 400;
    for (let i = 0; i < runs; i += 1) {
      const outcome = completed(input({ description: `target ${i}`, material: [] }));
      if (outcome.details.judging!.p_value < 0.05) below += 1;
    }
    // Binomial(400, ≤ 0.05) exceeds 35 with probability below 1e-4; discrete tests sit below 5 %.
    expect(below).toBeLessThanOrEqual(35);
  });
});

describe('riskLevel', () => {
  it.each<[RiskFactor[], string]>([
    [[], 'low'],
    [['prior_only_evidence'], 'medium'],
    [['missing_material', 'prior_only_evidence'], 'medium'],
    [['gps_far_from_coordinates', 'prior_only_evidence'], 'high'],
    [['all_material_unreadable', 'gps_far_from_coordinates', 'low_analyst_agreement'], 'critical'],
  ])('%j → %s', (factors, level) => {
    expect(riskLevel(factors)).toBe(level);
  });
});
