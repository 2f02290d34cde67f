import { describe, expect, it } from 'vitest';
import { roundSignificant, roundTo, roundToUnitSum } from './rounding.js';

const units = (values: number[]) => values.reduce((sum, v) => sum + Math.round(v * 1e6), 0);

describe('roundTo and roundSignificant', () => {
  it('round to places and to significant digits, never showing −0', () => {
    expect(roundTo(1 / 3)).toBe(0.333333);
    expect(Object.is(roundTo(-1e-9), 0)).toBe(true);
    expect(roundSignificant(1.23456789e-12, 3)).toBe(1.23e-12);
  });
});

describe('roundToUnitSum', () => {
  it('gives the leftover unit to the largest remainder: thirds', () => {
    const rounded = roundToUnitSum([1 / 3, 1 / 3, 1 / 3]);
    expect(rounded).toEqual([0.333334, 0.333333, 0.333333]);
    expect(units(rounded)).toBe(1_000_000);
  });

  it('keeps sorted shares sorted and exact ones unchanged', () => {
    expect(roundToUnitSum([0.5, 0.29, 0.21])).toEqual([0.5, 0.29, 0.21]);
    const shares = [7, 5, 5, 3, 1].map((count) => count / 21);
    const rounded = roundToUnitSum(shares);
    expect(units(rounded)).toBe(1_000_000);
    expect(Math.abs(rounded.reduce((s, v) => s + v, 0) - 1)).toBeLessThan(1e-12);
    for (let i = 1; i < rounded.length; i++)
      expect(rounded[i]).toBeLessThanOrEqual(rounded[i - 1]!);
    rounded.forEach((value, i) => expect(Math.abs(value - shares[i]!)).toBeLessThanOrEqual(1e-6));
  });

  it('adds up for many random share vectors', () => {
    for (let trial = 0; trial < 200; trial++) {
      const raw = Array.from({ length: 2 + (trial % 60) }, (_, i) => ((i * 7919 + trial) % 97) + 1);
      const sum = raw.reduce((s, v) => s + v, 0);
      expect(units(roundToUnitSum(raw.map((v) => v / sum)))).toBe(1_000_000);
    }
  });

  it('refuses shares that do not add up to 1', () => {
    expect(() => roundToUnitSum([0.5, 0.4])).toThrow(RangeError);
    expect(() => roundToUnitSum([1.5, -0.5])).toThrow(RangeError);
  });
});
