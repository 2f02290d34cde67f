import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dbscan, NOISE_LABEL } from './dbscan.js';
import { EARTH_RADIUS_METERS, type GeoPoint, haversineMeters, localPlane } from './geo.js';

const origin = { latitude: 45, longitude: 7 };
const plane = localPlane(origin);
/** A point x metres east and y metres north of the origin. */
const at = (x: number, y: number) => plane.toGeo(x, y);

/** The point x metres east and y north of c along a great circle (the
 *  spherical "destination" formula), which, unlike a plane, passes the poles. */
function destination(c: GeoPoint, x: number, y: number): GeoPoint {
  const rad = Math.PI / 180;
  const d = Math.hypot(x, y) / EARTH_RADIUS_METERS;
  const bearing = Math.atan2(x, y);
  const lat1 = c.latitude * rad;
  const lat2 = Math.asin(
    Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(bearing),
  );
  const dLon = Math.atan2(
    Math.sin(bearing) * Math.sin(d) * Math.cos(lat1),
    Math.cos(d) - Math.sin(lat1) * Math.sin(lat2),
  );
  return { latitude: lat2 / rad, longitude: c.longitude + dLon / rad };
}

/**
 * DBSCAN's definition checked directly, O(n²) with haversine: the core
 * points, their partition into clusters (core points within eps of each
 * other together), noise (neither core nor within eps of one), and each
 * border point sitting in the cluster of some core point within eps.
 */
function expectDbscanDefinition(
  points: readonly GeoPoint[],
  eps: number,
  minPoints: number,
  labels: readonly number[],
) {
  const n = points.length;
  const near = (i: number, j: number) => haversineMeters(points[i]!, points[j]!) <= eps;
  const core = points.map((_, i) => points.filter((_, j) => near(i, j)).length >= minPoints);
  for (let i = 0; i < n; i++) {
    const coreNeighbours = [...Array(n).keys()].filter((j) => core[j] && near(i, j));
    if (core[i]) {
      expect(labels[i]).not.toBe(NOISE_LABEL);
      // Directly connected core points share a label: the partition is their components.
      for (const j of coreNeighbours) expect(labels[j]).toBe(labels[i]);
    } else if (coreNeighbours.length === 0) {
      expect(labels[i]).toBe(NOISE_LABEL);
    } else {
      expect(coreNeighbours.map((j) => labels[j])).toContain(labels[i]);
    }
  }
  // Different labels never hold core points within eps (checked above) and
  // every label holds a core point.
  const labelsWithCore = new Set(labels.filter((_, i) => core[i]));
  for (const label of labels)
    if (label !== NOISE_LABEL) expect(labelsWithCore.has(label)).toBe(true);
}

