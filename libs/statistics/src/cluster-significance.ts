import { dbscanLabels, NOISE_LABEL } from './dbscan.js';
import { type GeoPoint, wrapLongitude } from './geo.js';
import { mulberry32 } from './mulberry32.js';
import { type UnitVectors } from './sphere-grid.js';
import { assertGeoPoints, assertIntegerAtLeast, assertPositiveFinite } from './validate.js';

/**
 * Are DBSCAN's clusters bigger than chance would make them? A Monte-Carlo
 * test in the manner of Kulldorff's spatial scan statistic:
 *
 *   H0: the n points are scattered independently and uniformly (by area)
 *       over their bounding box on the sphere.
 *
 * Each replicate drops n uniform points into that box, runs DBSCAN with the
 * same eps and minPoints, and keeps the size of its *largest* cluster (0 if
 * none). A cluster of size s gets
 *   p = (1 + #{replicates whose largest cluster ≥ s}) / (replicates + 1).
 * Comparing every cluster with the null's largest one accounts for having
 * looked everywhere and kept the biggest (the selection a per-disc binomial
 * ignores), so the p-values are already family-wise across the clusters:
 * under H0 the chance that any cluster has p ≤ α is at most α. It is
 * conservative for the second and later clusters, as in SaTScan.
 *
 * Limits: the box is read off the data (slightly small, which makes the
 * null denser: conservative); "significant" means "denser than uniform over
 * the box" — points confined to land, roads or a coastline are clustered
 * against that null without any pattern in the work. The seed is fixed, so
 * the same input gives the same p-values. Cost: replicates × one DBSCAN —
 * about 1 s for 10 000 points at the default 99 replicates (p ≥ 0.01).
 */

export interface StudyArea {
  /** Latitudes, degrees. */
  south: number;
  north: number;
  /** The box runs eastwards from `west` to `east`; west > east when it
   *  crosses the antimeridian. */
  west: number;
  east: number;
}

export interface ClusterSignificanceOptions {
  /** Null replicates; the smallest reachable p-value is 1/(replicates + 1). */
  replicates?: number;
  /** Seed of the mulberry32 generator. */
  seed?: number;
}

export interface ClusterSignificance {
  /** One per cluster, in the order given. */
  p_values: number[];
  replicates: number;
  /** The box the null scatters points over; null without points. */
  study_area: StudyArea | null;
  /** Median size of the null's largest cluster: what chance alone produces. */
  null_largest_median: number;
}

export const DEFAULT_CLUSTER_REPLICATES = 99;
export const DEFAULT_CLUSTER_SEED = 0x5eed_db5c;
const RAD = Math.PI / 180;

export function clusterSignificance(
  points: readonly GeoPoint[],
  clusters: readonly { size: number }[],
  epsMeters: number,
  minPoints: number,
  options: ClusterSignificanceOptions = {},
): ClusterSignificance {
  const replicates = options.replicates ?? DEFAULT_CLUSTER_REPLICATES;
  const largest = clusterNullSample(points, epsMeters, minPoints, replicates, options.seed);
  if (points.length === 0 && clusters.length > 0) {
    throw new RangeError('clusters given without points');
  }
  return {
    ...clusterPValues(clusters, largest),
    study_area: points.length === 0 ? null : boundingArea(points),
  };
}

/**
 * The null sample alone: the largest DBSCAN cluster of each of `replicates`
 * uniform scatters of as many points over the points' bounding box. Callers
 * that must not hold their thread for the whole null draw it in parts (each
 * with its own seed) and pool them with clusterPValues.
 */
