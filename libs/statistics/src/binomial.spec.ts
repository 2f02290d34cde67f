import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binomialTailP } from './binomial.js';

/** Exact P(X ≥ hits | n, 1/4) as a rational, with BigInt: Σ C(n,j)·3^(n−j) / 4^n. */
function exactQuarterTail(hits: number, n: number): number {
  let choose = 1n;
  let numerator = 0n;
  for (let j = 0; j <= n; j++) {
    if (j > 0) choose = (choose * BigInt(n - j + 1)) / BigInt(j);
    if (j >= hits) numerator += choose * 3n ** BigInt(n - j);
  }
  // Scale to keep 15 significant digits before converting to a double.
  const denominator = 4n ** BigInt(n);
  return Number((numerator * 10n ** 18n) / denominator) / 1e18;
}

describe('binomialTailP', () => {
  it('matches exact and tabulated values', () => {
    // Exact: P(X ≥ 8 | 10, ½) = (45 + 10 + 1)/1024.
    expect(binomialTailP(8, 10, 0.5)).toBeCloseTo(56 / 1024, 15);
    // Cumulative binomial tables (CRC Standard Mathematical Tables, 4 d.p.):
    // n = 20, p = .25: P(X ≤ 8) = .9591; n = 10, p = .1: P(X ≤ 2) = .9298.
    expect(binomialTailP(9, 20, 0.25)).toBeCloseTo(1 - 0.9591, 4);
    expect(binomialTailP(3, 10, 0.1)).toBeCloseTo(1 - 0.9298, 4);
    // The two thresholds of a 12-trial, k = 4 session (exact rationals).
    expect(binomialTailP(6, 12, 0.25)).toBeCloseTo(0.05440223217010498, 14);
    expect(binomialTailP(7, 12, 0.25)).toBeCloseTo(0.014252781867980957, 14);
  });

  it('is stable for n = 100 000 (reference: Boost regularised incomplete beta via SciPy binom.sf)', () => {
    const rel = (a: number, b: number) => Math.abs(a - b) / b;
    expect(rel(binomialTailP(25_500, 100_000, 0.25), 1.3609536311765414e-4)).toBeLessThan(1e-9);
    expect(rel(binomialTailP(25_000, 100_000, 0.25), 0.5012139408347714)).toBeLessThan(1e-9);
    expect(rel(binomialTailP(26_500, 100_000, 0.25), 7.126734740193961e-28)).toBeLessThan(1e-8);
    expect(binomialTailP(24_000, 100_000, 0.25)).toBeCloseTo(0.9999999999998925, 12);
    expect(binomialTailP(1, 100_000, 0.25)).toBe(1);
    expect(binomialTailP(100_000, 100_000, 0.25)).toBe(0); // 4^−100000 underflows
  });

  it('handles the edges', () => {
    expect(binomialTailP(0, 0, 0.3)).toBe(1);
    expect(binomialTailP(0, 5, 0.3)).toBe(1);
    expect(binomialTailP(1, 5, 0)).toBe(0);
    expect(binomialTailP(5, 5, 1)).toBe(1);
    expect(() => binomialTailP(6, 5, 0.5)).toThrow(RangeError);
    expect(() => binomialTailP(1.5, 5, 0.5)).toThrow(RangeError);
    expect(() => binomialTailP(1, 5, 1.2)).toThrow(RangeError);
  });

  it('equals the exact rational tail for p0 = 1/4 (property)', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: 150 })
          .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }))),
        ([n, hits]) => {
          const exact = exactQuarterTail(hits, n);
          expect(Math.abs(binomialTailP(hits, n, 0.25) - exact)).toBeLessThan(
            1e-12 + 1e-10 * exact,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is a probability, decreasing in hits (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2000 }),
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, p0, u) => {
          const hits = Math.min(n - 1, Math.floor(u * n));
          const a = binomialTailP(hits, n, p0);
          const b = binomialTailP(hits + 1, n, p0);
          expect(a).toBeGreaterThanOrEqual(0);
          expect(a).toBeLessThanOrEqual(1);
          expect(b).toBeLessThanOrEqual(a + 1e-12);
        },
      ),
      { numRuns: 300 },
    );
  });
});
