import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { saicAccuracy, saicReliability } from './saic.js';

describe('SAIC fuzzy-set scores', () => {
  it('works a hand example', () => {
    // Target: water 1, structure 0.5, cold 0.25; response: water 0.75,
    // structure 1, metal 0.5. Overlap = 0.75 + 0.5 + 0 + 0 = 1.25.
    const target = [1, 0.5, 0.25, 0];
    const response = [0.75, 1, 0, 0.5];
    expect(saicAccuracy(target, response)).toBeCloseTo(1.25 / 1.75, 15);
    expect(saicReliability(target, response)).toBeCloseTo(1.25 / 2.25, 15);
  });

  it('is 1/1 for a perfect response and 0 for a disjoint one', () => {
    expect(saicAccuracy([1, 0.5], [1, 0.5])).toBe(1);
    expect(saicReliability([1, 0.5], [1, 0.5])).toBe(1);
    expect(saicAccuracy([1, 0], [0, 1])).toBe(0);
  });

  it('scores an empty side as 0', () => {
    expect(saicAccuracy([0, 0], [1, 1])).toBe(0);
    expect(saicReliability([1, 1], [0, 0])).toBe(0);
    expect(saicAccuracy([], [])).toBe(0);
  });

  it('rejects mismatched or out-of-range codings', () => {
    expect(() => saicAccuracy([1], [1, 0])).toThrow(RangeError);
    expect(() => saicReliability([1.5], [1])).toThrow(RangeError);
  });

  it('stays in [0, 1] and swaps roles when target and response swap (property)', () => {
    const pair = fc
      .integer({ min: 1, max: 40 })
      .chain((n) =>
        fc.tuple(
          fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
          fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
        ),
      );
    fc.assert(
      fc.property(pair, ([t, r]) => {
        const a = saicAccuracy(t, r);
        expect(a).toBeGreaterThanOrEqual(0);
        expect(a).toBeLessThanOrEqual(1);
        expect(saicReliability(r, t)).toBe(a);
      }),
    );
  });
});
