import {
  binomialTailP,
  calibratedTrackRecord,
  contributionWeights,
  descriptorAgreement,
  descriptorSupport,
  type GeoPoint,
  locationConfidence,
  pickAgreement,
  saicAccuracy,
  saicReliability,
  weightedGeometricMedian,
  wilsonInterval,
} from '#statistics';
import { DESCRIPTOR_TERMS } from './descriptor-vocabulary.js';
import {
  type AnalystContribution,
  CHANCE_HIT_RATE,
  JUDGING_SET_SIZE,
  type SessionGroundTruth,
} from './session-protocol.js';

export interface AnalystScore {
  analystId: string;
  hits: number;
  trials: number;
  /** Calibrated hit rate (posterior mean, prior at chance). */
  theta: number;
  contributionWeight: number;
  accuracy: number;
  reliability: number;
  /** Reported descriptors, strongest first. */
  descriptors: string[];
}

/** Unrounded session statistics; engines format them for output. */
export interface SessionScores {
  analysts: AnalystScore[];
  equalWeightsFallback: boolean;
  accuracy: number;
  reliability: number;
  confidenceScore: number;
  location: GeoPoint & { confidence: number };
  descriptorSupport: Record<string, number>;
  hits: number;
  trials: number;
  pValue: number;
  confidenceInterval: [number, number];
}

/**
 * Scores judged work against ground truth, every number from #statistics
 * (DESIGN §6). Engine-agnostic: the simulated engine feeds it synthetic
 * truth and random work; an analyst engine can feed it real submissions.
 * - accuracy / reliability: SAIC scores, averaged with contribution weights;
 * - confidence: one analyst → calibrated track record over the judged
 *   trials; several → mean of pick agreement (averaged over trials) and
 *   descriptor agreement (pick agreement alone if nobody gave descriptors);
 * - location: weighted geometric median; its confidence measures how
 *   tightly the points cluster (dispersion about their unweighted median)
 *   against the null of random points in the search area. Unweighted, so
 *   the statistic is exactly the one the null was built for and the
 *   confidence is uniform under chance, whatever the weights;
 * - statistical validation: exact binomial over all judged trials + Wilson.
 */
export function scoreSession(
  truth: SessionGroundTruth,
  contributions: readonly AnalystContribution[],
): SessionScores {
  if (contributions.length === 0)
    throw new RangeError('scoreSession needs at least one contribution');
  const p0 = CHANCE_HIT_RATE;
  const judged = contributions.map((c) => {
    const hits = c.picks.filter((pick, trial) => pick === truth.targetPositions[trial]).length;
    return {
      c,
      hits,
      trials: c.picks.length,
      theta: calibratedTrackRecord(hits, c.picks.length, p0),
    };
  });
  const { weights, equalWeightsFallback } = contributionWeights(
    judged.map((j) => j.theta),
    p0,
  );
  const analysts: AnalystScore[] = judged.map(({ c, hits, trials, theta }, i) => ({
    analystId: c.analystId,
    hits,
    trials,
    theta,
    contributionWeight: weights[i]!,
    accuracy: saicAccuracy(truth.targetMemberships, c.memberships),
    reliability: saicReliability(truth.targetMemberships, c.memberships),
    descriptors: reportedDescriptors(c.memberships),
  }));

  const points = contributions.map((c) => c.point);
  const median = weightedGeometricMedian(points, weights);
  const hits = judged.reduce((s, j) => s + j.hits, 0);
  const trials = judged.reduce((s, j) => s + j.trials, 0);

  return {
    analysts,
    equalWeightsFallback,
    accuracy: weightedMean(
      analysts.map((a) => a.accuracy),
      weights,
    ),
    reliability: weightedMean(
      analysts.map((a) => a.reliability),
      weights,
    ),
    confidenceScore: confidenceScore(contributions, analysts),
    location: {
      ...median,
      confidence: locationConfidence(points, weightedGeometricMedian(points), truth.searchArea),
    },
    descriptorSupport: descriptorSupport(analysts.map((a) => a.descriptors)),
    hits,
    trials,
    pValue: binomialTailP(hits, trials, p0),
    confidenceInterval: wilsonInterval(hits, trials),
  };
}

function confidenceScore(
  contributions: readonly AnalystContribution[],
  analysts: readonly AnalystScore[],
): number {
  if (analysts.length === 1) return analysts[0]!.theta;
  const trialCount = Math.min(...contributions.map((c) => c.picks.length));
  const perTrial = Array.from(
    { length: trialCount },
    (_, t) =>
      pickAgreement(
        contributions.map((c) => c.picks[t]!),
        JUDGING_SET_SIZE,
      ) ?? 0,
  );
  const picks = perTrial.reduce((s, a) => s + a, 0) / Math.max(1, perTrial.length);
  const descriptors = descriptorAgreement(analysts.map((a) => a.descriptors));
  return descriptors === null ? picks : (picks + descriptors) / 2;
}

/** Descriptors with non-zero membership, strongest first (vocabulary order breaks ties). */
function reportedDescriptors(memberships: readonly number[]): string[] {
  return memberships
    .map((m, i) => ({ m, i }))
    .filter(({ m }) => m > 0)
    .sort((a, b) => b.m - a.m || a.i - b.i)
    .map(({ i }) => DESCRIPTOR_TERMS[i]!);
}

function weightedMean(values: readonly number[], weights: readonly number[]): number {
  return values.reduce((s, v, i) => s + v * weights[i]!, 0);
}
