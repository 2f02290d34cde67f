import type { Tenant } from '#common';
import { ANALYSIS_DEFAULT_BASELINE, SESSION_DEFAULT_BASELINE } from '#engines';

/**
 * How much recent work performance reads per kind: the newest finished
 * pieces (completed or failed) of each kind, by the tenant-status-created
 * indexes — a bounded read however much work a tenant has done.
 */
export const PERFORMANCE_WORK_LIMIT = 2_000;

export const WORK_KINDS_MEASURED = ['session', 'analysis', 'dowsing_query'] as const;
export type MeasuredKind = (typeof WORK_KINDS_MEASURED)[number];

export interface EngineRow {
  kind: MeasuredKind;
  engine: string;
  work: string;
  failed: string;
  seconds: number[] | null;
  accuracy: number | null;
  reliability: number | null;
  scored: string;
  verified: string;
  hits: string;
  baseline_sum: number | null;
}

/**
 * One kind's newest finished work, joined to its case (the verified
 * outcome, if any): per engine, counts, processing time (completed_at −
 * created_at) percentiles of the completed ones, the mean SAIC accuracy and
 * reliability where the work records them (sessions'
 * `results.validation_metrics`), and hits among the verified cases. Work
 * whose case is classified is left out, as classified cases are everywhere
 * in analytics.
 */
function kindSql(kind: MeasuredKind, table: string, scores: boolean, baseline: string): string {
  const metric = (name: string) =>
    scores ? `avg((w.results->'validation_metrics'->>'${name}')::float8)` : 'NULL::float8';
  return `
SELECT '${kind}' AS kind, w.engine, count(*) AS work,
       count(*) FILTER (WHERE w.status = 'failed') AS failed,
       percentile_cont(ARRAY[0.5, 0.9, 0.99]::float8[]) WITHIN GROUP
         (ORDER BY extract(epoch FROM w.completed_at - w.created_at))
         FILTER (WHERE w.status = 'completed' AND w.completed_at IS NOT NULL) AS seconds,
       ${metric('accuracy')} AS accuracy, ${metric('reliability')} AS reliability,
       ${scores ? `count(w.results->'validation_metrics')` : '0'} AS scored,
       count(c.verdict) AS verified, count(*) FILTER (WHERE c.verdict = 'hit') AS hits,
       sum(coalesce(c.chance_baseline, ${baseline})) FILTER (WHERE c.verdict IS NOT NULL) AS baseline_sum
  FROM (SELECT * FROM ${table}
         WHERE organization_id = $1 AND mode = $2 AND status IN ('completed', 'failed')
         ORDER BY created_at DESC LIMIT $3) w
  LEFT JOIN history_cases c ON c.source_id = w.id
 WHERE c.classified IS NOT TRUE
 GROUP BY w.engine`;
}

/**
 * Parameters: $1 organisation, $2 mode, $3 PERFORMANCE_WORK_LIMIT. Dowsing
 * cases record their own baseline; the session's p0 stands in otherwise.
 */
export const ENGINE_PERFORMANCE_SQL = [
  kindSql('session', 'sessions', true, String(SESSION_DEFAULT_BASELINE)),
  kindSql('analysis', 'analyses', false, String(ANALYSIS_DEFAULT_BASELINE)),
  kindSql('dowsing_query', 'dowsing_queries', false, String(SESSION_DEFAULT_BASELINE)),
].join('\nUNION ALL');

export function enginePerformanceParameters(tenant: Tenant): unknown[] {
  return [tenant.organizationId, tenant.mode, PERFORMANCE_WORK_LIMIT];
}

/** Per analyst (analysts' all-time rollups), summed with their type and subtype for the default baselines. */
export const ANALYST_PERFORMANCE_SQL = `
SELECT analyst, type, subtype, '' AS modality, NULL AS day, '' AS work_status,
       sum(cases) AS cases, sum(verified) AS verified, sum(hits) AS hits, sum(partials) AS partials,
       sum(misses) AS misses, sum(confidence_sum) AS confidence_sum,
       sum(confidence_count) AS confidence_count, sum(baseline_sum) AS baseline_sum,
       sum(baseline_count) AS baseline_count
  FROM history_analyst_rollups
 WHERE organization_id = $1 AND mode = $2 AND grain = 'all'
 GROUP BY analyst, type, subtype`;
