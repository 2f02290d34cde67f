import type { RollupTally } from '#history';
import type { Rate } from '#statistics';
import { hitRateOf, tallyBy, EMPTY_TALLY, addTallies, type CaseTally } from './case-tally.js';

export const CASE_OUTCOMES = ['hit', 'partial', 'miss', 'unverified'] as const;
export type CaseOutcome = (typeof CASE_OUTCOMES)[number];

export interface GroupSummary {
  cases: number;
  outcomes: Record<CaseOutcome, number>;
  hitRate: Rate | null;
}

export interface AnalyticsSummary {
  total: GroupSummary;
  byType: ({ type: string } & GroupSummary)[];
  byModality: ({ modality: string | null } & GroupSummary)[];
  byWorkStatus: { workStatus: string; cases: number }[];
}

/** Counts and hit rates of the rollup tallies (without days), in a stable order. */
export function summarizeCases(rows: readonly RollupTally[]): AnalyticsSummary {
  const byType = [...tallyBy(rows, (row) => row.type)]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, tally]) => ({ type, ...groupOf(tally) }));
  // By name, the cases without a modality ('' in the rollups) last.
  const byModality = [...tallyBy(rows, (row) => row.modality)]
    .sort(([a], [b]) => (a === '' ? 1 : 0) - (b === '' ? 1 : 0) || a.localeCompare(b))
    .map(([modality, tally]) => ({
      modality: modality === '' ? null : modality,
      ...groupOf(tally),
    }));
  const byWorkStatus = [...tallyBy(rows, (row) => row.workStatus)]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([workStatus, tally]) => ({ workStatus, cases: tally.cases }));
  const total = [...tallyBy(rows, () => 0).values()].reduce(addTallies, EMPTY_TALLY);
  return { total: groupOf(total), byType, byModality, byWorkStatus };
}

function groupOf(tally: CaseTally): GroupSummary {
  return {
    cases: tally.cases,
    outcomes: {
      hit: tally.hits,
      partial: tally.partials,
      miss: tally.misses,
      unverified: tally.cases - tally.verified,
    },
    hitRate: hitRateOf(tally),
  };
}
