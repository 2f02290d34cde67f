import {
  contributionWeights,
  descriptorAgreement,
  descriptorSupport,
  distinctDescriptors,
  type GeoPoint,
  locationConfidence,
  poissonBinomialTailP,
  type VerifiedOutcomeStatistics,
  weightedGeometricMedian,
  wilsonInterval,
} from '#statistics';

/** One analyst's submission as the results combine it. */
export interface SubmissionForResults {
  analystId: string;
  descriptors: readonly string[];
  point: GeoPoint | null;
  notes: string | null;
}

/** What an analyst's judged trials say, as the results weigh them (TrackRecords). */
export interface RecordForResults {
  trials: number;
  hits: number;
  /** Calibrated hit rate: posterior mean with the chance prior. */
  theta: number;
  /** Mean chance baseline of the trials (1 / judging set size). */
  baseline: number;
  saicAccuracy: number | null;
  saicReliability: number | null;
  /** Enough judged trials to rest on (MIN_TRACK_RECORD_TRIALS). */
  established: boolean;
}

export interface CombinedResults {
  /** Null when nobody gave coordinates. */
  coordinates: { latitude: number; longitude: number; confidence: number } | null;
  /** Every descriptor reported, most supported first. */
  descriptors: string[];
  /** Share of the analysts reporting each descriptor. */
  descriptorSupport: Record<string, number>;
  confidenceScore: number;
  evidence: 'verified' | 'track_record' | 'prior';
  validationMetrics: { accuracy: number; reliability: number };
  statisticalValidation: {
    p_value: number;
    confidence_interval: [number, number];
    sample_size: number;
  };
  collaborativeInsights: {
    analyst_id: string;
    contribution_weight: number;
    key_insights: string[];
  }[];
  /** True when nobody's record is above chance, so every analyst weighs the same. */
  equalWeightsFallback: boolean;
  /** The analyst with the greatest weight (the first among equals). */
  leadAnalystId: string;
}

/**
 * Coordinates and their confidence are judged against points dropped at random
 * in a circle of this radius about the analysts' median: the work names no
 * search area, and this is the scale of "somewhere in this country or region",
 * so agreeing within tens of kilometres is strong and within thousands is chance.
 */
export const OPEN_SEARCH_RADIUS_METERS = 2_000_000;

const KEY_INSIGHTS = 5;

/**
 * Combines the analysts' submissions into a piece of work's results
 * (docs/analysts.md, "Results"), every number from #statistics:
 * - contribution weights from the analysts' judged track records,
 *   w_i ∝ max(0, θ_i − p0), equal (flagged) when nobody is above chance;
 * - coordinates: weighted geometric median (Weiszfeld) of the points given;
 *   confidence from their dispersion against random points in
 *   OPEN_SEARCH_RADIUS_METERS (0 for a single point: no dispersion to judge);
 * - descriptors with their support (share of analysts reporting each);
 * - confidence: verified outcomes when the organisation has them; else one
 *   analyst's calibrated track record, or several analysts' agreement (the
 *   mean of descriptor agreement and location confidence, whichever exist);
 * - validation metrics: the weighted mean SAIC accuracy and reliability of the
 *   analysts' judged trials (0 when none has ground truth yet);
 * - statistical validation: every judged trial of the analysts pooled,
 *   exact Poisson-binomial P(X ≥ hits) at each analyst's baseline, Wilson
 *   interval; `sample_size` is the trials (0: p = 1, interval [0, 1]).
 * Evidence: `verified` > `track_record` (someone has an established record)
 * > `prior`.
 */
