import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pickAgreement } from './agreement.js';

describe('pickAgreement', () => {
  it('works examples', () => {
    expect(pickAgreement(['a', 'a', 'a'], 4)).toBe(1);
    expect(pickAgreement([1, 2, 3, 4], 4)).toBeCloseTo(0, 15);
    expect(pickAgreement([1, 2], 4)).toBeCloseTo(0, 15); // two analysts, two answers
    // Picks a, a, b over k = 4 with 3 analysts: H = ln3 − (2/3)ln2, H_max = ln 3.
    expect(pickAgreement(['a', 'a', 'b'], 4)).toBeCloseTo(
      1 - (Math.log(3) - (2 / 3) * Math.log(2)) / Math.log(3),
      15,
    );
  });

  it('is null for fewer than two analysts and rejects impossible input', () => {
    expect(pickAgreement([], 4)).toBeNull();
    expect(pickAgreement([2], 4)).toBeNull();
    expect(() => pickAgreement([1, 2, 3], 2)).toThrow(RangeError);
    expect(() => pickAgreement([1, 1], 1)).toThrow(RangeError);
  });

  it('lies in [0, 1] and ignores order (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 2, maxLength: 30 }),
        (picks) => {
          const a = pickAgreement(picks, 4)!;
          expect(a).toBeGreaterThanOrEqual(0);
          expect(a).toBeLessThanOrEqual(1);
          expect(pickAgreement([...picks].reverse(), 4)).toBeCloseTo(a, 12);
        },
      ),
    );
  });
});
