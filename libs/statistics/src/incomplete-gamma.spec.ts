import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { regularizedGammaP, regularizedGammaQ } from './incomplete-gamma.js';

const relativeError = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

/** Q(k, x) for integer k in closed form: the Poisson(x) probability of fewer than k events. */
function poissonBelow(k: number, x: number): number {
  let term = Math.exp(-x);
  let sum = term;
  for (let j = 1; j < k; j++) {
    term *= x / j;
    sum += term;
  }
  return sum;
}

describe('regularizedGammaQ', () => {
  // Reference: mpmath 1.3 gammainc(a, x, inf, regularized=True) at 40 digits,
  // rounded to the nearest double (SciPy 1.17 special.gammaincc agrees to ~1e-15).
  it.each([
    [0.5, 0.1, 0.654720846018577],
    [1, 1, 0.36787944117144233],
    [3, 2.5, 0.5438131158833295],
    [10, 3, 0.9988975118698845],
    [10, 25, 0.00022147663824878357],
    [0.1, 5, 0.000143938965846734],
    [100, 90, 0.8417790108135699],
    [100, 150, 5.924540335483916e-6],
    [2.5, 40, 8.391825114831611e-16],
    [1000, 1100, 0.0010593232539299773],
  ])('Q(%d, %d) = %d', (a, x, expected) => {
    expect(relativeError(regularizedGammaQ(a, x), expected)).toBeLessThan(1e-12);
  });

  it('keeps ~1e-9 relative precision for large a', () => {
    // Same reference; the prefactor a·ln x − lnΓ(a) loses digits to cancellation.
    expect(relativeError(regularizedGammaQ(5e4, 5.1e4), 4.4119392551203065e-6)).toBeLessThan(1e-8);
  });

  it('handles the edges and rejects bad input', () => {
    expect(regularizedGammaQ(2, 0)).toBe(1);
    expect(regularizedGammaP(2, 0)).toBe(0);
    expect(regularizedGammaQ(2, Number.POSITIVE_INFINITY)).toBe(0);
    expect(regularizedGammaQ(1, 800)).toBe(0); // e^−800 underflows
    expect(() => regularizedGammaQ(0, 1)).toThrow(RangeError);
    expect(() => regularizedGammaQ(-1, 1)).toThrow(RangeError);
    expect(() => regularizedGammaQ(1, -1)).toThrow(RangeError);
    expect(() => regularizedGammaQ(1, Number.NaN)).toThrow(RangeError);
  });

  it('equals the Poisson closed form for integer a (property)', () => {
    // Hand derivation: integrating by parts k−1 times gives
    // Γ(k, x)/Γ(k) = e^(−x) Σ_{j<k} x^j/j!.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0.001, max: 120, noNaN: true }),
        (k, x) => {
          const expected = poissonBelow(k, x);
          expect(Math.abs(regularizedGammaQ(k, x) - expected)).toBeLessThan(
            1e-13 + 1e-11 * expected,
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is a probability, P + Q = 1, decreasing in x (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 500, noNaN: true }),
        fc.double({ min: 0, max: 800, noNaN: true }),
        fc.double({ min: 0, max: 5, noNaN: true }),
        (a, x, dx) => {
          const q = regularizedGammaQ(a, x);
          expect(q).toBeGreaterThanOrEqual(0);
          expect(q).toBeLessThanOrEqual(1);
          expect(q + regularizedGammaP(a, x)).toBeCloseTo(1, 13);
          expect(regularizedGammaQ(a, x + dx)).toBeLessThanOrEqual(q + 1e-14);
        },
      ),
      { numRuns: 500 },
    );
  });
});
