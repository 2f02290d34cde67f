import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, SqlConditions, type Connection, type Queryable } from '#database';
import type { HistoryCase } from './history-case.js';

/** The verified outcome of a piece of work's case, as analytics counts it. */
export interface SourceOutcome {
  sourceId: string;
  classified: boolean;
  verdict: HistoryCase['verdict'];
  chanceBaseline: number | null;
}

/** One case as a history report lists it: the work's fields and its verified outcome. */
export type ReportedCase = Pick<
  HistoryCase,
  | 'id'
  | 'externalId'
  | 'sourceType'
  | 'type'
  | 'subtype'
  | 'workStatus'
  | 'date'
  | 'target'
  | 'client'
  | 'analysts'
  | 'durationMinutes'
  | 'modality'
  | 'descriptors'
  | 'description'
  | 'latitude'
  | 'longitude'
  | 'confidenceScore'
  | 'chanceBaseline'
  | 'verdict'
  | 'outcome'
  | 'locationFound'
  | 'verifiedBy'
  | 'verifiedAt'
>;

/** Which cases a report covers: its type and ISO dates (both inclusive), or null for open. */
export interface ReportRange {
  type: string | null;
  dateFrom: string | null;
  dateTo: string | null;
}

/** Counts of a report's cases per type, or per UTC month (`group`: the type or `YYYY-MM`). */
export interface ReportTally {
  group: string;
  cases: number;
  verified: number;
  hits: number;
  partials: number;
  misses: number;
  /** Mean chance baseline of the verified cases (the default where a case records none); null when none. */
  baseline: number | null;
}

/** Finished work of one UTC day and kind (the case's source type). */
export interface FinishedDay {
  day: string;
  kind: string;
  finished: number;
  completed: number;
  failed: number;
}

/**
 * What other libs read of `history_cases` (a read model): the outcomes of
 * the pieces of work analytics counts, and the cases, tallies and finished
 * work per day that reports show. Every statement names the tenant.
 */
