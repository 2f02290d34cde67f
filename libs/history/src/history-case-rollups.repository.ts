import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable } from '#database';
import { splitRange, type RollupFilters, type RollupTally } from './rollups/rollup-range.js';

/** A rollup read's row: bigint and numeric sums come back as strings. */
export interface RollupRow {
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

/** A rollup row as the domain counts it. */
export function rollupTallyOf(row: RollupRow): RollupTally {
  return {
    type: row.type,
    subtype: row.subtype,
    modality: row.modality,
    day: row.day,
    workStatus: row.work_status,
    cases: Number(row.cases),
    verified: Number(row.verified),
    hits: Number(row.hits),
    partials: Number(row.partials),
    misses: Number(row.misses),
    confidenceSum: Number(row.confidence_sum),
    confidenceCount: Number(row.confidence_count),
    baselineSum: Number(row.baseline_sum),
    baselineCount: Number(row.baseline_count),
  };
}

const COUNTS = `cases, verified, hits, partials, misses, confidence_sum, confidence_count, baseline_sum, baseline_count`;
/** One grain's rollup rows in one segment (`seg`), of the type asked for. */
const SEGMENT_WHERE = `r.organization_id = $1 AND r.mode = $2 AND r.grain = seg.grain
   AND r.period >= seg.lo AND r.period < seg.hi AND ($3::text IS NULL OR r.type = $3)`;

/**
 * One statement: the rollup rows of the range's segments (per analyst when
 * one is asked for) plus the cases of the cut days, summed per type,
 * subtype, modality, work status and — for time series — bucket. A few
 * thousand rows at most (a weekly series over ten years), however many
 * cases there are.
 *
 * Parameters: $1 organisation, $2 mode, $3 type, $4 analyst, $5/$6/$7 the
 * segments' grains (text[]) and first and after-last periods (date[];
 * '-infinity' and 'infinity' where unbounded, so both bounds are a range
 * condition of the primary key), $8/$9 the edges' bounds (timestamptz[]), $10 the bucket rows
 * are summed per ('day', 'week' or 'month', as date_trunc cuts them: ISO
 * weeks from Monday; then per type and subtype only, modality and work
 * status left ''), or null for no time at all.
 */
const ROLLUP_SQL = `
SELECT type, subtype,
       -- A series needs per bucket only what the type and subtype's default baselines need.
       CASE WHEN $10::text IS NULL THEN modality ELSE '' END AS modality,
       CASE WHEN $10::text IS NULL THEN NULL ELSE date_trunc($10::text, day::timestamp)::date::text END AS day,
       CASE WHEN $10::text IS NULL THEN work_status ELSE '' END AS work_status,
       sum(cases) AS cases, sum(verified) AS verified, sum(hits) AS hits, sum(partials) AS partials,
       sum(misses) AS misses, sum(confidence_sum) AS confidence_sum,
       sum(confidence_count) AS confidence_count, sum(baseline_sum) AS baseline_sum,
       sum(baseline_count) AS baseline_count
  FROM (
    -- Per segment, a range read of the rollups' primary key (OFFSET 0 keeps it one: joined
    -- flat, the planner hashed the segments against a scan of every row of the tenant).
    SELECT r.*
      FROM unnest($5::text[], $6::date[], $7::date[]) AS seg(grain, lo, hi)
      CROSS JOIN LATERAL (
        SELECT r.type, r.subtype, r.modality, r.period AS day, r.work_status, ${COUNTS}
          FROM history_case_rollups r WHERE $4::text IS NULL AND ${SEGMENT_WHERE} OFFSET 0) r
    UNION ALL
    SELECT r.*
      FROM unnest($5::text[], $6::date[], $7::date[]) AS seg(grain, lo, hi)
      CROSS JOIN LATERAL (
        SELECT r.type, r.subtype, r.modality, r.period AS day, r.work_status, ${COUNTS}
          FROM history_analyst_rollups r
         WHERE $4::text IS NOT NULL AND r.analyst = $4 AND ${SEGMENT_WHERE} OFFSET 0) r
    UNION ALL
    SELECT c.*
      FROM unnest($8::timestamptz[], $9::timestamptz[]) AS edge(lo, hi)
      CROSS JOIN LATERAL (
        -- OFFSET 0 keeps this a per-edge range read of the tenant-and-date index: flattened, the
        -- planner joined the edges to a parallel scan of every case (measured 600 ms at a million).
        SELECT c.type, coalesce(c.subtype, '') AS subtype, coalesce(c.modality, '') AS modality,
               (c.date AT TIME ZONE 'UTC')::date AS day, c.work_status, 1 AS cases,
               (c.verdict IS NOT NULL)::int AS verified, (c.verdict IS NOT DISTINCT FROM 'hit')::int AS hits,
               (c.verdict IS NOT DISTINCT FROM 'partial')::int AS partials,
               (c.verdict IS NOT DISTINCT FROM 'miss')::int AS misses,
               coalesce(c.confidence_score, 0)::numeric AS confidence_sum,
               (c.confidence_score IS NOT NULL)::int AS confidence_count,
               CASE WHEN c.verdict IS NULL THEN 0 ELSE coalesce(c.chance_baseline, 0) END::numeric AS baseline_sum,
               (c.verdict IS NOT NULL AND c.chance_baseline IS NOT NULL)::int AS baseline_count
          FROM history_cases c
         WHERE c.organization_id = $1 AND c.mode = $2 AND NOT c.classified
           AND c.date >= edge.lo AND c.date < edge.hi
           AND ($3::text IS NULL OR c.type = $3) AND ($4::text IS NULL OR $4 = ANY(c.analysts))
        OFFSET 0) c
  ) counted
 GROUP BY 1, 2, 3, 4, 5`;

/**
 * The `history_case_rollups` table: a tenant's unclassified cases counted
 * per grain and period, kept by the triggers of migration 1764097200000 in
 * the statement that writes the cases (never written here). Reads take the
 * coarsest grain that tiles their range (`splitRange`) and the cut parts of
 * a day from the cases; a read for one analyst takes `history_analyst_rollups`.
 */
@Injectable()
export class HistoryCaseRollupsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * The tenant's unclassified cases matching `filters`, counted per type,
   * subtype, modality and work status — or, per `bucket` of a series, per
   * type and subtype of each bucket.
   */
  async tallies(
    tenant: Tenant,
    filters: RollupFilters,
    bucket: 'day' | 'week' | 'month' | null,
    on: Queryable = this.sql,
  ): Promise<RollupTally[]> {
    const split = splitRange(filters.dateFrom, filters.dateBefore, bucket);
    const rows = await on.rows<RollupRow>(ROLLUP_SQL, [
      tenant.organizationId,
      tenant.mode,
      filters.type,
      filters.analystId,
      split.segments.map((segment) => segment.grain),
      split.segments.map((segment) => segment.from ?? '-infinity'),
      split.segments.map((segment) => segment.before ?? 'infinity'),
      split.edges.map((edge) => edge.from),
      split.edges.map((edge) => edge.before),
      bucket,
    ]);
    return rows.map(rollupTallyOf);
  }

  /** Refreshes both rollup tables' statistics and visibility maps after a bulk load (seeding). */
  async vacuumAcrossTenants(): Promise<void> {
    await this.sql.query('VACUUM ANALYZE history_case_rollups, history_analyst_rollups');
  }
}
