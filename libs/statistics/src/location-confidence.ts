import { dispersionNull } from './dispersion-null.js';
import { type GeoPoint, haversineMeters } from './geo.js';
import { normalSf } from './normal.js';

export interface SearchArea {
  center: GeoPoint;
  radiusMeters: number;
}

/**
 * How much the points agree about a location, judged against chance:
 *   confidence = P(T_null > T_observed)
 * where T is the mean distance of the points from the median divided by the
 * search radius, and T_null is T for the same number of points dropped
 * uniformly at random into the search area (see dispersion-null.ts).
 *
 * Tight clusters score near 1; points no tighter than random guesses score
 * uniformly in [0, 1] (mean 0.5) — a p-value complement, not a probability
 * that the location is right. For fewer than 30 points the null is a
 * fixed-seed simulation (empirical CDF); from 30 on, an analytic normal
 * approximation (CLT) — both described in dispersion-null.ts.
 *
 * Fewer than two points carry no dispersion information: confidence 0.
 * Passing a weighted median is conservative: the unweighted median minimises
 * T, so any other centre can only raise T and lower the confidence.
 */
export function locationConfidence(
  points: readonly GeoPoint[],
  median: GeoPoint,
  searchArea: SearchArea,
): number {
  if (!(searchArea.radiusMeters > 0) || !Number.isFinite(searchArea.radiusMeters)) {
    throw new RangeError(`search radius must be positive, got ${searchArea.radiusMeters}`);
  }
  if (points.length < 2) return 0;
  const observed =
    points.reduce((sum, p) => sum + haversineMeters(p, median), 0) /
    points.length /
    searchArea.radiusMeters;
  const table = dispersionNull(points.length);
  if (!table.sorted) return normalSf((observed - table.mean) / table.sd);
  return 1 - countAtMost(table.sorted, observed) / table.sorted.length;
}

/** Number of sorted values ≤ x (binary search). */
function countAtMost(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