export function combineSubmissions(
  submissions: readonly SubmissionForResults[],
  records: ReadonlyMap<string, RecordForResults>,
  p0: number,
  verified: VerifiedOutcomeStatistics | null,
): CombinedResults {
  if (submissions.length === 0) throw new RangeError('combineSubmissions needs a submission');
  const recordOf = (analystId: string): RecordForResults =>
    records.get(analystId) ?? {
      trials: 0,
      hits: 0,
      theta: p0,
      baseline: p0,
      saicAccuracy: null,
      saicReliability: null,
      established: false,
    };
  const own = submissions.map((s) => ({ s, record: recordOf(s.analystId) }));
  const { weights, equalWeightsFallback } = contributionWeights(
    own.map(({ record }) => record.theta),
    p0,
  );

  const located = own.flatMap(({ s }, i) =>
    s.point ? [{ point: s.point, weight: weights[i]! }] : [],
  );
  const coordinates = located.length === 0 ? null : place(located);

  const lists = submissions.map((s) => [...distinctDescriptors(s.descriptors)]);
  const support = descriptorSupport(lists);

  const established = own.some(({ record }) => record.established);
  const agreement = [
    descriptorAgreement(lists),
    located.length >= 2 ? coordinates!.confidence : null,
  ].filter((value): value is number => value !== null);
  const fromRecords =
    submissions.length === 1 || agreement.length === 0
      ? own.reduce((sum, { record }, i) => sum + record.theta * weights[i]!, 0)
      : agreement.reduce((a, b) => a + b, 0) / agreement.length;

  const trials = own.reduce((sum, { record }) => sum + record.trials, 0);
  const hits = own.reduce((sum, { record }) => sum + record.hits, 0);
  const pooled = pooledValidation(
    own.map(({ record }) => record),
    hits,
    trials,
  );

  const order = own
    .map(({ s }, i) => ({ s, weight: weights[i]! }))
    .sort((a, b) => b.weight - a.weight);
  return {
    coordinates,
    descriptors: Object.keys(support),
    descriptorSupport: support,
    confidenceScore: round(verified ? verified.calibratedRate : fromRecords),
    evidence: verified ? 'verified' : established ? 'track_record' : 'prior',
    validationMetrics: {
      accuracy: round(
        saicMean(
          own.map(({ record }) => record.saicAccuracy),
          weights,
        ),
      ),
      reliability: round(
        saicMean(
          own.map(({ record }) => record.saicReliability),
          weights,
        ),
      ),
    },
    statisticalValidation: verified
      ? {
          p_value: verified.pValue,
          confidence_interval: [
            round(verified.confidenceInterval[0]),
            round(verified.confidenceInterval[1]),
          ],
          sample_size: verified.n,
        }
      : pooled,
    collaborativeInsights: own.map(({ s }, i) => ({
      analyst_id: s.analystId,
      contribution_weight: round(weights[i]!),
      key_insights: keyInsights(s, support),
    })),
    equalWeightsFallback,
    leadAnalystId: order[0]!.s.analystId,
  };
}

function place(
  located: readonly { point: GeoPoint; weight: number }[],
): CombinedResults['coordinates'] {
  const points = located.map((l) => l.point);
  const total = located.reduce((sum, l) => sum + l.weight, 0);
  const weights = located.map((l) => (total > 0 ? l.weight / total : 1 / located.length));
  const median = weightedGeometricMedian(points, weights);
  const unweighted = weightedGeometricMedian(points);
  return {
    latitude: round(median.latitude),
    longitude: round(median.longitude),
    confidence: round(
      locationConfidence(points, unweighted, {
        center: unweighted,
        radiusMeters: OPEN_SEARCH_RADIUS_METERS,
      }),
    ),
  };
}

function pooledValidation(
  records: readonly RecordForResults[],
  hits: number,
  trials: number,
): CombinedResults['statisticalValidation'] {
  if (trials === 0) return { p_value: 1, confidence_interval: [0, 1], sample_size: 0 };
  const groups = records
    .filter((r) => r.trials > 0)
    .map((r) => ({ trials: r.trials, p: r.baseline }));
  const [low, high] = wilsonInterval(hits, trials);
  return {
    p_value: poissonBinomialTailP(hits, groups),
    confidence_interval: [round(low), round(high)],
    sample_size: trials,
  };
}

/** Weighted mean of the SAIC means the analysts have; 0 when none has any. */
function saicMean(values: readonly (number | null)[], weights: readonly number[]): number {
  let sum = 0;
  let weight = 0;
  values.forEach((value, i) => {
    if (value === null) return;
    sum += value * weights[i]!;
    weight += weights[i]!;
  });
  return weight > 0 ? sum / weight : 0;
}

/** An analyst's most supported descriptors, then the first line of their notes. */
function keyInsights(s: SubmissionForResults, support: Record<string, number>): string[] {
  const descriptors = [...distinctDescriptors(s.descriptors)]
    .sort((a, b) => (support[b] ?? 0) - (support[a] ?? 0) || (a < b ? -1 : 1))
    .slice(0, KEY_INSIGHTS);
  const note = s.notes?.split('\n')[0]?.trim();
  return note ? [...descriptors, note.slice(0, 200)] : descriptors;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
