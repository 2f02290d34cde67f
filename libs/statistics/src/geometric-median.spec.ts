import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type GeoPoint, haversineMeters } from './geo.js';
import { weightedGeometricMedian } from './geometric-median.js';

const at = (latitude: number, longitude: number): GeoPoint => ({ latitude, longitude });
const costOf = (points: GeoPoint[], weights: number[], c: GeoPoint) =>
  points.reduce((s, p, i) => s + weights[i]! * haversineMeters(p, c), 0);

describe('weightedGeometricMedian', () => {
  it('returns a single point unchanged', () => {
    const m = weightedGeometricMedian([at(48.85, 2.35)]);
    expect(haversineMeters(m, at(48.85, 2.35))).toBeLessThan(1e-6);
  });

  it('picks the middle of three points on a meridian (median, not mean)', () => {
    const m = weightedGeometricMedian([at(10, 20), at(10.01, 20), at(11, 20)]);
    expect(haversineMeters(m, at(10.01, 20))).toBeLessThan(1e-3);
  });

  it('finds the centre of a symmetric square', () => {
    const m = weightedGeometricMedian([
      at(-0.01, -0.01),
      at(-0.01, 0.01),
      at(0.01, -0.01),
      at(0.01, 0.01),
    ]);
    expect(haversineMeters(m, at(0, 0))).toBeLessThan(1e-3);
  });

  it('stays on a heavy point: a weight ≥ the others’ pull wins (Vardi–Zhang)', () => {
    const points = [at(0, 0), at(0, 0.01), at(0.01, 0)];
    const m = weightedGeometricMedian(points, [3, 1, 1]);
    expect(haversineMeters(m, at(0, 0))).toBeLessThan(1e-3);
  });

  it('merges coincident points', () => {
    const m = weightedGeometricMedian([at(5, 5), at(5, 5), at(5, 5.02)]);
    expect(haversineMeters(m, at(5, 5))).toBeLessThan(1e-3);
  });

  it('ignores zero weights and rejects degenerate input', () => {
    const m = weightedGeometricMedian([at(1, 1), at(40, 40)], [1, 0]);
    expect(haversineMeters(m, at(1, 1))).toBeLessThan(1e-3);
    expect(() => weightedGeometricMedian([])).toThrow(RangeError);
    expect(() => weightedGeometricMedian([at(1, 1)], [0])).toThrow(RangeError);
    expect(() => weightedGeometricMedian([at(1, 1)], [1, 2])).toThrow(RangeError);
  });

  it('works across the antimeridian', () => {
    const m = weightedGeometricMedian([at(0, 179.99), at(0, -179.99), at(0.001, 179.995)]);
    expect(Math.abs(Math.abs(m.longitude) - 179.995)).toBeLessThan(0.01);
    expect(Math.abs(m.latitude)).toBeLessThan(0.002);
  });

  it('is not beaten by any nearby point (property)', () => {
    const cloud = fc.array(
      fc.tuple(
        fc.double({ min: -0.2, max: 0.2, noNaN: true }),
        fc.double({ min: -0.2, max: 0.2, noNaN: true }),
        fc.integer({ min: 1, max: 5 }),
      ),
      { minLength: 2, maxLength: 12 },
    );
    fc.assert(
      fc.property(cloud, fc.double({ min: -60, max: 60, noNaN: true }), (raw, lat) => {
        const points = raw.map(([dy, dx]) => at(lat + dy, 30 + dx));
        const weights = raw.map(([, , w]) => w);
        const m = weightedGeometricMedian(points, weights);
        const best = costOf(points, weights, m);
        for (const [dLat, dLon] of [
          [1e-4, 0],
          [-1e-4, 0],
          [0, 1e-4],
          [0, -1e-4],
        ] as const) {
          // Small slack: the plane is a local approximation of the sphere.
          expect(best).toBeLessThanOrEqual(
            costOf(points, weights, at(m.latitude + dLat, m.longitude + dLon)) * (1 + 1e-6),
          );
        }
      }),
      { numRuns: 200 },
    );
  });
});
