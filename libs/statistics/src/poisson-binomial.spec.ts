import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binomialTailP } from './binomial.js';
import {
  exactTail,
  POISSON_BINOMIAL_EXACT_WORK,
  poissonBinomialTail,
  poissonBinomialTailP,
} from './poisson-binomial.js';

/** P(X ≥ hits) by enumerating every outcome of every trial (2^n terms; n ≤ 14). */
function bruteForceTail(hits: number, ps: readonly number[]): number {
  let tail = 0;
  for (let mask = 0; mask < 1 << ps.length; mask++) {
    let probability = 1;
    let count = 0;
    ps.forEach((p, i) => {
      const hit = (mask >> i) & 1;
      count += hit;
      probability *= hit ? p : 1 - p;
    });
    if (count >= hits) tail += probability;
  }
  return tail;
}

describe('poissonBinomialTailP', () => {
  it('matches worked examples (exact rationals)', () => {
    // Two trials at ½ and ¼: P(X ≥ 1) = 1 − ½·¾ = 5/8, P(X ≥ 2) = ½·¼ = 1/8.
    const two = [
      { p: 0.5, trials: 1 },
      { p: 0.25, trials: 1 },
    ];
    expect(poissonBinomialTailP(1, two)).toBeCloseTo(5 / 8, 15);
    expect(poissonBinomialTailP(2, two)).toBeCloseTo(1 / 8, 15);
    // docs/statistics.md: 8 yes/no cases at 1/3 and 4 choices among 8 at 1/8, 5 hits:
    // P(X ≥ 5) = 50975/279936 (enumerated with exact fractions).
    const mixed = [
      { p: 1 / 3, trials: 8 },
      { p: 1 / 8, trials: 4 },
    ];
    expect(poissonBinomialTail(5, mixed)).toEqual({
      pValue: expect.closeTo(50_975 / 279_936, 14),
      method: 'exact',
    });
  });

  it('is the binomial tail when every trial has one p, at any n', () => {
    const result = poissonBinomialTail(7, [
      { p: 1 / 3, trials: 5 },
      { p: 1 / 3, trials: 7 },
    ]);
    // 12 yes/no cases, 7 hits: 11771/177147.
    expect(result).toEqual({ pValue: binomialTailP(7, 12, 1 / 3), method: 'binomial' });
    expect(result.pValue).toBeCloseTo(11_771 / 177_147, 14);
    expect(poissonBinomialTailP(25_500, [{ p: 0.25, trials: 100_000 }])).toBe(
      binomialTailP(25_500, 100_000, 0.25),
    );
  });

  it('equals enumeration over every outcome (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 12 }),
        fc.nat(),
        (ps, seed) => {
          const hits = seed % (ps.length + 1);
          const groups = ps.map((p) => ({ p, trials: 1 }));
          expect(poissonBinomialTailP(hits, groups)).toBeCloseTo(bruteForceTail(hits, ps), 12);
        },
      ),
    );
  });

  it('keeps the relative precision of tiny tails', () => {
    // 40 of 40 hits at ¼ and ⅛ alternately: the product of the p's, about 1e-30.
    const groups = [
      { p: 0.25, trials: 20 },
      { p: 0.125, trials: 20 },
    ];
    const product = 0.25 ** 20 * 0.125 ** 20;
    expect(Math.abs(poissonBinomialTailP(40, groups) - product) / product).toBeLessThan(1e-12);
  });

  it('approximates beyond the work limit to within 2e-4 of the exact recurrence', () => {
    const groups = [
      { p: 1 / 3, trials: 2_000 },
      { p: 1 / 8, trials: 1_500 },
      { p: 1 / 16, trials: 1_500 },
    ];
    const mean = 2_000 / 3 + 1_500 / 8 + 1_500 / 16;
    for (const hits of [Math.round(mean) - 40, Math.round(mean), Math.round(mean) + 60]) {
      expect(5_000 * hits).toBeGreaterThan(POISSON_BINOMIAL_EXACT_WORK);
      const approximate = poissonBinomialTail(hits, groups);
      expect(approximate.method).toBe('refined_normal');
      expect(Math.abs(approximate.pValue - exactTail(hits, groups))).toBeLessThan(2e-4);
    }
  });

  it('handles the edges', () => {
    expect(poissonBinomialTailP(0, [])).toBe(1);
    expect(poissonBinomialTailP(0, [{ p: 0.3, trials: 4 }])).toBe(1);
    expect(
      poissonBinomialTailP(2, [
        { p: 1, trials: 2 },
        { p: 0, trials: 3 },
      ]),
    ).toBe(1);
    expect(
      poissonBinomialTailP(3, [
        { p: 1, trials: 2 },
        { p: 0, trials: 3 },
      ]),
    ).toBe(0);
    expect(() => poissonBinomialTailP(3, [{ p: 0.5, trials: 2 }])).toThrow(RangeError);
    expect(() => poissonBinomialTailP(1, [{ p: 1.5, trials: 2 }])).toThrow(RangeError);
    expect(() => poissonBinomialTailP(1, [{ p: 0.5, trials: 1.5 }])).toThrow(RangeError);
  });
});
