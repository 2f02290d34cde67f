import { describe, expect, it } from 'vitest';
import { SeededRandom, sha256Hex } from './seeded-random.js';

describe('SeededRandom (xoshiro128**)', () => {
  it('matches the reference implementation from state {1, 2, 3, 4}', () => {
    // Output of Blackman & Vigna's xoshiro128starstar.c with s = {1, 2, 3, 4}.
    const random = SeededRandom.fromState([1, 2, 3, 4]);
    expect(Array.from({ length: 6 }, () => random.nextUint32())).toEqual([
      11520, 0, 5927040, 70819200, 2031721883, 1637235492,
    ]);
  });

  it('is deterministic per (seed, stream) and independent across streams', () => {
    const a = new SeededRandom('seed', 'x');
    const b = new SeededRandom('seed', 'x');
    const c = new SeededRandom('seed', 'y');
    const draw = (r: SeededRandom) => Array.from({ length: 8 }, () => r.nextUint32());
    const first = draw(a);
    expect(draw(b)).toEqual(first);
    expect(draw(c)).not.toEqual(first);
  });

  it('draws floats in [0, 1) and unbiased integers in range', () => {
    const random = new SeededRandom('uniform', 'test');
    const counts = [0, 0, 0, 0];
    let min = 1;
    let max = 0;
    for (let i = 0; i < 40_000; i++) {
      const u = random.next();
      min = Math.min(min, u);
      max = Math.max(max, u);
      counts[random.int(0, 3)]!++;
    }
    expect(min).toBeGreaterThanOrEqual(0);
    expect(max).toBeLessThan(1);
    // Each count ~ Bin(40000, ¼): sd ≈ 87; allow 5 sd.
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(435);
  });

  it('samples distinct items', () => {
    const picked = new SeededRandom('s', 'sample').sample([1, 2, 3, 4, 5, 6], 4);
    expect(new Set(picked).size).toBe(4);
    expect(() => new SeededRandom('s', 'e').pick([])).toThrow(RangeError);
  });

  it('hashes with SHA-256', () => {
    // FIPS 180-2 test vector.
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
