import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalCdf, normalSf } from './normal.js';

const relativeError = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

describe('normalCdf / normalSf', () => {
  // Reference values: Abramowitz & Stegun Table 26.1 / 26.2, extended to 17
  // digits with an arbitrary-precision evaluation (mpmath ncdf).
  it.each([
    [1.959963984540054, 0.975],
    [-1, 0.15865525393145705],
    [0.5, 0.6914624612740131],
    [2.5, 0.993790334674224],
    [3, 0.9986501019683699],
    [-4, 3.167124183311992e-5],
  ])('Φ(%d) = %d', (x, expected) => {
    expect(relativeError(normalCdf(x), expected)).toBeLessThan(1e-12);
  });

  it.each([
    [3, 1.3498980316300946e-3],
    [5, 2.866515718791939e-7],
    [8, 6.220960574271784e-16],
    [10, 7.619853024160525e-24],
  ])('upper tail Q(%d) = %d keeps relative precision', (x, expected) => {
    expect(relativeError(normalSf(x), expected)).toBeLessThan(1e-12);
  });

  it('is symmetric and monotone (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -30, max: 30, noNaN: true }),
        fc.double({ min: 0, max: 5, noNaN: true }),
        (x, d) => {
          expect(normalCdf(x) + normalSf(x)).toBeCloseTo(1, 14);
          expect(normalCdf(x)).toBeCloseTo(normalSf(-x), 14);
          expect(normalCdf(x + d)).toBeGreaterThanOrEqual(normalCdf(x));
        },
      ),
    );
  });
});