export function clusterNullSample(
  points: readonly GeoPoint[],
  epsMeters: number,
  minPoints: number,
  replicates: number,
  seed = DEFAULT_CLUSTER_SEED,
): number[] {
  assertGeoPoints('points', points);
  assertPositiveFinite('epsMeters', epsMeters);
  assertIntegerAtLeast('minPoints', minPoints, 1);
  assertIntegerAtLeast('replicates', replicates, 1);
  if (points.length === 0) return new Array<number>(replicates).fill(0);
  const area = boundingArea(points);
  const random = mulberry32(seed);
  const vectors: UnitVectors = {
    x: new Float64Array(points.length),
    y: new Float64Array(points.length),
    z: new Float64Array(points.length),
  };
  const largest = new Array<number>(replicates);
  for (let r = 0; r < replicates; r++) {
    scatterUniformly(area, vectors, random);
    largest[r] = largestClusterSize(vectors, epsMeters, minPoints);
  }
  return largest;
}

/** Each cluster's Monte-Carlo p-value against a null sample of largest-cluster sizes. */
export function clusterPValues(
  clusters: readonly { size: number }[],
  nullLargest: readonly number[],
): Omit<ClusterSignificance, 'study_area'> {
  const replicates = nullLargest.length;
  assertIntegerAtLeast('replicates', replicates, 1);
  clusters.forEach((c, i) => assertIntegerAtLeast(`clusters[${i}].size`, c.size, 1));
  const p_values = clusters.map(
    (c) => (1 + nullLargest.filter((size) => size >= c.size).length) / (replicates + 1),
  );
  const sorted = [...nullLargest].sort((a, b) => a - b);
  return {
    p_values,
    replicates,
    null_largest_median: sorted[Math.floor((replicates - 1) / 2)]!,
  };
}

/**
 * The smallest latitude/longitude box holding every point: latitudes from
 * the lowest to the highest; longitudes the shortest arc holding them all,
 * i.e. the whole circle less its largest empty gap (so a set straddling the
 * antimeridian gets a narrow box across it, not one spanning the globe).
 */
export function boundingArea(points: readonly GeoPoint[]): StudyArea {
  if (points.length === 0) throw new RangeError('boundingArea needs at least one point');
  let south = 90;
  let north = -90;
  for (const p of points) {
    south = Math.min(south, p.latitude);
    north = Math.max(north, p.latitude);
  }
  const longitudes = points.map((p) => wrapLongitude(p.longitude)).sort((a, b) => a - b);
  // The gap from the last longitude round to the first, then each inner gap.
  let gap = longitudes[0]! + 360 - longitudes[longitudes.length - 1]!;
  let west = longitudes[0]!;
  let east = longitudes[longitudes.length - 1]!;
  for (let i = 1; i < longitudes.length; i++) {
    const inner = longitudes[i]! - longitudes[i - 1]!;
    if (inner > gap) {
      gap = inner;
      west = longitudes[i]!;
      east = longitudes[i - 1]!;
    }
  }
  return { south, north, west, east };
}

/** Width of the box in degrees of longitude, eastwards from west to east. */
function widthOf(area: StudyArea): number {
  const width = area.east - area.west;
  return width < 0 ? width + 360 : width;
}

/**
 * Uniform by area over the box: longitude uniform, and sin(latitude) uniform
 * (Archimedes: equal bands of z = sin φ have equal area on the sphere).
 */
export function scatterUniformly(area: StudyArea, into: UnitVectors, random: () => number): void {
  const zLow = Math.sin(area.south * RAD);
  const zHigh = Math.sin(area.north * RAD);
  const west = area.west * RAD;
  const width = widthOf(area) * RAD;
  for (let i = 0; i < into.x.length; i++) {
    const z = zLow + random() * (zHigh - zLow);
    const r = Math.sqrt(Math.max(0, 1 - z * z));
    const lon = west + random() * width;
    into.x[i] = r * Math.cos(lon);
    into.y[i] = r * Math.sin(lon);
    into.z[i] = z;
  }
}

function largestClusterSize(vectors: UnitVectors, epsMeters: number, minPoints: number): number {
  const { labels, clusterCount } = dbscanLabels(vectors, epsMeters, minPoints);
  const sizes = new Int32Array(clusterCount);
  for (const label of labels) if (label !== NOISE_LABEL) sizes[label]! += 1;
  return sizes.reduce((m, s) => Math.max(m, s), 0);
}
