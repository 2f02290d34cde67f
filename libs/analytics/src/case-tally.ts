import { rateOf, type Rate } from '#statistics';
import { defaultBaseline } from './case-baselines.js';

/** What the rollups count for a group of cases (one row of the rollup query, or a sum of them). */
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

/** A row as the rollup query returns it (bigint and numeric come back as strings). */
export interface TallyRow {
  type: string;
  subtype: string;
  modality: string;
  day: string | null;
  work_status: string;
  cases: string;
  verified: string;
  hits: string;
  partials: string;
  misses: string;
  confidence_sum: string;
  confidence_count: string;
  baseline_sum: string;
  baseline_count: string;
}

/** A row's tally; verified cases without a baseline of their own take their kind's default. */
export function tallyOf(row: TallyRow): CaseTally {
  const verified = Number(row.verified);
  const withoutBaseline = verified - Number(row.baseline_count);
  return {
    cases: Number(row.cases),
    verified,
    hits: Number(row.hits),
    partials: Number(row.partials),
    misses: Number(row.misses),
    confidenceSum: Number(row.confidence_sum),
    confidenceCount: Number(row.confidence_count),
    baselineSum:
      Number(row.baseline_sum) +
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
  rows: readonly TallyRow[],
  key: (row: TallyRow) => K,
): Map<K, CaseTally> {
  const groups = new Map<K, CaseTally>();
  for (const row of rows) {
    const k = key(row);
    groups.set(k, addTallies(groups.get(k) ?? EMPTY_TALLY, tallyOf(row)));
  }
  return groups;
}
