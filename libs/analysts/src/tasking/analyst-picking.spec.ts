import { describe, expect, it } from 'vitest';
import { leastLoaded } from './analyst-picking.js';

describe('leastLoaded', () => {
  it('takes the fewest open assignments first, up to the count', () => {
    const load = new Map([
      ['a', 3],
      ['b', 0],
      ['c', 1],
      ['d', 2],
    ]);
    expect(leastLoaded(load, 2)).toEqual(['b', 'c']);
    expect(leastLoaded(load, 10)).toEqual(['b', 'c', 'd', 'a']);
  });

  it('takes nobody for a count of zero or less, or from nobody', () => {
    expect(leastLoaded(new Map([['a', 0]]), 0)).toEqual([]);
    expect(leastLoaded(new Map([['a', 0]]), -1)).toEqual([]);
    expect(leastLoaded(new Map(), 3)).toEqual([]);
  });

  it('breaks ties at random', () => {
    const load = new Map([
      ['a', 1],
      ['b', 1],
      ['c', 0],
    ]);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const [first, second] = leastLoaded(load, 2);
      expect(first).toBe('c');
      seen.add(second!);
    }
    expect(seen).toEqual(new Set(['a', 'b']));
  });
});
