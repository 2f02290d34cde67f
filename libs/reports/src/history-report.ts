import { toPublicId, type Tenant } from '#common';
import type { Transaction } from '#database';
import type { HistoryReadModelRepository, ReportedCase } from '#history';
import { rateOf, type Rate } from '#statistics';
import type { ReportParameters } from './report.js';

/** The columns of one case in a history report, in the CSV's order. */
export const HISTORY_REPORT_COLUMNS = [
  'case_id',
  'external_id',
  'source_type',
  'type',
  'subtype',
  'work_status',
  'date',
  'target',
  'client',
  'analysts',
  'duration_minutes',
  'modality',
  'descriptors',
  'description',
  'latitude',
  'longitude',
  'confidence_score',
  'chance_baseline',
  'verdict',
  'outcome',
  'location_found',
  'verified_by',
  'verified_at',
] as const;

/** The case's field each column shows (`case_id`: its public id). */
const COLUMN_FIELDS = {
  case_id: 'id',
  external_id: 'externalId',
  source_type: 'sourceType',
  type: 'type',
  subtype: 'subtype',
  work_status: 'workStatus',
  date: 'date',
  target: 'target',
  client: 'client',
  analysts: 'analysts',
  duration_minutes: 'durationMinutes',
  modality: 'modality',
  descriptors: 'descriptors',
  description: 'description',
  latitude: 'latitude',
  longitude: 'longitude',
  confidence_score: 'confidenceScore',
  chance_baseline: 'chanceBaseline',
  verdict: 'verdict',
  outcome: 'outcome',
  location_found: 'locationFound',
  verified_by: 'verifiedBy',
  verified_at: 'verifiedAt',
} as const satisfies Record<(typeof HISTORY_REPORT_COLUMNS)[number], keyof ReportedCase>;

/** Rows a cursor fetches at once: memory stays constant whatever the report's size. */
const BATCH_ROWS = 1000;
/** The chance baseline of a verified case that records none (one in four, a four-way pick). */
export const DEFAULT_CHANCE_BASELINE = 0.25;

/**
 * The tenant's cases in the report's range, newest first, read through a
 * cursor on the build's snapshot BATCH_ROWS at a time — never classified
 * ones: they stay out of every export.
 */
export function streamHistoryCases(
  cases: HistoryReadModelRepository,
  snapshot: Transaction,
  tenant: Tenant,
  parameters: ReportParameters,
): AsyncIterable<ReportedCase> {
  return cases.reportedCases(tenant, parameters, BATCH_ROWS, snapshot);
}

/** One case as the report shows it, in HISTORY_REPORT_COLUMNS' order: public id, ISO dates. */
export function historyReportRow(record: ReportedCase): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of HISTORY_REPORT_COLUMNS) {
    const value =
      column === 'case_id' ? toPublicId('history', record.id) : record[COLUMN_FIELDS[column]];
    out[column] = value instanceof Date ? value.toISOString() : (value ?? null);
  }
  return out;
}

export interface HistorySummary {
  cases: number;
  byType: {
    type: string;
    cases: number;
    verified: number;
    hits: number;
    partials: number;
    misses: number;
    hitRate: Rate | null;
  }[];
  hitRate: Rate | null;
  /** Per UTC month with cases, oldest first: cases, and the hit rate of its verified ones. */
  months: { month: string; cases: number; hitRate: Rate | null }[];
}

/** Counts by type and hit rates over verified cases (verdict = 'hit' among those with any verdict). */
export async function historySummary(
  cases: HistoryReadModelRepository,
  snapshot: Transaction,
  tenant: Tenant,
  parameters: ReportParameters,
): Promise<HistorySummary> {
  const rows = await cases.reportTallies(
    tenant,
    parameters,
    'type',
    DEFAULT_CHANCE_BASELINE,
    snapshot,
  );
  const months = await cases.reportTallies(
    tenant,
    parameters,
    'month',
    DEFAULT_CHANCE_BASELINE,
    snapshot,
  );
  const rate = (hits: number, n: number, baseline: number | null): Rate | null =>
    n === 0 ? null : rateOf(hits, n, round(baseline ?? DEFAULT_CHANCE_BASELINE));
  const verified = rows.reduce((sum, row) => sum + row.verified, 0);
  const weighted = rows.reduce((sum, row) => sum + (row.baseline ?? 0) * row.verified, 0);
  return {
    cases: rows.reduce((sum, row) => sum + row.cases, 0),
    byType: rows.map((row) => ({
      type: row.group,
      cases: row.cases,
      verified: row.verified,
      hits: row.hits,
      partials: row.partials,
      misses: row.misses,
      hitRate: rate(row.hits, row.verified, row.baseline),
    })),
    hitRate: rate(
      rows.reduce((sum, row) => sum + row.hits, 0),
      verified,
      verified === 0 ? null : weighted / verified,
    ),
    months: months.map((row) => ({
      month: row.group,
      cases: row.cases,
      hitRate: rate(row.hits, row.verified, row.baseline),
    })),
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