describe('dbscan', () => {
  it('works a small example by hand', () => {
    const points = [
      // A plus: the centre has 5 points within 60 m (itself, four arms at 50 m),
      // the arms only 2 (themselves and the centre; the others are 70.7 m and
      // 100 m away) — one core point, four border points.
      at(0, 0),
      at(50, 0),
      at(0, 50),
      at(-50, 0),
      at(0, -50),
      // Far away, alone: noise.
      at(5_000, 5_000),
      // A chain 40 m apart: inner points have 3 within 60 m, the ends 2.
      at(1_000, 0),
      at(1_040, 0),
      at(1_080, 0),
      at(1_120, 0),
      at(1_160, 0),
    ];
    const result = dbscan(points, 60, 3);
    expect(result.labels).toEqual([0, 0, 0, 0, 0, NOISE_LABEL, 1, 1, 1, 1, 1]);
    expect(result.noise).toBe(1);
    const [plus, chain] = result.clusters;
    expect(plus).toMatchObject({ label: 0, size: 5, members: [0, 1, 2, 3, 4] });
    // The geometric median of the symmetric plus is its centre; every arm is 50 m out.
    expect(haversineMeters(plus!.centroid, at(0, 0))).toBeLessThan(0.01);
    expect(plus!.radius_meters).toBeCloseTo(50, 1);
    expect(plus!.radius_p90_meters).toBeCloseTo(50, 1);
    // Five collinear points: the median is the middle one, 80 m from the ends;
    // sorted distances 0, 40, 40, 80, 80 → the 90th percentile (5th of 5) is 80.
    expect(chain).toMatchObject({ label: 1, size: 5, members: [6, 7, 8, 9, 10] });
    expect(haversineMeters(chain!.centroid, at(1_080, 0))).toBeLessThan(0.01);
    expect(chain!.radius_meters).toBeCloseTo(80, 1);
  });

  it('gives a border point reachable from two clusters to the first', () => {
    // Two tight triples 100 m apart, a point halfway: 50 m from each triple's
    // nearest point, with only 3 within 52 m (itself and those two), not core.
    const points = [
      at(-50, 0),
      at(-60, 5),
      at(-60, -5),
      at(0, 0),
      at(50, 0),
      at(60, 5),
      at(60, -5),
    ];
    const result = dbscan(points, 52, 4);
    expect(result.labels).toEqual([0, 0, 0, 0, 1, 1, 1]);
    expect(result.clusters.map((c) => c.size)).toEqual([4, 3]);
  });

  it('makes every point a cluster with minPoints 1 and none with minPoints above n', () => {
    const points = [at(0, 0), at(10, 0), at(1_000, 0)];
    expect(dbscan(points, 20, 1).labels).toEqual([0, 0, 1]);
    expect(dbscan(points, 20, 4).labels).toEqual([NOISE_LABEL, NOISE_LABEL, NOISE_LABEL]);
    expect(dbscan([], 20, 2)).toEqual({ labels: [], clusters: [], noise: 0 });
  });

  it('joins points across the antimeridian and around a pole', () => {
    // 0.001° of longitude at the equator is 111 m.
    const dateLine = [
      { latitude: 0, longitude: 179.9995 },
      { latitude: 0, longitude: -179.9995 },
      { latitude: 0.0005, longitude: 180 },
    ];
    expect(dbscan(dateLine, 150, 3).labels).toEqual([0, 0, 0]);
    // Four points 55.6 m from the North Pole at longitudes 90° apart: 78.6 m
    // between neighbours, 111 m across.
    const pole = [0, 90, 180, -90].map((longitude) => ({ latitude: 89.9995, longitude }));
    expect(dbscan(pole, 80, 3).labels).toEqual([0, 0, 0, 0]);
    expect(dbscan(pole, 70, 2).labels).toEqual([
      NOISE_LABEL,
      NOISE_LABEL,
      NOISE_LABEL,
      NOISE_LABEL,
    ]);
  });

  it('rejects bad input', () => {
    expect(() => dbscan([at(0, 0)], 0, 2)).toThrow(RangeError);
    expect(() => dbscan([at(0, 0)], Number.POSITIVE_INFINITY, 2)).toThrow(RangeError);
    expect(() => dbscan([at(0, 0)], 10, 0)).toThrow(RangeError);
    expect(() => dbscan([at(0, 0)], 10, 2.5)).toThrow(RangeError);
    expect(() => dbscan([{ latitude: 91, longitude: 0 }], 10, 2)).toThrow(RangeError);
    expect(() => dbscan([{ latitude: 0, longitude: Number.NaN }], 10, 2)).toThrow(RangeError);
  });

  it('meets the definition anywhere on the globe, poles and antimeridian included (property)', () => {
    // Integers scaled down: fc.double piles its values up near zero.
    const degrees = (max: number) =>
      fc.integer({ min: -max * 1e5, max: max * 1e5 }).map((v) => v / 1e5);
    const centre = fc.record({
      latitude: fc.oneof(degrees(89.99), fc.constantFrom(89.999, -89.999)),
      longitude: fc.oneof(degrees(180), fc.constantFrom(179.999, -179.999)),
    });
    // 20–60 points within ±1 km: sparse enough for noise, dense enough for clusters.
    const offsets = fc.array(
      fc.tuple(fc.integer({ min: -1_000, max: 1_000 }), fc.integer({ min: -1_000, max: 1_000 })),
      { minLength: 20, maxLength: 60 },
    );
    fc.assert(
      fc.property(
        centre,
        offsets,
        fc.integer({ min: 50, max: 300 }),
        fc.integer({ min: 1, max: 4 }),
        (c, xy, eps, minPoints) => {
          const points = xy.map(([x, y]) => destination(c, x, y));
          const result = dbscan(points, eps, minPoints);
          expectDbscanDefinition(points, eps, minPoints, result.labels);
          expect(result.clusters.reduce((s, cl) => s + cl.size, 0) + result.noise).toBe(
            points.length,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
