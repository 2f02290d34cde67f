import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from './mulberry32.js';
import { adjustPValues, benjaminiHochbergAdjust, holmAdjust } from './multiple-comparisons.js';

const close = (actual: number[], expected: number[]) => {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((a, i) => expect(a).toBeCloseTo(expected[i]!, 12));
};

/** Benjamini & Hochberg (1995), J R Stat Soc B 57:289–300, §4: 15 p-values of a trial. */
const BH_PAPER = [
  0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.324, 0.4262, 0.5719,
  0.6528, 0.759, 1,
];

describe('holmAdjust', () => {
  it('works a small example by hand, in input order', () => {
    // Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04;
    // running maximum 0.02, 0.03, 0.06, 0.06.
    close(holmAdjust([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02]);
  });

  it('rejects three of the paper’s 15 hypotheses at 0.05', () => {
    // By hand: 15·0.0001, 14·0.0004, 13·0.0019 = 0.0015, 0.0056, 0.0247;
    // then 12·0.0095 = 0.114 stops the step-down.
    const adjusted = holmAdjust(BH_PAPER);
    close(adjusted.slice(0, 4), [0.0015, 0.0056, 0.0247, 0.114]);
    expect(adjusted.filter((p) => p <= 0.05)).toHaveLength(3);
  });

  it('caps at 1, keeps ties together and handles the empty family', () => {
    // 3·0.01, 2·0.5 = 1, then 0.6 under the running maximum: 1.
    close(holmAdjust([0.6, 0.5, 0.01]), [1, 1, 0.03]);
    // Tied p-values: 3·0.01 = 0.03, 2·0.01 = 0.02 raised to 0.03.
    close(holmAdjust([0.6, 0.01, 0.01]), [0.6, 0.03, 0.03]);
    expect(holmAdjust([])).toEqual([]);
    expect(holmAdjust([0.2])).toEqual([0.2]);
    expect(() => holmAdjust([0.2, 1.2])).toThrow(RangeError);
    expect(() => holmAdjust([Number.NaN])).toThrow(RangeError);
  });
});

describe('benjaminiHochbergAdjust', () => {
  it('works a small example by hand, in input order', () => {
    // Sorted 0.005, 0.01, 0.03, 0.04 times 4/1, 4/2, 4/3, 4/4: 0.02, 0.02, 0.04, 0.04;
    // running minimum from the top leaves them. SciPy false_discovery_control agrees.
    close(benjaminiHochbergAdjust([0.01, 0.04, 0.03, 0.005]), [0.02, 0.04, 0.04, 0.02]);
  });

  it('rejects four of the paper’s 15 hypotheses at 0.05, as the paper says', () => {
    // SciPy 1.17 stats.false_discovery_control(p, method='bh').
    close(
      benjaminiHochbergAdjust(BH_PAPER),
      [
        0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.06385714285714286, 0.06385714285714286, 0.0645,
        0.0765, 0.486, 0.5811818181818181, 0.7148749999999999, 0.7532307692307693,
        0.8132142857142857, 1,
      ],
    );
    expect(benjaminiHochbergAdjust(BH_PAPER).filter((p) => p <= 0.05)).toHaveLength(4);
  });

  it('handles the empty family and rejects bad input', () => {
    expect(benjaminiHochbergAdjust([])).toEqual([]);
    expect(() => benjaminiHochbergAdjust([-0.1])).toThrow(RangeError);
  });
});

describe('adjustPValues', () => {
  it('dispatches on the correction', () => {
    const p = [0.01, 0.04, 0.03, 0.005];
    expect(adjustPValues(p, 'holm')).toEqual(holmAdjust(p));
    expect(adjustPValues(p, 'benjamini-hochberg')).toEqual(benjaminiHochbergAdjust(p));
    expect(() => adjustPValues(p, 'bonferroni' as never)).toThrow(RangeError);
  });

  it('orders the corrections: raw ≤ BH ≤ Holm ≤ Bonferroni, all monotone (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 40 }),
        (p) => {
          const m = p.length;
          const holm = holmAdjust(p);
          const bh = benjaminiHochbergAdjust(p);
          p.forEach((pi, i) => {
            // m·p/m may round a last bit below p.
            expect(bh[i]!).toBeGreaterThanOrEqual(pi * (1 - 1e-15));
            expect(holm[i]!).toBeGreaterThanOrEqual(bh[i]! - 1e-15);
            expect(holm[i]!).toBeLessThanOrEqual(Math.min(1, m * pi) + 1e-15);
            p.forEach((pj, j) => {
              if (pi <= pj) {
                expect(holm[i]!).toBeLessThanOrEqual(holm[j]!);
                expect(bh[i]!).toBeLessThanOrEqual(bh[j]!);
              }
            });
          });
        },
      ),
    );
  });

  it('keeps the family-wise error near or below 5 % when every null is true (property)', () => {
    // 20 independent uniform p-values per family. Holm rejects something exactly
    // when Bonferroni does: FWER = 1 − (1 − 0.05/20)^20 ≈ 0.0488. With every null
    // true BH's FDR is its FWER, exactly 0.05 for independent tests.
    const random = mulberry32(99);
    const families = 4_000;
    let holmAny = 0;
    let bhAny = 0;
    for (let f = 0; f < families; f++) {
      const p = Array.from({ length: 20 }, () => random());
      if (holmAdjust(p).some((q) => q <= 0.05)) holmAny++;
      if (benjaminiHochbergAdjust(p).some((q) => q <= 0.05)) bhAny++;
    }
    // sd of a 5 % share over 4000 families ≈ 0.0034; allow 3 sd above.
    expect(holmAny / families).toBeLessThan(0.06);
    expect(bhAny / families).toBeLessThan(0.06);
    expect(bhAny / families).toBeGreaterThan(0.04);
  });
});
