import { toPublicId, type Tenant } from '#common';
import { SqlConditions, type Transaction } from '#database';
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

/** Rows a cursor fetches at once: memory stays constant whatever the report's size. */
const BATCH_ROWS = 1000;
/** The chance baseline of a verified case that records none (one in four, a four-way pick). */
export const DEFAULT_CHANCE_BASELINE = 0.25;

/**
 * The tenant's cases in the report's range, newest first — never classified
 * ones (`NOT classified`: they stay out of every export). Served by the
 * (tenant, date) and (tenant, type, date) indexes, both partial on NOT classified.
 */
export function historyCasesQuery(
  tenant: Tenant,
  parameters: ReportParameters,
): { text: string; values: unknown[] } {
  const where = conditions(tenant, parameters);
  return {
    text: `SELECT id, external_id, source_type, type, subtype, work_status, date, target, client,
        analysts, duration_minutes, modality, descriptors, description, latitude, longitude,
        confidence_score, chance_baseline, verdict, outcome, location_found, verified_by, verified_at
      FROM history_cases WHERE ${where.sql} ORDER BY date DESC, id DESC`,
    values: where.parameters,
  };
}

function conditions(tenant: Tenant, parameters: ReportParameters): SqlConditions {
  const where = new SqlConditions();
  where.and(`organization_id = ${where.param(tenant.organizationId)}`);
  where.and(`mode = ${where.param(tenant.mode)}`);
  where.and('NOT classified');
  if (parameters.type !== null) where.and(`type = ${where.param(parameters.type)}`);
  if (parameters.dateFrom !== null) where.and(`date >= ${where.param(parameters.dateFrom)}`);
  if (parameters.dateTo !== null) where.and(`date <= ${where.param(parameters.dateTo)}`);
  return where;
}

/** A cursor over the report's cases (pg-query-stream), BATCH_ROWS at a time. */
export function streamHistoryCases(
  client: Transaction,
  tenant: Tenant,
  parameters: ReportParameters,
): AsyncIterable<Record<string, unknown>> {
  const { text, values } = historyCasesQuery(tenant, parameters);
  return client.cursor(text, values, BATCH_ROWS);
}

/** One case as the report shows it: public id, ISO dates. */
export function historyReportRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of HISTORY_REPORT_COLUMNS) {
    const value = column === 'case_id' ? toPublicId('history', String(row.id)) : row[column];
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
  client: Transaction,
  tenant: Tenant,
  parameters: ReportParameters,
): Promise<HistorySummary> {
  const where = conditions(tenant, parameters);
  const { rows } = await client.query<{
    type: string;
    cases: number;
    verified: number;
    hits: number;
    partials: number;
    misses: number;
    baseline: number | null;
  }>(
    `SELECT type, count(*)::int AS cases, count(verdict)::int AS verified,
        count(*) FILTER (WHERE verdict = 'hit')::int AS hits,
        count(*) FILTER (WHERE verdict = 'partial')::int AS partials,
        count(*) FILTER (WHERE verdict = 'miss')::int AS misses,
        avg(coalesce(chance_baseline, ${DEFAULT_CHANCE_BASELINE})) FILTER (WHERE verdict IS NOT NULL) AS baseline
      FROM history_cases WHERE ${where.sql} GROUP BY type ORDER BY type`,
    where.parameters,
  );
  const monthly = conditions(tenant, parameters);
  const { rows: months } = await client.query<{
    month: string;
    cases: number;
    verified: number;
    hits: number;
    baseline: number | null;
  }>(
    `SELECT to_char(date_trunc('month', date AT TIME ZONE 'UTC'), 'YYYY-MM') AS month,
        count(*)::int AS cases, count(verdict)::int AS verified,
        count(*) FILTER (WHERE verdict = 'hit')::int AS hits,
        avg(coalesce(chance_baseline, ${DEFAULT_CHANCE_BASELINE})) FILTER (WHERE verdict IS NOT NULL) AS baseline
      FROM history_cases WHERE ${monthly.sql} GROUP BY 1 ORDER BY 1`,
    monthly.parameters,
  );
  const rate = (hits: number, n: number, baseline: number | null): Rate | null =>
    n === 0 ? null : rateOf(hits, n, round(baseline ?? DEFAULT_CHANCE_BASELINE));
  const verified = rows.reduce((sum, row) => sum + row.verified, 0);
  const weighted = rows.reduce((sum, row) => sum + (row.baseline ?? 0) * row.verified, 0);
  return {
    cases: rows.reduce((sum, row) => sum + row.cases, 0),
    byType: rows.map((row) => ({
      type: row.type,
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
      month: row.month,
      cases: row.cases,
      hitRate: rate(row.hits, row.verified, row.baseline),
    })),
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
