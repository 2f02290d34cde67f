import { describe, expect, it } from 'vitest';
import { descriptorAgreement, descriptorSupport } from './descriptor-support.js';

describe('descriptorSupport', () => {
  it('gives each descriptor the share of analysts reporting it, ordered by support', () => {
    const support = descriptorSupport([
      ['water', 'cold'],
      ['Water ', 'metal', 'water'],
      ['water', 'cold', ''],
    ]);
    expect(support).toEqual({ water: 1, cold: 2 / 3, metal: 1 / 3 });
    expect(Object.keys(support)).toEqual(['water', 'cold', 'metal']);
  });

  it('counts silent analysts in the denominator and handles nobody', () => {
    expect(descriptorSupport([['water'], []])).toEqual({ water: 0.5 });
    expect(descriptorSupport([])).toEqual({});
  });
});

describe('descriptorAgreement', () => {
  it('is 1 when all report the same, 0 when nobody overlaps', () => {
    expect(
      descriptorAgreement([
        ['water', 'cold'],
        ['cold', 'water'],
      ]),
    ).toBe(1);
    expect(descriptorAgreement([['water'], ['metal'], ['cold']])).toBe(0);
  });

  it('averages the rescaled support', () => {
    // 3 analysts: water 3/3 → 1, cold 2/3 → 0.5, metal 1/3 → 0.
    expect(
      descriptorAgreement([
        ['water', 'cold'],
        ['water', 'cold'],
        ['water', 'metal'],
      ]),
    ).toBeCloseTo(0.5, 15);
  });

  it('is null without two analysts or without descriptors', () => {
    expect(descriptorAgreement([['water']])).toBeNull();
    expect(descriptorAgreement([[], []])).toBeNull();
  });
});