@Injectable()
export class HistoryReadModelRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * The cases of these pieces of work that analytics must know of: the
   * classified ones (left out with their work) and the verified ones (their
   * verdict and baseline), by the unique index on `source_id`.
   */
  async sourceOutcomes(
    tenant: Tenant,
    sourceIds: readonly string[],
    on: Queryable = this.sql,
  ): Promise<SourceOutcome[]> {
    if (sourceIds.length === 0) return [];
    const rows = await on.rows<{
      source_id: string;
      classified: boolean;
      verdict: HistoryCase['verdict'];
      chance_baseline: number | null;
    }>(
      `SELECT source_id, classified, verdict, chance_baseline FROM history_cases
        WHERE source_id = ANY($3::uuid[]) AND organization_id = $1 AND mode = $2
          AND (classified OR verdict IS NOT NULL)`,
      [tenant.organizationId, tenant.mode, sourceIds],
    );
    return rows.map((row) => ({
      sourceId: row.source_id,
      classified: row.classified,
      verdict: row.verdict,
      chanceBaseline: row.chance_baseline,
    }));
  }

  /**
   * The tenant's cases in the report's range, newest first, read through a
   * cursor `batchRows` at a time (memory stays constant whatever the
   * report's size) — never classified ones (`NOT classified`: they stay out
   * of every export). Served by the (tenant, date) and (tenant, type, date)
   * indexes, both partial on NOT classified.
   */
  async *reportedCases(
    tenant: Tenant,
    range: ReportRange,
    batchRows: number,
    on: Connection,
  ): AsyncGenerator<ReportedCase> {
    const where = reportConditions(tenant, range);
    const rows = on.cursor(
      `SELECT id, external_id, source_type, type, subtype, work_status, date, target, client,
        analysts, duration_minutes, modality, descriptors, description, latitude, longitude,
        confidence_score, chance_baseline, verdict, outcome, location_found, verified_by, verified_at
      FROM history_cases WHERE ${where.sql} ORDER BY date DESC, id DESC`,
      where.parameters,
      batchRows,
    );
    for await (const row of rows as AsyncIterable<Record<string, unknown>>) {
      yield reportedCaseOf(row);
    }
  }

  /**
   * The report's cases counted per type (`per: 'type'`) or per UTC month
   * (`per: 'month'`, `YYYY-MM`), in order, with the mean chance baseline of
   * the verified ones (`defaultBaseline` where a case records none).
   */
  async reportTallies(
    tenant: Tenant,
    range: ReportRange,
    per: 'type' | 'month',
    defaultBaseline: number,
    on: Queryable = this.sql,
  ): Promise<ReportTally[]> {
    const where = reportConditions(tenant, range);
    const baseline = where.param(defaultBaseline);
    const group =
      per === 'type' ? 'type' : `to_char(date_trunc('month', date AT TIME ZONE 'UTC'), 'YYYY-MM')`;
    const rows = await on.rows<{
      grouped: string;
      cases: number;
      verified: number;
      hits: number;
      partials: number;
      misses: number;
      baseline: number | null;
    }>(
      `SELECT ${group} AS grouped, count(*)::int AS cases, count(verdict)::int AS verified,
        count(*) FILTER (WHERE verdict = 'hit')::int AS hits,
        count(*) FILTER (WHERE verdict = 'partial')::int AS partials,
        count(*) FILTER (WHERE verdict = 'miss')::int AS misses,
        avg(coalesce(chance_baseline, ${baseline}::float8)) FILTER (WHERE verdict IS NOT NULL) AS baseline
      FROM history_cases WHERE ${where.sql} GROUP BY 1 ORDER BY 1`,
      where.parameters,
    );
    return rows.map((row) => ({
      group: row.grouped,
      cases: row.cases,
      verified: row.verified,
      hits: row.hits,
      partials: row.partials,
      misses: row.misses,
      baseline: row.baseline,
    }));
  }

  /**
   * Work finished per UTC day and kind (the case's source: session,
   * analysis, dowsing query, import), completed and failed — every finished
   * piece of work is a case; classified ones are not counted.
   */
  async finishedPerDay(
    tenant: Tenant,
    range: ReportRange,
    on: Queryable = this.sql,
  ): Promise<FinishedDay[]> {
    const where = reportConditions(tenant, range);
    return on.rows<FinishedDay>(
      `SELECT to_char(date AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, source_type AS kind,
        count(*)::int AS finished,
        count(*) FILTER (WHERE work_status = 'completed')::int AS completed,
        count(*) FILTER (WHERE work_status = 'failed')::int AS failed
      FROM history_cases WHERE ${where.sql} GROUP BY 1, 2 ORDER BY 1, 2`,
      where.parameters,
    );
  }
}

function reportConditions(tenant: Tenant, range: ReportRange): SqlConditions {
  const where = new SqlConditions();
  where.and(`organization_id = ${where.param(tenant.organizationId)}`);
  where.and(`mode = ${where.param(tenant.mode)}`);
  where.and('NOT classified');
  if (range.type !== null) where.and(`type = ${where.param(range.type)}`);
  if (range.dateFrom !== null) where.and(`date >= ${where.param(range.dateFrom)}`);
  if (range.dateTo !== null) where.and(`date <= ${where.param(range.dateTo)}`);
  return where;
}

function reportedCaseOf(row: Record<string, unknown>): ReportedCase {
  return {
    id: row.id as string,
    externalId: row.external_id as string | null,
    sourceType: row.source_type as ReportedCase['sourceType'],
    type: row.type as ReportedCase['type'],
    subtype: row.subtype as string | null,
    workStatus: row.work_status as ReportedCase['workStatus'],
    date: row.date as Date,
    target: row.target as string,
    client: row.client as string | null,
    analysts: row.analysts as string[],
    durationMinutes: row.duration_minutes as number | null,
    modality: row.modality as string | null,
    descriptors: row.descriptors as string[],
    description: row.description as string | null,
    latitude: row.latitude as number | null,
    longitude: row.longitude as number | null,
    confidenceScore: row.confidence_score as number | null,
    chanceBaseline: row.chance_baseline as number | null,
    verdict: row.verdict as ReportedCase['verdict'],
    outcome: row.outcome as string | null,
    locationFound: row.location_found as boolean | null,
    verifiedBy: row.verified_by as string | null,
    verifiedAt: row.verified_at as Date | null,
  };
}
