import { describe, expect, it } from 'vitest';
import {
  densestReadings,
  distance,
  readCategorical,
  readDepths,
  readDisc,
} from './simulated-dowser.js';

describe('readCategorical', () => {
  it('counts every reading once and ranks the options by count, ties in a drawn order', () => {
    const read = readCategorical('seed', 5, 24);
    expect(read.picks).toHaveLength(24);
    expect(read.counts.reduce((s, c) => s + c, 0)).toBe(24);
    expect([...read.ranking].sort()).toEqual([0, 1, 2, 3, 4]);
    for (let i = 1; i < 5; i++) {
      expect(read.counts[read.ranking[i]!]).toBeLessThanOrEqual(read.counts[read.ranking[i - 1]!]!);
    }
    expect(read).toMatchObject({ trials: 24, p0: 0.2 });
    // The hits are the readings of the (hidden) true option.
    expect(read.counts).toContain(read.hits);
  });

  it('breaks ties by lot, not by position: over seeds each of two tied options comes first about half the time', () => {
    let firstWins = 0;
    let ties = 0;
    for (let i = 0; i < 2000; i++) {
      const read = readCategorical(`tie-${i}`, 2, 2);
      if (read.counts[0] !== read.counts[1]) continue;
      ties += 1;
      if (read.ranking[0] === 0) firstWins += 1;
    }
    // Binomial(ties ≈ 1000, ½): 4 standard errors.
    expect(Math.abs(firstWins / ties - 0.5)).toBeLessThan(4 * Math.sqrt(0.25 / ties));
  });
});

describe('readDisc', () => {
  it('states the chance of a pass exactly: 1 − (1 − q)^m', () => {
    expect(readDisc('s', 1000, 250, 12, 1).p0).toBe(0.0625);
    expect(readDisc('s', 1000, 100, 12, 3).p0).toBeCloseTo(1 - 0.99 ** 3, 15);
  });

  it('keeps every mark in the circle and makes passes × marks of them', () => {
    const read = readDisc('s', 500, 50, 24, 4);
    expect(read.marks).toHaveLength(96);
    for (const mark of read.marks) expect(Math.hypot(mark.x, mark.y)).toBeLessThanOrEqual(500);
    expect(read.hits).toBeLessThanOrEqual(24);
  });

  it('refuses an accuracy as wide as the circle', () => {
    expect(() => readDisc('s', 100, 100, 12, 1)).toThrow(RangeError);
  });
});

describe('readDepths', () => {
  it('reads within 0..max and gives chance as the tolerance band’s share', () => {
    const read = readDepths('s', 40, 2, 48);
    expect(read.p0).toBe(0.1);
    for (const depth of read.depths) {
      expect(depth).toBeGreaterThanOrEqual(0);
      expect(depth).toBeLessThan(40);
    }
  });
});

describe('densestReadings', () => {
  const near = (a: number, b: number) => Math.abs(a - b) <= 1;

  it('chooses the reading with the most neighbours, then the next one far enough away', () => {
    // Around 5: 4.5, 5, 5.5, 6 → 5 and 5.5 each have 4 (themselves included); 5 comes first.
    const readings = [0, 4.5, 5, 5.5, 6, 9, 9.5];
    const chosen = densestReadings(readings, near, (a, b) => Math.abs(a - b) > 2, 3);
    expect(chosen).toEqual([
      { index: 2, support: 4 },
      { index: 5, support: 2 },
      { index: 0, support: 1 },
    ]);
  });

  it('returns fewer than asked when nothing else is far enough away', () => {
    expect(densestReadings([1, 1.5, 2], near, () => false, 3)).toHaveLength(1);
  });

  it('measures plane distances in metres', () => {
    expect(distance({ x: 0, y: 0 }, { x: 3, y: 4 })).toBe(5);
  });
});
