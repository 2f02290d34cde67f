import type { GeoPoint, SearchArea } from '#statistics';

/**
 * The judging protocol shared by every engine (docs/statistics.md). Each analyst's
 * work is judged as TRIALS_PER_ANALYST blind trials — the session target
 * plus calibration targets — each against a judging set of K items (the
 * target and K − 1 decoys), so chance is P0 = 1/K and a session's
 * sample_size is analysts × TRIALS_PER_ANALYST.
 */
export const JUDGING_SET_SIZE = 4;
export const CHANCE_HIT_RATE = 1 / JUDGING_SET_SIZE;
export const TRIALS_PER_ANALYST = 12;

/** What the judges know once the targets are revealed. */
export interface SessionGroundTruth {
  searchArea: SearchArea;
  target: GeoPoint;
  /** Per trial: position (0..K−1) of the real target in its judging set. */
  targetPositions: number[];
  /** Target coded over DESCRIPTOR_TERMS, memberships in [0, 1]. */
  targetMemberships: number[];
}

/** One analyst's blind work, coded for scoring. */
export interface AnalystContribution {
  analystId: string;
  /** Per trial: the judging-set position (0..K−1) the analyst matched. */
  picks: number[];
  /** Response coded over DESCRIPTOR_TERMS, memberships in [0, 1]. */
  memberships: number[];
  point: GeoPoint;
}
