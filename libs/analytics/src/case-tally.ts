import type { RollupTally } from '#history';
import { rateOf, type Rate } from '#statistics';
import { defaultBaseline } from './case-baselines.js';

/** What the rollups count for a group of cases (one rollup tally, or a sum of them). */
export interface CaseTally {
  cases: number;
  verified: number;
  hits: number;
  partials: number;
  misses: number;
  confidenceSum: number;
  confidenceCount: number;
  /**
   * Σ chance baseline over the verified cases, each case's own baseline or,
   * when it records none, its kind's default.
   */
  baselineSum: number;
}

export const EMPTY_TALLY: CaseTally = {
  cases: 0,
  verified: 0,
  hits: 0,
  partials: 0,
  misses: 0,
  confidenceSum: 0,
  confidenceCount: 0,
  baselineSum: 0,
};

/** A rollup tally's counts; verified cases without a baseline of their own take their kind's default. */
export function tallyOf(row: RollupTally): CaseTally {
  const withoutBaseline = row.verified - row.baselineCount;
  return {
    cases: row.cases,
    verified: row.verified,
    hits: row.hits,
    partials: row.partials,
    misses: row.misses,
    confidenceSum: row.confidenceSum,
    confidenceCount: row.confidenceCount,
    baselineSum:
      row.baselineSum +
      withoutBaseline * defaultBaseline(row.type, row.subtype === '' ? null : row.subtype),
  };
}

export function addTallies(a: CaseTally, b: CaseTally): CaseTally {
  return {
    cases: a.cases + b.cases,
    verified: a.verified + b.verified,
    hits: a.hits + b.hits,
    partials: a.partials + b.partials,
    misses: a.misses + b.misses,
    confidenceSum: a.confidenceSum + b.confidenceSum,
    confidenceCount: a.confidenceCount + b.confidenceCount,
    baselineSum: a.baselineSum + b.baselineSum,
  };
}

/**
 * Hits among verified cases (partials are not hits) against the mean chance
 * baseline of those cases — the binomial with the expected number of hits
 * chance gives them; null when none is verified.
 */
export function hitRateOf(tally: CaseTally): Rate | null {
  if (tally.verified === 0) return null;
  const baseline = Math.round((tally.baselineSum / tally.verified) * 1e6) / 1e6;
  return rateOf(tally.hits, tally.verified, baseline);
}

/** The mean confidence score of the cases that have one, 6 decimals; null when none has. */
export function meanConfidenceOf(tally: CaseTally): number | null {
  if (tally.confidenceCount === 0) return null;
  return Math.round((tally.confidenceSum / tally.confidenceCount) * 1e6) / 1e6;
}

/** Sums `rows` by `key`, in first-seen order. */
export function tallyBy<K>(
  rows: readonly RollupTally[],
  key: (row: RollupTally) => K,
): Map<K, CaseTally> {
  const groups = new Map<K, CaseTally>();
  for (const row of rows) {
    const k = key(row);
    groups.set(k, addTallies(groups.get(k) ?? EMPTY_TALLY, tallyOf(row)));
  }
  return groups;
}
