import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binomialZ, effectSize, stoufferZ, sumOfRanksZ } from './z-scores.js';

describe('z statistics', () => {
  it('binomialZ: 40 hits in 100 at p0 = ¼ is (40 − 25)/√18.75', () => {
    expect(binomialZ(40, 100, 0.25)).toBeCloseTo(15 / Math.sqrt(18.75), 15);
    expect(binomialZ(0, 0, 0.25)).toBe(0);
  });

  it('sumOfRanksZ: low ranks are good', () => {
    // 5 trials, k = 4, ranks summing to 7: expected 12.5, sd √(5·15/12) = 2.5.
    expect(sumOfRanksZ([1, 1, 2, 1, 2], 4)).toBeCloseTo(5.5 / 2.5, 15);
    expect(sumOfRanksZ([4, 4], 4)).toBeLessThan(0);
    expect(sumOfRanksZ([], 4)).toBe(0);
    expect(() => sumOfRanksZ([5], 4)).toThrow(RangeError);
  });

  it('stoufferZ: Σz/√m, weighted Σwz/√Σw²', () => {
    expect(stoufferZ([1, 2, 3])).toBeCloseTo(6 / Math.sqrt(3), 15);
    expect(stoufferZ([1, 2], [3, 4])).toBeCloseTo(11 / 5, 15);
    expect(stoufferZ([])).toBe(0);
    expect(() => stoufferZ([1], [1, 1])).toThrow(RangeError);
  });

  it('effectSize is z/√n', () => {
    expect(effectSize(3, 36)).toBe(0.5);
    expect(effectSize(1, 0)).toBe(0);
  });

  it('stoufferZ of m copies of z is z·√m (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -10, max: 10, noNaN: true }),
        fc.integer({ min: 1, max: 50 }),
        (z, m) => {
          expect(stoufferZ(Array(m).fill(z))).toBeCloseTo(z * Math.sqrt(m), 9);
        },
      ),
    );
  });
});
