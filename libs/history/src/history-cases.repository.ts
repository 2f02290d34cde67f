import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable, type Transaction } from '#database';
import type { VerifiedTally } from '#statistics';
import type { HistoryCase, OutcomeInput } from './history-case.js';
import {
  CASE_ROWS,
  VERIFIED_OUTCOME_COLUMNS,
  verifiedOutcomeValues,
  type HistoryCaseRow,
} from './history-rows.js';
import { VERIFIED_RECORD_LIMIT, type VerifiedRecordQuery } from './verified-record-query.js';

/** What PUT …/outcome writes: the outcome's text, then the verified outcome's columns. */
const OUTCOME_COLUMNS = ['outcome', ...VERIFIED_OUTCOME_COLUMNS] as const;

/**
 * A tenant's cases in `history_cases`, one at a time: read, locked and given
 * their verified outcome, and the verified record they add up to. Finished
 * work's cases are written by WorkCasesRepository, imported ones by
 * ImportedCasesRepository; search, similar cases, patterns, the read model
 * of reports and analytics, and seeding have repositories of their own on
 * the table. Every statement names the tenant; a case's generated
 * `document` and `earth` serve search and are never written.
 */
@Injectable()
export class HistoryCasesRepository {
  constructor(private readonly sql: Sql) {}

  async find(tenant: Tenant, id: string, on: Queryable = this.sql): Promise<HistoryCase | null> {
    const [row] = await on.rows<HistoryCaseRow>(
      `SELECT ${CASE_ROWS.selectList} FROM history_cases
        WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? CASE_ROWS.fromRow(row) : null;
  }

  /** The case, its row locked until `tx` ends. */
  async findForUpdate(tx: Transaction, tenant: Tenant, id: string): Promise<HistoryCase | null> {
    const [row] = await tx.rows<HistoryCaseRow>(
      `SELECT ${CASE_ROWS.selectList} FROM history_cases
        WHERE id = $1 AND organization_id = $2 AND mode = $3 FOR UPDATE`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? CASE_ROWS.fromRow(row) : null;
  }

  /** Records (or replaces) the case's verified outcome; the case as it now is. */
  async recordOutcome(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    input: OutcomeInput,
  ): Promise<HistoryCase | null> {
    const [row] = await tx.rows<HistoryCaseRow>(
      `UPDATE history_cases
          SET ${OUTCOME_COLUMNS.map((column, i) => `${column} = $${i + 4}`).join(', ')},
              event_sequence = event_sequence + 1, updated_at = now()
        WHERE id = $1 AND organization_id = $2 AND mode = $3
        RETURNING ${CASE_ROWS.selectList}`,
      [id, tenant.organizationId, tenant.mode, input.outcome, ...verifiedOutcomeValues(input)],
    );
    return row ? CASE_ROWS.fromRow(row) : null;
  }

  /**
   * The tallies of the tenant's verified record (docs/statistics.md,
   * "Verified outcomes"), one statement read through
   * `history_cases_verified_idx` (tenant, type, subtype, verified_at DESC,
   * with the verdict and the baseline included): the newest
   * VERIFIED_RECORD_LIMIT verified completed cases of each subtype asked for
   * (a backward index-only range scan each), the newest of those overall,
   * counted by baseline and verdict — a few rows, however many cases there
   * are. Classified cases count: only their text is hidden from others. (The
   * null branch orders by `subtype, verified_at`: the planner reads
   * `subtype IS NULL` in index order only when told, else it sorts them all.)
   */
  async verifiedTallies(
    tenant: Tenant,
    query: VerifiedRecordQuery,
    on: Queryable = this.sql,
  ): Promise<VerifiedTally[]> {
    const rows = await on.rows<{ p0: number; verdict: string; cases: number }>(
      `
SELECT coalesce(recent.chance_baseline, $6::float8) AS p0, recent.verdict, count(*)::int AS cases
  FROM (
    SELECT newest.verdict, newest.chance_baseline
      FROM (
        SELECT picked.verdict, picked.chance_baseline, picked.verified_at
          FROM unnest($4::text[]) AS kind(subtype)
          CROSS JOIN LATERAL (
            SELECT verdict, chance_baseline, verified_at FROM history_cases
             WHERE organization_id = $1 AND mode = $2 AND type = $3 AND subtype = kind.subtype
               AND verdict IS NOT NULL AND work_status = 'completed'
             ORDER BY verified_at DESC LIMIT $7) picked
        UNION ALL
        (SELECT verdict, chance_baseline, verified_at FROM history_cases
          WHERE $5::boolean AND organization_id = $1 AND mode = $2 AND type = $3 AND subtype IS NULL
            AND verdict IS NOT NULL AND work_status = 'completed'
          ORDER BY subtype, verified_at DESC LIMIT $7)
      ) newest
     ORDER BY newest.verified_at DESC
     LIMIT $7
  ) recent
 GROUP BY 1, 2`,
      [
        tenant.organizationId,
        tenant.mode,
        query.type,
        [...new Set(query.subtypes.filter((subtype) => subtype !== null))],
        query.subtypes.includes(null),
        query.defaultP0,
        VERIFIED_RECORD_LIMIT,
      ],
    );
    return rows.map((row): VerifiedTally => {
      const cases = Number(row.cases);
      return {
        p0: Number(row.p0),
        hits: row.verdict === 'hit' ? cases : 0,
        partials: row.verdict === 'partial' ? cases : 0,
        misses: row.verdict === 'miss' ? cases : 0,
      };
    });
  }
}
