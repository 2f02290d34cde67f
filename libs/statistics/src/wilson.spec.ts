import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wilsonInterval } from './wilson.js';

describe('wilsonInterval', () => {
  // Newcombe (1998) "Two-sided confidence intervals for the single
  // proportion", Stat Med 17:857–872, Table I, method 3 (Wilson score, no
  // continuity correction), 4 d.p.
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
    [0, 10, 0, 0.2775],
  ])('%i/%i → (%d, %d)', (hits, n, lo, hi) => {
    const [l, h] = wilsonInterval(hits, n);
    expect(l).toBeCloseTo(lo, 4);
    expect(h).toBeCloseTo(hi, 4);
  });

  it('knows nothing without trials', () => {
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
  });

  it('is symmetric (hits ↔ misses) and contains the estimate (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, u) => {
          const hits = Math.floor(u * n);
          const [lo, hi] = wilsonInterval(hits, n);
          const [mlo, mhi] = wilsonInterval(n - hits, n);
          expect(lo).toBeGreaterThanOrEqual(0);
          expect(hi).toBeLessThanOrEqual(1);
          expect(lo).toBeLessThanOrEqual(hits / n + 1e-12);
          expect(hi).toBeGreaterThanOrEqual(hits / n - 1e-12);
          expect(lo).toBeCloseTo(1 - mhi, 12);
          expect(hi).toBeCloseTo(1 - mlo, 12);
        },
      ),
    );
  });

  it('narrows as z falls', () => {
    const [lo95, hi95] = wilsonInterval(30, 100);
    const [lo80, hi80] = wilsonInterval(30, 100, 1.2815515655446004);
    expect(lo80).toBeGreaterThan(lo95);
    expect(hi80).toBeLessThan(hi95);
  });
});
