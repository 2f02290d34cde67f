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
 * (docs/statistics.md). Engine-agnostic: the simulated engine feeds it synthetic
 * truth and random work; an analyst engine can feed it real submissions.
 * - accuracy / reliability: SAIC scores, averaged with contribution weights;
 * - confidence: one analyst → calibrated track record over the judged
 *   trials; several → mean of pick agreement (averaged over trials) and
 *   descriptor agreement (pick agreement alone if nobody gave descriptors);
 * - an analyst with several contributions (a merged session) is one analyst:
 *   judged over all their trials, their weight shared by their contributions;
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
  const judged = contributions.map((c) => ({
    c,
    hits: c.picks.filter((pick, trial) => pick === truth.targetPositions[trial]).length,
    accuracy: saicAccuracy(truth.targetMemberships, c.memberships),
    reliability: saicReliability(truth.targetMemberships, c.memberships),
  }));
  // A merged session can hold several contributions of one analyst: the
  // analyst is judged once over all of them, and shares its weight among them.
  const byAnalyst = new Map<string, typeof judged>();
  for (const j of judged)
    byAnalyst.set(j.c.analystId, [...(byAnalyst.get(j.c.analystId) ?? []), j]);
  const records = [...byAnalyst].map(([analystId, own]) => {
    const hits = own.reduce((s, j) => s + j.hits, 0);
    const trials = own.reduce((s, j) => s + j.c.picks.length, 0);
    return { analystId, own, hits, trials, theta: calibratedTrackRecord(hits, trials, p0) };
  });
  const { weights, equalWeightsFallback } = contributionWeights(
    records.map((r) => r.theta),
    p0,
  );
  const analysts: AnalystScore[] = records.map(({ analystId, own, hits, trials, theta }, i) => ({
    analystId,
    hits,
    trials,
    theta,
    contributionWeight: weights[i]!,
    accuracy: mean(own.map((j) => j.accuracy)),
    reliability: mean(own.map((j) => j.reliability)),
    descriptors: reportedDescriptors(strongestMemberships(own.map((j) => j.c.memberships))),
  }));
  const shareOf = new Map(
    analysts.map((a, i) => [a.analystId, weights[i]! / records[i]!.own.length]),
  );
  const contributionShares = judged.map((j) => shareOf.get(j.c.analystId)!);

  const points = contributions.map((c) => c.point);
  const median = weightedGeometricMedian(points, contributionShares);
  const hits = analysts.reduce((s, a) => s + a.hits, 0);
  const trials = analysts.reduce((s, a) => s + a.trials, 0);

  return {
    analysts,
    equalWeightsFallback,
    accuracy: weightedMean(
      judged.map((j) => j.accuracy),
      contributionShares,
    ),
    reliability: weightedMean(
      judged.map((j) => j.reliability),
      contributionShares,
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

/** Per descriptor, the strongest membership any of the codings gives it. */
function strongestMemberships(codings: readonly (readonly number[])[]): number[] {
  return codings[0]!.map((_, d) => Math.max(...codings.map((coding) => coding[d]!)));
}

function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

function weightedMean(values: readonly number[], weights: readonly number[]): number {
  return values.reduce((s, v, i) => s + v * weights[i]!, 0);
}
