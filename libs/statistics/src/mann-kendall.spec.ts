import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mannKendall, selectInPlace } from './mann-kendall.js';
import { normalSf } from './normal.js';

/** S by its definition, and P(|S| ≥ |s|) by listing every distinct ordering of the values. */
function bruteForce(values: number[]): { s: number; p: number } {
  const sOf = (x: number[]) => {
    let s = 0;
    for (let i = 0; i < x.length; i++)
      for (let j = i + 1; j < x.length; j++) s += Math.sign(x[j]! - x[i]!);
    return s;
  };
  const orderings = new Set<string>();
  const permute = (rest: number[], prefix: number[]) => {
    if (rest.length === 0) orderings.add(JSON.stringify(prefix));
    rest.forEach((value, i) =>
      permute([...rest.slice(0, i), ...rest.slice(i + 1)], [...prefix, value]),
    );
  };
  permute(values, []);
  const s = sOf(values);
  let extreme = 0;
  for (const ordering of orderings) {
    if (Math.abs(sOf(JSON.parse(ordering) as number[])) >= Math.abs(s)) extreme += 1;
  }
  return { s, p: extreme / orderings.size };
}

describe('mannKendall', () => {
  // Worked examples. Without ties the exact p-values equal scipy.stats.kendalltau's exact
  // method; with ties they were counted over every distinct ordering (itertools.permutations).
  it('a strictly rising series of 5: S = 10, exact p = 2/120', () => {
    const test = mannKendall([1, 2, 3, 4, 5]);
    expect(test).toMatchObject({ n: 5, s: 10, exact: true, z: null, tau: 1, senSlope: 1 });
    expect(test.variance).toBeCloseTo(50 / 3, 12); // 5·4·15/18
    expect(test.pValue).toBeCloseTo(2 / 120, 15);
  });

  it('ten values without ties: S = 35, p = 3434/3628800 = 0.000946', () => {
    const test = mannKendall([1.2, 1.5, 1.1, 1.9, 2.0, 2.4, 2.2, 2.9, 3.1, 2.8]);
    expect(test.s).toBe(35);
    expect(test.variance).toBe(125);
    expect(test.pValue).toBeCloseTo(3434 / 3_628_800, 15);
    expect(test.tau).toBeCloseTo(35 / 45, 15);
  });

  it('eight values with a tie (two 1s): S = 11, exact p = 4438/20160 over the distinct orderings', () => {
    const test = mannKendall([3, 1, 4, 1, 5, 9, 2, 6]);
    expect(test.s).toBe(11);
    expect(test.variance).toBeCloseTo((8 * 7 * 21 - 2 * 1 * 9) / 18, 12); // 64.333…
    expect(test.pValue).toBeCloseTo(4438 / 20_160, 15);
    // τ_b = 11 / √(28 · 27)
    expect(test.tau).toBeCloseTo(11 / Math.sqrt(28 * 27), 15);
  });

  it('twelve values with ties: the normal approximation with tie-corrected variance and continuity correction', () => {
    const test = mannKendall([10, 12, 11, 12, 15, 14, 15, 18, 17, 20, 19, 22]);
    expect(test.exact).toBe(false);
    expect(test.s).toBe(56);
    // [12·11·29 − 2·(2·1·9)] / 18: two pairs of ties (12 and 15).
    expect(test.variance).toBeCloseTo((12 * 11 * 29 - 2 * 18) / 18, 12);
    expect(test.z).toBeCloseTo(55 / Math.sqrt(210 + 2 / 3), 12);
    expect(test.pValue).toBeCloseTo(0.00015104167743936332, 14);
    expect(test.tau).toBeCloseTo(0.8616404368553291, 14);
    expect(test.senSlope).toBe(1);
  });

  it("Sen's slope is per unit of time when times are uneven", () => {
    const test = mannKendall([2.0, 2.5, 3.1, 2.9, 4.0], [0, 1, 3, 4, 7]);
    expect(test.senSlope).toBeCloseTo((0.25 + 0.2857142857142857) / 2, 14);
    expect(test.s).toBe(8);
    expect(test.pValue).toBeCloseTo(10 / 120, 15);
  });

  it('a flat series has no trend: S = 0, p = 1, τ = 0; a falling one is the mirror of a rising one', () => {
    expect(mannKendall([5, 5, 5, 5])).toMatchObject({ s: 0, pValue: 1, tau: 0, variance: 0 });
    expect(mannKendall(Array.from({ length: 30 }, () => 7))).toMatchObject({ pValue: 1, z: 0 });
    const down = mannKendall([9, 7, 8, 4, 3, 1]);
    const up = mannKendall([1, 3, 2, 6, 7, 9]);
    expect(down.s).toBe(-up.s);
    expect(down.pValue).toBeCloseTo(up.pValue, 15);
  });

  it('refuses what it cannot test', () => {
    expect(() => mannKendall([1])).toThrow(RangeError);
    expect(() => mannKendall([1, Number.NaN])).toThrow(RangeError);
    expect(() => mannKendall([1, 2], [1, 1])).toThrow(RangeError);
  });

  it('matches counting every ordering, ties or not, up to n = 7 (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 2, maxLength: 7 }),
        (values) => {
          const expected = bruteForce(values);
          const test = mannKendall(values);
          expect(test.s).toBe(expected.s);
          expect(test.pValue).toBeCloseTo(expected.p, 12);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('the exact and normal p-values agree roughly where they meet (n = 10)', () => {
    const values = [3, 5, 4, 6, 8, 7, 9, 12, 10, 11];
    const exact = mannKendall(values);
    const z = (exact.s - 1) / Math.sqrt(exact.variance);
    const normal = 2 * normalSf(z);
    expect(Math.abs(exact.pValue - normal)).toBeLessThan(0.002);
  });
});

describe('selectInPlace', () => {
  it('finds the k-th smallest value as sorting would, with ties (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 60 }),
        fc.nat(),
        (values, pick) => {
          const k = pick % values.length;
          const items = Float64Array.from(values);
          const sorted = [...values].sort((a, b) => a - b);
          expect(selectInPlace(items, k)).toBe(sorted[k]);
          for (let i = 0; i < k; i++) expect(items[i]).toBeLessThanOrEqual(sorted[k]!);
          for (let i = k + 1; i < items.length; i++)
            expect(items[i]).toBeGreaterThanOrEqual(sorted[k]!);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("Sen's slope of a long series is the median of its pairwise slopes (even and odd counts)", () => {
    for (const n of [40, 42]) {
      const times = Array.from({ length: n }, (_, i) => i);
      const values = times.map((t) => Math.sin(t) * 10 + t * 0.5);
      const slopes: number[] = [];
      for (let i = 0; i < n; i++)
        for (let j = i + 1; j < n; j++) slopes.push((values[j]! - values[i]!) / (j - i));
      slopes.sort((a, b) => a - b);
      const m = slopes.length / 2;
      const median =
        slopes.length % 2 === 1 ? slopes[Math.floor(m)]! : (slopes[m - 1]! + slopes[m]!) / 2;
      expect(mannKendall(values, times).senSlope).toBeCloseTo(median, 12);
    }
  });

  it("Sen's slope stays the median of each series' own slopes, long and short series in turn (property)", () => {
    const medianSlope = (values: number[]) => {
      const slopes: number[] = [];
      for (let i = 0; i < values.length; i++)
        for (let j = i + 1; j < values.length; j++)
          slopes.push((values[j]! - values[i]!) / (j - i));
      slopes.sort((a, b) => a - b);
      const m = slopes.length / 2;
      return slopes.length % 2 === 1 ? slopes[Math.floor(m)]! : (slopes[m - 1]! + slopes[m]!) / 2;
    };
    const series = fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 2, maxLength: 60 });
    fc.assert(
      fc.property(fc.array(series, { minLength: 2, maxLength: 6 }), (all) => {
        for (const values of all) {
          expect(mannKendall(values).senSlope).toBeCloseTo(medianSlope(values), 12);
        }
      }),
      { numRuns: 200 },
    );
  });
});
