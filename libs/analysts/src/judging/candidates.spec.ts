import { describe, expect, it } from 'vitest';
import { blindCandidates, chooseDecoys, shapeOf, shuffled } from './candidates.js';
import type { StoredCandidate } from './judging-task.js';

const candidate = (over: Partial<StoredCandidate>): StoredCandidate => ({
  id: 'c',
  target_id: null,
  description: 'a place',
  descriptors: ['water'],
  latitude: 1,
  longitude: 2,
  photo_ids: [],
  ...over,
});

describe('blindCandidates', () => {
  it('shows each kind of material for every candidate or for none', () => {
    const shown = blindCandidates([
      candidate({ id: 'truth', latitude: null, longitude: null, photo_ids: [] }),
      candidate({ id: 'decoy', target_id: 't', photo_ids: ['p1', 'p2'] }),
    ]);
    expect(shown.map((c) => [c.id, c.photoIds, c.coordinates])).toEqual([
      ['truth', [], null],
      ['decoy', [], null],
    ]);
    expect(shown.every((c) => c.descriptors.length === 1)).toBe(true);
  });

  it('shows as many photos for each as the fewest any has, and coordinates when all have them', () => {
    const shown = blindCandidates([
      candidate({ id: 'a', photo_ids: ['a1', 'a2', 'a3'] }),
      candidate({ id: 'b', photo_ids: ['b1', 'b2'], descriptors: [] }),
    ]);
    expect(shown.map((c) => c.photoIds)).toEqual([
      ['a1', 'a2'],
      ['b1', 'b2'],
    ]);
    expect(shown[0]!.coordinates).toEqual({ latitude: 1, longitude: 2 });
    expect(shown.map((c) => c.descriptors)).toEqual([[], []]);
  });
});

describe('chooseDecoys', () => {
  it('prefers pool targets shaped like the truth', () => {
    const truth = shapeOf(candidate({ photo_ids: [] }));
    const pool = [
      candidate({ id: 'photo', photo_ids: ['x'] }),
      candidate({ id: 'plain-1' }),
      candidate({ id: 'plain-2' }),
    ];
    for (let i = 0; i < 20; i++) {
      expect(
        chooseDecoys(pool, truth, 2)
          .map((c) => c.id)
          .sort(),
      ).toEqual(['plain-1', 'plain-2']);
    }
  });
});

describe('shuffled', () => {
  it('puts every item in every place (crypto randomness, not a fixed order)', () => {
    const firsts = new Set<number>();
    for (let i = 0; i < 200; i++) firsts.add(shuffled([0, 1, 2, 3, 4])[0]!);
    expect([...firsts].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(shuffled([1, 2, 3]).sort()).toEqual([1, 2, 3]);
  });
});
