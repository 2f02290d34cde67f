/** Pure statistics for the service (docs/statistics.md): no Nest, no I/O. */
export { binomialTailP } from './binomial.js';
export { wilsonInterval, Z_95 } from './wilson.js';
export { rateOf, type Rate } from './rate.js';
export { meanChance, rateAgainstChance } from './chance-rate.js';
export { saicAccuracy, saicReliability } from './saic.js';
export {
  type GeoPoint,
  destinationPoint,
  EARTH_RADIUS_METERS,
  haversineMeters,
  localPlane,
  type LocalPlane,
  wrapLongitude,
} from './geo.js';
export {
  weightedGeometricMedian,
  MEDIAN_TOLERANCE,
  MEDIAN_MAX_ITERATIONS,
} from './geometric-median.js';
export { locationConfidence, type SearchArea } from './location-confidence.js';
export { pickAgreement } from './agreement.js';
export {
  descriptorAgreement,
  descriptorSupport,
  distinctDescriptors,
  normalizeDescriptor,
} from './descriptor-support.js';
export { calibratedTrackRecord } from './track-record.js';
export { contributionWeights, type ContributionWeights } from './contribution-weights.js';
export { binomialZ, effectSize, stoufferZ, sumOfRanksZ } from './z-scores.js';
export { erfc, normalCdf, normalSf } from './normal.js';
export { logChoose, logGamma } from './log-gamma.js';
export { regularizedGammaP, regularizedGammaQ } from './incomplete-gamma.js';
export {
  type ChiSquareTest,
  chiSquareGoodnessOfFit,
  chiSquareSurvival,
  chiSquareUniformity,
  SMALL_EXPECTED_COUNT,
} from './chi-square.js';
export {
  chiSquareMonteCarloPValue,
  DEFAULT_MONTE_CARLO_REPLICATES,
  type MonteCarloOptions,
} from './chi-square-monte-carlo.js';
export {
  adjustPValues,
  benjaminiHochbergAdjust,
  type Correction,
  holmAdjust,
} from './multiple-comparisons.js';
export {
  type BaseRates,
  DEFAULT_MIN_SUPPORT,
  descriptorRecurrence,
  type DescriptorRecurrence,
  type DescriptorRecurrenceOptions,
  type TermRecurrence,
} from './descriptor-recurrence.js';
export { WEEKDAYS, weekdayHourCounts, type WeekdayHourCounts } from './time-patterns.js';
export { dbscan, type DbscanResult, NOISE_LABEL, type SpatialCluster } from './dbscan.js';
export {
  boundingArea,
  clusterNullSample,
  clusterPValues,
  clusterSignificance,
  DEFAULT_CLUSTER_SEED,
  type ClusterSignificance,
  type ClusterSignificanceOptions,
  DEFAULT_CLUSTER_REPLICATES,
  type StudyArea,
} from './cluster-significance.js';
export { MANN_KENDALL_EXACT_MAX_N, mannKendall, type MannKendallTest } from './mann-kendall.js';
export {
  POISSON_BINOMIAL_EXACT_WORK,
  type PoissonBinomialMethod,
  poissonBinomialTail,
  poissonBinomialTailP,
  type TrialGroup,
} from './poisson-binomial.js';
export {
  verifiedOutcomeStatistics,
  type VerifiedOutcomeStatistics,
  verifiedRecord,
  type VerifiedRecord,
  type VerifiedTally,
} from './verified-outcomes.js';
