import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable } from '#database';
import { rollupTallyOf, type RollupRow } from './history-case-rollups.repository.js';
import type { RollupTally } from './rollups/rollup-range.js';

/**
 * The `history_analyst_rollups` table: the rollups per analyst a case names
 * (each distinct analyst once), kept by the same triggers as
 * `history_case_rollups` and read with them for one analyst's figures.
 */
@Injectable()
export class HistoryAnalystRollupsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Every analyst's all-time counts (the `all` grain, by its partial index),
   * per type and subtype — what their default baselines need.
   */
  async allTimeByAnalyst(
    tenant: Tenant,
    on: Queryable = this.sql,
  ): Promise<(RollupTally & { analyst: string })[]> {
    const rows = await on.rows<RollupRow & { analyst: string }>(
      `
SELECT analyst, type, subtype, '' AS modality, NULL AS day, '' AS work_status,
       sum(cases) AS cases, sum(verified) AS verified, sum(hits) AS hits, sum(partials) AS partials,
       sum(misses) AS misses, sum(confidence_sum) AS confidence_sum,
       sum(confidence_count) AS confidence_count, sum(baseline_sum) AS baseline_sum,
       sum(baseline_count) AS baseline_count
  FROM history_analyst_rollups
 WHERE organization_id = $1 AND mode = $2 AND grain = 'all'
 GROUP BY analyst, type, subtype`,
      [tenant.organizationId, tenant.mode],
    );
    return rows.map((row) => ({ analyst: row.analyst, ...rollupTallyOf(row) }));
  }
}
