import { describe, expect, it } from 'vitest';
import {
  boundingArea,
  clusterNullSample,
  clusterPValues,
  clusterSignificance,
  DEFAULT_CLUSTER_SEED,
  scatterUniformly,
} from './cluster-significance.js';
import { dbscan } from './dbscan.js';
import { localPlane } from './geo.js';
import { mulberry32 } from './mulberry32.js';

const plane = localPlane({ latitude: 48.85, longitude: 2.35 });

/** n points uniform over a square of the given side (metres) around the origin. */
function uniformSquare(random: () => number, n: number, side: number) {
  return Array.from({ length: n }, () =>
    plane.toGeo((random() - 0.5) * side, (random() - 0.5) * side),
  );
}

describe('boundingArea', () => {
  it('spans the latitudes and the shortest arc of longitudes', () => {
    expect(
      boundingArea([
        { latitude: 10, longitude: 20 },
        { latitude: -5, longitude: 25 },
        { latitude: 3, longitude: 21 },
      ]),
    ).toEqual({ south: -5, north: 10, west: 20, east: 25 });
  });

  it('crosses the antimeridian instead of spanning the globe', () => {
    // Gaps: 179 → −179 is 2°, −179 → −170 is 9°, −170 → 170 is 340°: the box runs from 170 east to −170.
    expect(
      boundingArea([
        { latitude: 0, longitude: 179 },
        { latitude: 1, longitude: -179 },
        { latitude: 2, longitude: 170 },
        { latitude: 3, longitude: 190 }, // = −170
      ]),
    ).toEqual({ south: 0, north: 3, west: 170, east: -170 });
  });

  it('is a point for one point and refuses none', () => {
    expect(boundingArea([{ latitude: 1, longitude: 2 }])).toEqual({
      south: 1,
      north: 1,
      west: 2,
      east: 2,
    });
    expect(() => boundingArea([])).toThrow(RangeError);
  });
});

describe('scatterUniformly', () => {
  it('is uniform by area: the share below 30° N of a 0–60° N box is sin 30° / sin 60°', () => {
    // Archimedes' hat-box theorem: band area ∝ Δ sin(latitude); 0.5/0.866 = 0.5774.
    const n = 20_000;
    const vectors = { x: new Float64Array(n), y: new Float64Array(n), z: new Float64Array(n) };
    scatterUniformly({ south: 0, north: 60, west: 170, east: -170 }, vectors, mulberry32(3));
    const below30 = vectors.z.filter((z) => z < 0.5).length / n;
    // Binomial sd √(.577·.423/20000) ≈ 0.0035; allow 4 sd.
    expect(Math.abs(below30 - 0.5 / Math.sin(Math.PI / 3))).toBeLessThan(0.014);
    // Longitudes stay in the 20° box across the antimeridian: x = cos φ·cos λ < 0 there.
    for (let i = 0; i < n; i++) {
      const longitude = (Math.atan2(vectors.y[i]!, vectors.x[i]!) * 180) / Math.PI;
      expect(Math.abs(longitude)).toBeGreaterThanOrEqual(170 - 1e-9);
    }
  });
});

