import { binomialTailP } from '#statistics';
import { describe, expect, it } from 'vitest';
import { DESCRIPTOR_TERMS } from './descriptor-vocabulary.js';
import { scoreSession } from './score-session.js';
import type { AnalystContribution, SessionGroundTruth } from './session-protocol.js';

/** A hand-built session: the scorer must reward real skill, not just sit at chance. */
const coding = (entries: Record<string, number>) => DESCRIPTOR_TERMS.map((t) => entries[t] ?? 0);
const truth: SessionGroundTruth = {
  searchArea: { center: { latitude: 10, longitude: 20 }, radiusMeters: 10_000 },
  target: { latitude: 10.01, longitude: 20.01 },
  targetPositions: [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3],
  targetMemberships: coding({ water: 1, structure: 0.5, cold: 0.5 }),
};
const perfect: AnalystContribution = {
  analystId: 'analyst_a',
  picks: [...truth.targetPositions],
  memberships: coding({ water: 1, structure: 0.5, cold: 0.5 }),
  point: { latitude: 10.01, longitude: 20.01 },
};

describe('scoreSession', () => {
  it('recognises a perfect analyst', () => {
    const scores = scoreSession(truth, [perfect]);
    expect(scores.hits).toBe(12);
    expect(scores.accuracy).toBe(1);
    expect(scores.reliability).toBe(1);
    expect(scores.pValue).toBeCloseTo(0.25 ** 12, 18);
    expect(scores.confidenceScore).toBeCloseTo((12 + 0.5) / 14, 15);
    expect(scores.descriptorSupport).toEqual({ water: 1, cold: 1, structure: 1 });
  });

  it('weights the skilled analyst and agrees with itself', () => {
    const guesser: AnalystContribution = {
      analystId: 'analyst_b',
      picks: truth.targetPositions.map((p) => (p + 1) % 4), // never right
      memberships: coding({ metal: 1 }),
      point: { latitude: 9.95, longitude: 19.95 },
    };
    const scores = scoreSession(truth, [perfect, guesser, { ...perfect, analystId: 'analyst_c' }]);
    expect(scores.equalWeightsFallback).toBe(false);
    expect(scores.analysts.map((a) => a.contributionWeight)).toEqual([0.5, 0, 0.5]);
    expect(scores.hits).toBe(24);
    expect(scores.trials).toBe(36);
    // The weighted median sits on the two skilled analysts' shared point.
    expect(scores.location.latitude).toBeCloseTo(10.01, 6);
    expect(scores.location.longitude).toBeCloseTo(20.01, 6);
    expect(scores.accuracy).toBeCloseTo(1, 12);
    expect(scores.descriptorSupport).toEqual({
      cold: 2 / 3,
      structure: 2 / 3,
      water: 2 / 3,
      metal: 1 / 3,
    });
  });

  it('judges an analyst with several contributions once, over all their trials', () => {
    const again: AnalystContribution = {
      ...perfect,
      picks: truth.targetPositions.map((p, trial) => (trial < 6 ? p : (p + 1) % 4)),
      memberships: coding({ water: 0.5, wood: 1 }),
      point: { latitude: 10.03, longitude: 20.03 },
    };
    const scores = scoreSession(truth, [perfect, again]);
    expect(scores.analysts).toHaveLength(1);
    expect(scores.analysts[0]).toMatchObject({
      analystId: 'analyst_a',
      hits: 18,
      trials: 24,
      contributionWeight: 1,
      descriptors: ['water', 'wood', 'structure', 'cold'],
    });
    expect(scores.confidenceScore).toBeCloseTo((18 + 0.5) / 26, 15);
    expect(scores.accuracy).toBeCloseTo((1 + 0.5 / 2) / 2, 12);
    expect(scores.pValue).toBeCloseTo(binomialTailP(18, 24, 0.25), 15);
  });

  it('needs someone to score', () => {
    expect(() => scoreSession(truth, [])).toThrow(RangeError);
  });
});
