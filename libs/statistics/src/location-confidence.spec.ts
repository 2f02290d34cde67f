import { describe, expect, it } from 'vitest';
import { dispersionNull, simulate, SIMULATE_BELOW } from './dispersion-null.js';
import { type GeoPoint, localPlane } from './geo.js';
import { weightedGeometricMedian } from './geometric-median.js';
import { locationConfidence } from './location-confidence.js';
import { mulberry32 } from './mulberry32.js';

const area = { center: { latitude: 45, longitude: 7 }, radiusMeters: 10_000 };
const plane = localPlane(area.center);

function randomInArea(random: () => number): GeoPoint {
  const r = area.radiusMeters * Math.sqrt(random());
  const a = 2 * Math.PI * random();
  return plane.toGeo(r * Math.cos(a), r * Math.sin(a));
}

describe('dispersionNull', () => {
  it('reproduces the analytic mean for n = 2: E|X−Y|/2 = 64/(45π) in a unit disc', () => {
    // Mean distance between two uniform points in a unit disc is 128/(45π).
    const table = dispersionNull(2);
    expect(table.mean).toBeCloseTo(64 / (45 * Math.PI), 2);
  });

  it('agrees with the analytic large-n approximation where it takes over', () => {
    const n = SIMULATE_BELOW;
    const simulated = simulate(n, 1_000);
    const analytic = dispersionNull(n);
    expect(analytic.sorted).toBeUndefined();
    // Monte Carlo error of the mean: sd/√1000 ≈ 0.0014; allow 3 of them.
    expect(Math.abs(simulated.mean - analytic.mean)).toBeLessThan(0.0042);
    expect(simulated.sd / analytic.sd).toBeGreaterThan(0.93);
    expect(simulated.sd / analytic.sd).toBeLessThan(1.07);
  });
});

describe('locationConfidence', () => {
  it('is high for a tight cluster and low for points spread to the rim', () => {
    const cluster = [
      plane.toGeo(0, 0),
      plane.toGeo(50, 0),
      plane.toGeo(0, 50),
      plane.toGeo(-50, -20),
    ];
    expect(locationConfidence(cluster, weightedGeometricMedian(cluster), area)).toBeGreaterThan(
      0.99,
    );
    const rim = [0, 1, 2, 3].map((i) =>
      plane.toGeo(10_000 * Math.cos((i * Math.PI) / 2), 10_000 * Math.sin((i * Math.PI) / 2)),
    );
    expect(locationConfidence(rim, weightedGeometricMedian(rim), area)).toBeLessThan(0.01);
  });

  it('gives no confidence from a single point', () => {
    expect(locationConfidence([area.center], area.center, area)).toBe(0);
    expect(() =>
      locationConfidence([area.center], area.center, { ...area, radiusMeters: 0 }),
    ).toThrow(RangeError);
  });

  it('is about uniform for random points (its null), for small and large n', () => {
    const random = mulberry32(12345);
    for (const n of [3, 35]) {
      const values: number[] = [];
      for (let trial = 0; trial < 400; trial++) {
        const points = Array.from({ length: n }, () => randomInArea(random));
        values.push(locationConfidence(points, weightedGeometricMedian(points), area));
      }
      const mean = values.reduce((s, v) => s + v, 0) / values.length;
      // Uniform: mean ½, sd of the mean √(1/12/400) ≈ 0.0144; allow 4 sd.
      expect(Math.abs(mean - 0.5)).toBeLessThan(0.058);
      expect(values.filter((v) => v > 0.95).length / values.length).toBeLessThan(0.1);
    }
  });
});
