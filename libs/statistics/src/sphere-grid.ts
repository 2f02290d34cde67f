import { EARTH_RADIUS_METERS, type GeoPoint } from './geo.js';

/**
 * A spatial index for "every point within r metres of point i" on the
 * sphere, in expected O(1 + neighbours) per query.
 *
 * Points become unit vectors in 3-D, where the great-circle distance d and
 * the straight-line (chord) distance c = 2·sin(d / 2R) rise together, so
 * "d ≤ r" is exactly "c ≤ chord(r)" — three multiplications instead of a
 * haversine. The vectors are bucketed in a grid of cubes of side chord(r):
 * every point within r of a point lies in its cube or one of the 26 around
 * it. Unlike a latitude/longitude grid this has no special cases: cells do
 * not shrink towards the poles and nothing wraps at the antimeridian.
 *
 * Cubes are keyed by a 32-bit hash of their integer coordinates (Teschner
 * et al. 2003), so a tiny r cannot overflow the key; two cubes that collide
 * share a bucket, which costs a few extra distance checks and never loses
 * a neighbour (every candidate is checked, and each bucket is read once).
 */

export interface UnitVectors {
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
}

const RAD = Math.PI / 180;

export function unitVectors(points: readonly GeoPoint[]): UnitVectors {
  const n = points.length;
  const vectors = { x: new Float64Array(n), y: new Float64Array(n), z: new Float64Array(n) };
  points.forEach((p, i) => {
    const lat = p.latitude * RAD;
    const lon = p.longitude * RAD;
    vectors.x[i] = Math.cos(lat) * Math.cos(lon);
    vectors.y[i] = Math.cos(lat) * Math.sin(lon);
    vectors.z[i] = Math.sin(lat);
  });
  return vectors;
}

/** The chord of the unit sphere under a great-circle arc of `meters`. */
export function chordOfArc(meters: number): number {
  return 2 * Math.sin(Math.min(Math.PI, meters / EARTH_RADIUS_METERS) / 2);
}

export interface SphereGrid {
  /** Fills `out` with the indices (i included) within the radius of point i. */
  neighbours(i: number, out: number[]): void;
}

export function sphereGrid(vectors: UnitVectors, radiusMeters: number): SphereGrid {
  const { x, y, z } = vectors;
  const chord = chordOfArc(radiusMeters);
  const chord2 = chord * chord;
  // Cubes finer than the vectors' own resolution (~1e-16) would mean nothing.
  const cell = Math.max(chord, Number.EPSILON);
  const buckets = new Map<number, number[]>();
  const cellOf = (v: number) => Math.floor(v / cell);
  for (let i = 0; i < x.length; i++) {
    const key = cubeKey(cellOf(x[i]!), cellOf(y[i]!), cellOf(z[i]!));
    const bucket = buckets.get(key);
    if (bucket) bucket.push(i);
    else buckets.set(key, [i]);
  }

  const read: number[][] = [];
  return {
    neighbours(i, out) {
      out.length = 0;
      read.length = 0;
      const xi = x[i]!;
      const yi = y[i]!;
      const zi = z[i]!;
      const cx = cellOf(xi);
      const cy = cellOf(yi);
      const cz = cellOf(zi);
      for (let dx = -1; dx <= 1; dx++) {
        for (let dy = -1; dy <= 1; dy++) {
          for (let dz = -1; dz <= 1; dz++) {
            const bucket = buckets.get(cubeKey(cx + dx, cy + dy, cz + dz));
            if (bucket === undefined || read.includes(bucket)) continue;
            read.push(bucket);
            for (const j of bucket) {
              const ex = x[j]! - xi;
              const ey = y[j]! - yi;
              const ez = z[j]! - zi;
              if (ex * ex + ey * ey + ez * ez <= chord2) out.push(j);
            }
          }
        }
      }
    },
  };
}

function cubeKey(ix: number, iy: number, iz: number): number {
  return Math.imul(ix, 73_856_093) ^ Math.imul(iy, 19_349_663) ^ Math.imul(iz, 83_492_791);
}
