import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable } from '#database';
import type { CaseType } from '../history-case.js';
import type { PatternAggregates } from './history-patterns.js';

/** The counts patterns are looked for in, from `history_cases`; HistoryPatternsService tests them. */
@Injectable()
export class HistoryPatternsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * One statement for every pattern (docs/history.md, "Patterns"): the
   * newest `window` completed, unclassified cases of the filters — read
   * backwards along `history_cases_tenant_date_idx` or
   * `history_cases_tenant_type_date_idx` (both leave classified cases out),
   * so the work is bounded however many cases the organisation has —
   * materialized once, then aggregated four ways inside PostgreSQL: totals,
   * descriptor terms (trimmed, lower-cased, once per case), grid cells of the
   * case's location (the true one once verified) and UTC weekday, hour and
   * month. Node receives a few hundred rows of counts, never the cases.
   * Terms and cells need `minSupport` cases; at most `candidates` of each
   * are returned (those with the most verified cases, then the most cases).
   */
  async patternAggregates(
    tenant: Tenant,
    filters: {
      type: CaseType | null;
      dateFrom: Date | null;
      dateBefore: Date | null;
      window: number;
      gridDegrees: number;
      minSupport: number;
      candidates: number;
    },
    on: Queryable = this.sql,
  ): Promise<PatternAggregates> {
    const [aggregates] = await on.rows<PatternAggregates>(
      `
WITH recent AS MATERIALIZED (
  SELECT id, date, descriptors, verdict, chance_baseline,
         coalesce(true_latitude, latitude) AS lat,
         CASE WHEN true_latitude IS NOT NULL THEN true_longitude ELSE longitude END AS lng
    FROM history_cases
   WHERE organization_id = $1 AND mode = $2 AND NOT classified AND work_status = 'completed'
     AND ($3::text IS NULL OR type = $3)
     AND ($4::timestamptz IS NULL OR date >= $4)
     AND ($5::timestamptz IS NULL OR date < $5)
   ORDER BY date DESC, id DESC
   LIMIT $6
),
terms AS (
  -- Each case's terms made distinct case by case (a few each): one DISTINCT over every
  -- (case, term) pair spilled to disk at the default work_mem (82 ms of 133; this, 62).
  SELECT t.term, count(*)::int AS cases, count(r.verdict)::int AS verified,
         (count(*) FILTER (WHERE r.verdict = 'hit'))::int AS hits
    FROM recent r
    CROSS JOIN LATERAL (SELECT DISTINCT lower(btrim(d)) AS term FROM unnest(r.descriptors) d) t
   WHERE t.term <> ''
   GROUP BY t.term
),
cells AS (
  SELECT floor(lat / $7::float8)::int AS cell_row, floor(lng / $7::float8)::int AS cell_col,
         count(*)::int AS cases, count(verdict)::int AS verified,
         (count(*) FILTER (WHERE verdict = 'hit'))::int AS hits,
         avg(lat) AS latitude, avg(lng) AS longitude
    FROM recent
   WHERE lat IS NOT NULL AND lng IS NOT NULL
   GROUP BY 1, 2
)
SELECT
  (SELECT jsonb_build_object(
            'cases', count(*),
            'verified', count(verdict),
            'hits', count(*) FILTER (WHERE verdict = 'hit'),
            'chance', avg(chance_baseline) FILTER (WHERE verdict IS NOT NULL),
            'located', count(*) FILTER (WHERE lat IS NOT NULL AND lng IS NOT NULL),
            'first', min(date), 'last', max(date))
     FROM recent) AS totals,
  (SELECT jsonb_build_object('distinct', count(*), 'mentions', coalesce(sum(cases), 0)) FROM terms)
    AS vocabulary,
  (SELECT coalesce(jsonb_agg(t), '[]'::jsonb) FROM (
     SELECT term, cases, verified, hits FROM terms WHERE cases >= $8
      ORDER BY verified DESC, cases DESC, term LIMIT $9) t) AS terms,
  (SELECT count(*)::int FROM cells) AS cells_occupied,
  (SELECT coalesce(jsonb_agg(c), '[]'::jsonb) FROM (
     SELECT cell_row, cell_col, cases, verified, hits, latitude, longitude FROM cells WHERE cases >= $8
      ORDER BY verified DESC, cases DESC, cell_row, cell_col LIMIT $9) c) AS cells,
  (SELECT coalesce(jsonb_agg(b), '[]'::jsonb) FROM (
     SELECT extract(isodow FROM date AT TIME ZONE 'UTC')::int AS weekday,
            extract(hour FROM date AT TIME ZONE 'UTC')::int AS hour,
            extract(month FROM date AT TIME ZONE 'UTC')::int AS month,
            count(*)::int AS cases
       FROM recent
      GROUP BY GROUPING SETS ((1), (2), (3))) b) AS times
`,
      [
        tenant.organizationId,
        tenant.mode,
        filters.type,
        filters.dateFrom,
        filters.dateBefore,
        filters.window,
        filters.gridDegrees,
        filters.minSupport,
        filters.candidates,
      ],
    );
    return aggregates!;
  }
}