describe('clusterSignificance', () => {
  it('finds a planted cluster significant and chance clusters not', () => {
    const random = mulberry32(11);
    // 300 points over 20 km × 20 km, plus 25 within 100 m of (3 km, 3 km).
    const points = uniformSquare(random, 300, 20_000);
    for (let i = 0; i < 25; i++) {
      points.push(plane.toGeo(3_000 + (random() - 0.5) * 200, 3_000 + (random() - 0.5) * 200));
    }
    const result = dbscan(points, 300, 4);
    const significance = clusterSignificance(points, result.clusters, 300, 4, { replicates: 99 });
    const planted = result.labels[310]!;
    expect(result.clusters[planted]!.size).toBeGreaterThanOrEqual(25);
    // Nothing in 99 uniform replicates comes close: the smallest reachable p-value.
    expect(significance.p_values[planted]).toBe(1 / 100);
    expect(significance.replicates).toBe(99);
    expect(significance.null_largest_median).toBeLessThan(10);
    significance.p_values.forEach((p, label) => {
      if (label !== planted) expect(p).toBeGreaterThan(0.05);
    });
    // Fixed seed: the same input gives the same answer.
    expect(clusterSignificance(points, result.clusters, 300, 4, { replicates: 99 })).toEqual(
      significance,
    );
  });

  it('is the null sample and the p-values of it, which a caller may draw in slices and pool', () => {
    const random = mulberry32(5);
    const points = uniformSquare(random, 200, 10_000);
    for (let i = 0; i < 12; i++) points.push(plane.toGeo(random() * 100, random() * 100));
    const { clusters } = dbscan(points, 250, 4);
    const whole = clusterSignificance(points, clusters, 250, 4, { replicates: 9 });
    const sample = clusterNullSample(points, 250, 4, 9, DEFAULT_CLUSTER_SEED);
    expect(clusterPValues(clusters, sample)).toEqual({
      p_values: whole.p_values,
      replicates: 9,
      null_largest_median: whole.null_largest_median,
    });
    // Slices with seeds of their own pool into one sample of their total size.
    const pooled = [
      ...clusterNullSample(points, 250, 4, 5, 1),
      ...clusterNullSample(points, 250, 4, 4, 2),
    ];
    const result = clusterPValues(clusters, pooled);
    expect(result.replicates).toBe(9);
    // (1 + exceedances) / 10: multiples of a tenth.
    for (const p of result.p_values) expect(Math.round(p * 10)).toBeCloseTo(p * 10, 9);
    expect(() => clusterPValues(clusters, [])).toThrow(RangeError);
  });

  it('finds a lone dense cluster significant across the antimeridian', () => {
    const dateLine = localPlane({ latitude: -17, longitude: 180 });
    const random = mulberry32(5);
    const points = Array.from({ length: 200 }, () =>
      dateLine.toGeo((random() - 0.5) * 50_000, (random() - 0.5) * 50_000),
    );
    for (let i = 0; i < 20; i++) points.push(dateLine.toGeo(random() * 150, random() * 150));
    const result = dbscan(points, 300, 5);
    const significance = clusterSignificance(points, result.clusters, 300, 5, { replicates: 49 });
    expect(significance.study_area!.west).toBeGreaterThan(179);
    expect(significance.study_area!.east).toBeLessThan(-179);
    expect(significance.p_values[result.labels[210]!]).toBe(1 / 50);
  });

  it('handles no points and rejects bad input', () => {
    expect(clusterSignificance([], [], 100, 3)).toEqual({
      p_values: [],
      replicates: 99,
      study_area: null,
      null_largest_median: 0,
    });
    const points = [plane.toGeo(0, 0)];
    expect(() => clusterSignificance([], [{ size: 2 }], 100, 3)).toThrow(RangeError);
    expect(() => clusterSignificance(points, [{ size: 0 }], 100, 3)).toThrow(RangeError);
    expect(() => clusterSignificance(points, [], 0, 3)).toThrow(RangeError);
    expect(() => clusterSignificance(points, [], 100, 0)).toThrow(RangeError);
    expect(() => clusterSignificance(points, [], 100, 3, { replicates: 0 })).toThrow(RangeError);
  });

  it('under uniform scatter, 5 % or fewer null data sets show a significant cluster (property)', () => {
    // 100 uniform points over 20 km × 20 km, eps 1 km, minPoints 3: chance
    // clusters are common (about 7 per data set), so this exercises the
    // selection of the biggest one. Family-wise: P(any p ≤ 0.05) ≤ 0.05.
    const random = mulberry32(2718);
    const dataSets = 200;
    let withSignificant = 0;
    let significantClusters = 0;
    let clusters = 0;
    for (let d = 0; d < dataSets; d++) {
      const points = uniformSquare(random, 100, 20_000);
      const result = dbscan(points, 1_000, 3);
      clusters += result.clusters.length;
      const { p_values } = clusterSignificance(points, result.clusters, 1_000, 3, {
        replicates: 39,
        seed: d,
      });
      const significant = p_values.filter((p) => p <= 0.05).length;
      significantClusters += significant;
      if (significant > 0) withSignificant++;
    }
    // Observed with this seed: 7.2 clusters per data set, 3.5 % of data sets with a
    // significant one, 0.035 significant clusters per data set.
    expect(clusters / dataSets).toBeGreaterThan(3);
    // sd of a 5 % share over 200 data sets ≈ 0.015; allow 2 sd above.
    expect(withSignificant / dataSets).toBeLessThan(0.08);
    // Significant clusters per null data set, the expected false discoveries.
    expect(significantClusters / dataSets).toBeLessThan(0.08);
  });
});
