import { type GeoPoint, localPlane } from './geo.js';
import { weiszfeld } from './weiszfeld.js';

/** Iterations stop when a step moves less than this share of the spread. */
export const MEDIAN_TOLERANCE = 1e-9;
export const MEDIAN_MAX_ITERATIONS = 10_000;

/**
 * Weighted geometric median of geographic points (the point minimising
 * Σ wᵢ·distance): the consensus location of several analysts. Chosen over
 * the mean because one wild guess cannot drag it far (breakdown point 50 %).
 *
 * Computed in a local equirectangular plane (metres) around the weighted
 * spherical centroid, so degrees of latitude and longitude count the same
 * and sets straddling the antimeridian work. Weights default to 1; zero
 * weights drop a point; coincident points are merged.
 */
export function weightedGeometricMedian(
  points: readonly GeoPoint[],
  weights?: readonly number[],
): GeoPoint {
  const w = checkedWeights(points, weights);
  const plane = localPlane(sphericalCentroid(points, w));
  const median = weiszfeld(
    points.map((p, i) => ({ ...plane.toPlane(p), w: w[i]! })),
    { relativeTolerance: MEDIAN_TOLERANCE, maxIterations: MEDIAN_MAX_ITERATIONS },
  );
  return plane.toGeo(median.x, median.y);
}

function checkedWeights(points: readonly GeoPoint[], weights?: readonly number[]): number[] {
  if (points.length === 0) throw new RangeError('weightedGeometricMedian needs at least one point');
  for (const p of points) {
    if (
      !Number.isFinite(p.latitude) ||
      !Number.isFinite(p.longitude) ||
      Math.abs(p.latitude) > 90
    ) {
      throw new RangeError(`invalid point ${JSON.stringify(p)}`);
    }
  }
  if (weights === undefined) return points.map(() => 1);
  if (weights.length !== points.length) {
    throw new RangeError(`weights (${weights.length}) must match points (${points.length})`);
  }
  if (weights.some((v) => !(v >= 0) || !Number.isFinite(v))) {
    throw new RangeError('weights must be finite and non-negative');
  }
  if (!weights.some((v) => v > 0)) throw new RangeError('at least one weight must be positive');
  return [...weights];
}

/** Weighted mean of unit vectors: a centre that stays right across the antimeridian. */
function sphericalCentroid(points: readonly GeoPoint[], w: readonly number[]): GeoPoint {
  const rad = Math.PI / 180;
  let cx = 0;
  let cy = 0;
  let cz = 0;
  points.forEach((p, i) => {
    const lat = p.latitude * rad;
    const lon = p.longitude * rad;
    cx += w[i]! * Math.cos(lat) * Math.cos(lon);
    cy += w[i]! * Math.cos(lat) * Math.sin(lon);
    cz += w[i]! * Math.sin(lat);
  });
  // Antipodal sets have no centroid; any weighted point is then as good.
  if (Math.hypot(cx, cy, cz) < 1e-12) return points[w.findIndex((v) => v > 0)]!;
  return {
    latitude: Math.atan2(cz, Math.hypot(cx, cy)) / rad,
    longitude: Math.atan2(cy, cx) / rad,
  };
}
