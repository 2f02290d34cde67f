import { type GeoPoint, haversineMeters } from './geo.js';
import { weightedGeometricMedian } from './geometric-median.js';
import { sphereGrid, type UnitVectors, unitVectors } from './sphere-grid.js';
import { assertGeoPoints, assertIntegerAtLeast, assertPositiveFinite } from './validate.js';

/**
 * DBSCAN (Ester, Kriegel, Sander & Xu 1996) on the sphere: spatial clusters
 * of any shape, and the points that belong to none.
 *
 * - A point is a *core* point when at least `minPoints` points (itself
 *   included, as in the paper and scikit-learn) lie within `epsMeters` of
 *   it, great-circle distance.
 * - Core points within eps of each other are in the same cluster; a non-core
 *   point within eps of a core point is a *border* point of its cluster (of
 *   the first cluster that reaches it, in input order, when several do);
 *   every other point is noise, label −1.
 * Cluster labels are 0, 1, … in the order of each cluster's first point in
 * the input, so the result is a pure function of the input order.
 *
 * Neighbourhoods come from a grid on the unit sphere (sphere-grid.ts): about
 * O(n·k) for k neighbours per point, no pole or antimeridian special cases.
 */

export const NOISE_LABEL = -1;

export interface SpatialCluster {
  /** The label its members carry in `labels`; also its index in `clusters`. */
  label: number;
  size: number;
  /** Geometric median of the members (Weiszfeld, geometric-median.ts): one
   *  straggling border point cannot drag it as it would a mean. */
  centroid: GeoPoint;
  /** Largest member distance from the centroid: a circle holding them all. */
  radius_meters: number;
  /** 90th percentile (nearest rank) of the member distances from the centroid. */
  radius_p90_meters: number;
  /** Indices into the input, ascending. */
  members: number[];
}

export interface DbscanResult {
  /** One per input point: its cluster's label, or −1 for noise. */
  labels: number[];
  clusters: SpatialCluster[];
  /** Number of noise points. */
  noise: number;
}

export function dbscan(
  points: readonly GeoPoint[],
  epsMeters: number,
  minPoints: number,
): DbscanResult {
  assertGeoPoints('points', points);
  assertPositiveFinite('epsMeters', epsMeters);
  assertIntegerAtLeast('minPoints', minPoints, 1);
  const { labels, clusterCount } = dbscanLabels(unitVectors(points), epsMeters, minPoints);

  const members: number[][] = Array.from({ length: clusterCount }, () => []);
  let noise = 0;
  labels.forEach((label, i) => {
    if (label === NOISE_LABEL) noise++;
    else members[label]!.push(i);
  });
  const clusters = members.map((indices, label) => summarise(points, label, indices));
  return { labels: Array.from(labels), clusters, noise };
}

/** The labelling alone (also run on every null replicate of the significance test). */
export function dbscanLabels(
  vectors: UnitVectors,
  epsMeters: number,
  minPoints: number,
): { labels: Int32Array; clusterCount: number } {
  const n = vectors.x.length;
  const grid = sphereGrid(vectors, epsMeters);
  const UNVISITED = -2;
  const labels = new Int32Array(n).fill(UNVISITED);
  // Each point is queued at most once: it is labelled when queued.
  const queue = new Int32Array(n);
  const neighbours: number[] = [];
  let clusterCount = 0;

  for (let seed = 0; seed < n; seed++) {
    if (labels[seed] !== UNVISITED) continue;
    grid.neighbours(seed, neighbours);
    if (neighbours.length < minPoints) {
      labels[seed] = NOISE_LABEL; // may become a border point of a later cluster
      continue;
    }
    const cluster = clusterCount++;
    labels[seed] = cluster;
    let head = 0;
    let tail = 0;
    for (;;) {
      for (const j of neighbours) {
        if (labels[j] === NOISE_LABEL) {
          labels[j] = cluster; // border: its own neighbourhood was too small
        } else if (labels[j] === UNVISITED) {
          labels[j] = cluster;
          queue[tail++] = j;
        }
      }
      // Expand from the next queued point that is itself a core point.
      let expanded = false;
      while (head < tail) {
        grid.neighbours(queue[head++]!, neighbours);
        if (neighbours.length >= minPoints) {
          expanded = true;
          break;
        }
      }
      if (!expanded) break;
    }
  }
  return { labels, clusterCount };
}

function summarise(points: readonly GeoPoint[], label: number, members: number[]): SpatialCluster {
  const memberPoints = members.map((i) => points[i]!);
  const centroid = weightedGeometricMedian(memberPoints);
  const distances = memberPoints.map((p) => haversineMeters(p, centroid)).sort((a, b) => a - b);
  return {
    label,
    size: members.length,
    centroid,
    radius_meters: distances[distances.length - 1]!,
    radius_p90_meters: distances[Math.ceil(0.9 * distances.length) - 1]!,
    members,
  };
}
