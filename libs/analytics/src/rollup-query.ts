import type { Tenant } from '#common';

/** Which cases a rollup read counts. */
export interface CaseFilters {
  type: string | null;
  /** Inclusive. */
  dateFrom: Date | null;
  /** Exclusive. */
  dateBefore: Date | null;
  /** Cases naming this analyst (`analysts`), each once. */
  analystId: string | null;
}

const DAY_MS = 86_400_000;

/**
 * How a date range splits: the whole UTC days, read from the rollups, and
 * the parts of a day at either end a date-time bound cuts (at most two
 * days' cases, read from `history_cases` through its tenant-and-date index).
 */
export interface RangeSplit {
  /** Whole days [fromDay, beforeDay) from the rollups; `none` when no whole day is in the range. */
  rollups: { fromDay: string | null; beforeDay: string | null } | 'none';
  edges: { from: Date; before: Date }[];
}

export function splitRange(dateFrom: Date | null, dateBefore: Date | null): RangeSplit {
  const fullFrom = dateFrom && ceilDay(dateFrom);
  const fullBefore = dateBefore && floorDay(dateBefore);
  if (fullFrom && fullBefore && fullFrom >= fullBefore) {
    return {
      rollups: 'none',
      edges: dateFrom! < dateBefore! ? [{ from: dateFrom!, before: dateBefore! }] : [],
    };
  }
  const edges: RangeSplit['edges'] = [];
  if (dateFrom && fullFrom && dateFrom < fullFrom) edges.push({ from: dateFrom, before: fullFrom });
  if (dateBefore && fullBefore && fullBefore < dateBefore) {
    edges.push({ from: fullBefore, before: dateBefore });
  }
  return {
    rollups: { fromDay: fullFrom && dayOf(fullFrom), beforeDay: fullBefore && dayOf(fullBefore) },
    edges,
  };
}

function floorDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

function ceilDay(at: Date): Date {
  return new Date(Math.ceil(at.getTime() / DAY_MS) * DAY_MS);
}

function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

const COUNTS = `cases, verified, hits, partials, misses, confidence_sum, confidence_count, baseline_sum, baseline_count`;
const ROLLUP_WHERE = `organization_id = $1 AND mode = $2 AND ($3::text IS NULL OR type = $3)
   AND $5::boolean AND ($6::date IS NULL OR day >= $6) AND ($7::date IS NULL OR day < $7)`;

/**
 * One statement: the rollup rows of the whole days (per analyst when one is
 * asked for) plus the cases of the cut days, summed per type, subtype,
 * modality, work status and — for time series — day. A few hundred rows
 * per year of days at most, however many cases there are.
 *
 * Parameters: $1 organisation, $2 mode, $3 type, $4 analyst, $5 whether
 * whole days are read, $6 first day, $7 day after, $8/$9 the edges' bounds
 * (timestamptz[]), $10 the bucket rows are summed per ('day', 'week' or 'month', as
 * date_trunc cuts them: ISO weeks from Monday), or null for no time at all.
 */
export const ROLLUP_SQL = `
SELECT type, subtype, modality,
       CASE WHEN $10::text IS NULL THEN NULL ELSE date_trunc($10::text, day::timestamp)::date::text END AS day,
       work_status,
       sum(cases) AS cases, sum(verified) AS verified, sum(hits) AS hits, sum(partials) AS partials,
       sum(misses) AS misses, sum(confidence_sum) AS confidence_sum,
       sum(confidence_count) AS confidence_count, sum(baseline_sum) AS baseline_sum,
       sum(baseline_count) AS baseline_count
  FROM (
    SELECT type, subtype, modality, day, work_status, ${COUNTS} FROM history_case_rollups
     WHERE $4::text IS NULL AND ${ROLLUP_WHERE}
    UNION ALL
    SELECT type, subtype, modality, day, work_status, ${COUNTS} FROM history_analyst_rollups
     WHERE $4::text IS NOT NULL AND analyst = $4 AND ${ROLLUP_WHERE}
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

export function rollupParameters(
  tenant: Tenant,
  filters: CaseFilters,
  bucket: 'day' | 'week' | 'month' | null,
): unknown[] {
  const split = splitRange(filters.dateFrom, filters.dateBefore);
  return [
    tenant.organizationId,
    tenant.mode,
    filters.type,
    filters.analystId,
    split.rollups !== 'none',
    split.rollups === 'none' ? null : split.rollups.fromDay,
    split.rollups === 'none' ? null : split.rollups.beforeDay,
    split.edges.map((edge) => edge.from),
    split.edges.map((edge) => edge.before),
    bucket,
  ];
}
