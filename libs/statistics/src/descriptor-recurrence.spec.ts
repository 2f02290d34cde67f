import { describe, expect, it } from 'vitest';
import { descriptorRecurrence } from './descriptor-recurrence.js';
import { mulberry32 } from './mulberry32.js';
import { holmAdjust } from './multiple-comparisons.js';

/** Ten items: water in 6, cold in 3, metal in 1; stone is in the vocabulary but unseen. */
const ITEMS = [
  ['water', 'cold'],
  ['Water ', 'water'],
  ['water', 'cold', ''],
  ['water'],
  ['water', 'metal'],
  ['water'],
  ['cold'],
  [],
  [],
  [],
];
const RATES = new Map([
  ['water', 0.2],
  ['cold', 0.1],
  ['metal', 0.05],
  ['STONE', 0.1],
]);

/** Exact rationals (Python fractions): P(X ≥ 6 | 10, 1/5) = 62201/9765625,
 *  P(X ≥ 3 | 10, 1/10) = 87738533/1.25e9, P(X ≥ 1 | 10, 1/20) = 1 − 0.95^10. */
const P_WATER = 62201 / 9765625;
const P_COLD = 87738533 / 1250000000;
const P_METAL = 1 - 0.95 ** 10;

describe('descriptorRecurrence', () => {
  it('works the example by hand with Holm over the whole vocabulary', () => {
    const result = descriptorRecurrence(ITEMS, RATES);
    expect(result).toMatchObject({
      n_items: 10,
      correction: 'holm',
      min_support: 2,
      family_size: 4,
    });
    // Family (water, cold, metal, stone = 1) sorted: 4·P_WATER = 0.0254775296,
    // 3·P_COLD = 0.2105724792, 2·P_METAL, 1. Metal (support 1) is counted, not reported.
    expect(result.terms.map((t) => t.term)).toEqual(['water', 'cold']);
    const [water, cold] = result.terms;
    expect(water).toMatchObject({ support: 6, share: 0.6, expected_share: 0.2 });
    expect(water!.lift).toBeCloseTo(3, 14);
    expect(water!.p_value).toBeCloseTo(P_WATER, 15);
    expect(water!.p_adjusted).toBeCloseTo(4 * P_WATER, 14);
    expect(cold!.lift).toBeCloseTo(3, 14);
    expect(cold!.p_value).toBeCloseTo(P_COLD, 14);
    expect(cold!.p_adjusted).toBeCloseTo(3 * P_COLD, 14);
  });

  it('applies Benjamini–Hochberg on request', () => {
    // m = 4: 4·P_WATER/1, then min over 4·P_COLD/2, 4·P_METAL/3, 4·1/4.
    const result = descriptorRecurrence(ITEMS, RATES, { correction: 'benjamini-hochberg' });
    expect(result.correction).toBe('benjamini-hochberg');
    expect(result.terms[0]!.p_adjusted).toBeCloseTo(4 * P_WATER, 14);
    expect(result.terms[1]!.p_adjusted).toBeCloseTo(2 * P_COLD, 14);
  });

  it('reports singletons with minSupport 1, ordered by p-value then term', () => {
    const result = descriptorRecurrence(ITEMS, RATES, { minSupport: 1 });
    expect(result.terms.map((t) => t.term)).toEqual(['water', 'cold', 'metal']);
    expect(result.terms[2]!.p_value).toBeCloseTo(P_METAL, 14);
    expect(result.terms[2]!.p_adjusted).toBeCloseTo(2 * P_METAL, 14);
    const tie = descriptorRecurrence(
      [
        ['b', 'a'],
        ['a', 'b'],
      ],
      () => 0.5,
    );
    expect(tie.terms.map((t) => t.term)).toEqual(['a', 'b']);
  });

  it('takes the family from the observed terms or familySize when rates are a function', () => {
    const rate = (term: string) => RATES.get(term)!;
    // Observed: water, cold, metal — three hypotheses.
    const observed = descriptorRecurrence(ITEMS, rate);
    expect(observed.family_size).toBe(3);
    expect(observed.terms[0]!.p_adjusted).toBeCloseTo(3 * P_WATER, 14);
    const declared = descriptorRecurrence(ITEMS, rate, { familySize: 500 });
    expect(declared.family_size).toBe(500);
    expect(declared.terms[0]!.p_adjusted).toBe(1);
  });

  it('handles no items', () => {
    expect(descriptorRecurrence([], RATES)).toEqual({
      n_items: 0,
      correction: 'holm',
      min_support: 2,
      family_size: 4,
      terms: [],
    });
    expect(descriptorRecurrence([], () => 0.5).terms).toEqual([]);
  });

  it('rejects bad input', () => {
    expect(() => descriptorRecurrence([['gold']], RATES)).toThrow(/no base rate for term "gold"/);
    expect(() => descriptorRecurrence([['a']], () => 0)).toThrow(RangeError);
    expect(() => descriptorRecurrence([['a']], () => 1.5)).toThrow(RangeError);
    expect(() => descriptorRecurrence([['a']], () => Number.NaN)).toThrow(RangeError);
    expect(() => descriptorRecurrence([], new Map([[' ', 0.1]]))).toThrow(RangeError);
    expect(() =>
      descriptorRecurrence(
        [],
        new Map([
          ['A', 0.1],
          ['a', 0.2],
        ]),
      ),
    ).toThrow(RangeError);
    expect(() => descriptorRecurrence(ITEMS, RATES, { minSupport: 0 })).toThrow(RangeError);
    expect(() => descriptorRecurrence(ITEMS, RATES, { familySize: 3 })).toThrow(RangeError);
  });

  it('keeps the family-wise error at or below 5 % under the null, rare terms included (property)', () => {
    // 100 items; a vocabulary of 5 common terms (base 0.3) and 200 rare ones
    // (base 0.001), each item having each term independently at its base rate.
    // A rare term reaches support 2 with probability ≈ C(100,2)·1e-6 ≈ 0.0047, so
    // about one does per run: testing only the terms seen twice (the family
    // chosen from the data) would call it significant most of the time.
    const vocabulary = new Map<string, number>();
    for (let i = 0; i < 5; i++) vocabulary.set(`common${i}`, 0.3);
    for (let i = 0; i < 200; i++) vocabulary.set(`rare${i}`, 0.001);
    const entries = [...vocabulary];
    const random = mulberry32(4242);
    const runs = 500;
    let falseAlarms = 0;
    let naiveFalseAlarms = 0;
    for (let run = 0; run < runs; run++) {
      const items = Array.from({ length: 100 }, () => {
        const terms: string[] = [];
        for (const [term, rate] of entries) if (random() < rate) terms.push(term);
        return terms;
      });
      const result = descriptorRecurrence(items, vocabulary);
      if (result.terms.some((t) => t.p_adjusted <= 0.05)) falseAlarms++;
      if (holmAdjust(result.terms.map((t) => t.p_value)).some((p) => p <= 0.05)) {
        naiveFalseAlarms++;
      }
    }
    // Observed with this seed: 0.026 and 0.616.
    // sd of a 5 % share over 500 runs ≈ 0.0097; allow 2 sd above.
    expect(falseAlarms / runs).toBeLessThan(0.07);
    // The family chosen from the data fails badly: this is why it is not used.
    expect(naiveFalseAlarms / runs).toBeGreaterThan(0.3);
  });
});
