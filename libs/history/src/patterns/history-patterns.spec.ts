import { describe, expect, it } from 'vitest';
import { historyPatterns, type PatternAggregates } from './history-patterns.js';

const SETTINGS = { minSupport: 2, gridDegrees: 1, window: 20_000 };

function aggregates(overrides: Partial<PatternAggregates> = {}): PatternAggregates {
  return {
    totals: {
      cases: 10,
      verified: 8,
      hits: 4,
      chance: 0.25,
      located: 0,
      first: '2026-01-05T10:00:00Z',
      last: '2026-01-26T10:00:00Z',
    },
    vocabulary: { distinct: 3, mentions: 16 },
    terms: [
      { term: 'metal', cases: 6, verified: 4, hits: 0 },
      { term: 'water', cases: 6, verified: 4, hits: 4 },
      { term: 'stone', cases: 4, verified: 4, hits: 4 },
      { term: 'rare', cases: 2, verified: 1, hits: 1 },
    ],
    cells_occupied: 0,
    cells: [],
    times: [
      { weekday: 1, hour: null, month: null, cases: 10 },
      { weekday: null, hour: 10, month: null, cases: 10 },
      { weekday: null, hour: null, month: 1, cases: 10 },
    ],
    ...overrides,
  };
}

describe('historyPatterns', () => {
  it('tests hit rates against the organisation’s and adjusts them with Benjamini–Hochberg', () => {
    const result = historyPatterns(aggregates(), SETTINGS);
    expect(result.correction).toBe('benjamini-hochberg');
    // The family: terms with at least 2 verified cases (rare has 1 and stays untested).
    expect(result.descriptors.familySize).toBe(3);
    const [first, second, third, last] = result.descriptors.patterns;
    expect([first!.term, second!.term]).toEqual(['water', 'stone']); // tied: more cases first
    // p = 0.5⁴ for both; BH: 0.0625 · 3 / 2 (Holm would give 0.1875).
    expect(first!.hits).toMatchObject({ lift: 2, pAdjusted: 0.09375, significant: false });
    expect(first!.hits!.hitRate).toMatchObject({ successes: 4, n: 4, baseline: 0.5 });
    expect(third!.term).toBe('metal');
    expect(third!.hits).toMatchObject({ lift: 0, pAdjusted: 1 });
    expect(last).toMatchObject({ term: 'rare', hits: null });
    expect(first!.share.baseline).toBeCloseTo(16 / 30, 12);
    expect(result.hitRate).toMatchObject({ successes: 4, n: 8, baseline: 0.25 });
  });

  it('compares time buckets with their uniform share as one family of 43', () => {
    const { times } = historyPatterns(aggregates(), SETTINGS);
    expect(times.familySize).toBe(43);
    expect(times.weekday[0]).toMatchObject({ bucket: 'monday', significant: true });
    expect(times.weekday[0]!.share).toMatchObject({ successes: 10, n: 10, baseline: 0.142857 });
    expect(times.hour[10]!.bucket).toBe('10');
    expect(times.month[1]!.share.baseline).toBe(0.077325); // 28.2425 / 365.2425
    expect(times.weekday[1]).toMatchObject({ lift: 0, pAdjusted: 1, significant: false });
  });

  it('says when there is nothing to compare with', () => {
    const none = historyPatterns(
      aggregates({
        totals: { ...aggregates().totals, verified: 3, hits: 3 },
      }),
      SETTINGS,
    );
    expect(none.descriptors.familySize).toBe(0);
    expect(none.descriptors.patterns.every((p) => p.hits === null)).toBe(true);
    expect(none.warnings).toContainEqual(expect.stringContaining('All 3 verified cases are hits'));

    const empty = historyPatterns(
      {
        totals: {
          cases: 0,
          verified: 0,
          hits: 0,
          chance: null,
          located: 0,
          first: null,
          last: null,
        },
        vocabulary: { distinct: 0, mentions: 0 },
        terms: [],
        cells_occupied: 0,
        cells: [],
        times: [],
      },
      SETTINGS,
    );
    expect(empty).toMatchObject({ cases: 0, hitRate: null, times: { familySize: 0, weekday: [] } });
    expect(empty.warnings).toEqual(['No cases match: there is nothing to look at.']);
  });

  it('says when the window did not reach every match', () => {
    const full = historyPatterns(
      aggregates({ totals: { ...aggregates().totals, cases: 20_000 } }),
      SETTINGS,
    );
    expect(full.window.bounded).toBe(true);
    expect(full.warnings[0]).toContain('Only the newest 20,000 cases');
  });
});
