import type { Tenant } from '#common';
import { verifiedRecord, type VerifiedRecord, type VerifiedTally } from '#statistics';
import type { CaseType, Verdict } from './history-case.js';

/**
 * The most recent verified cases a record counts: enough for any test
 * against chance, and a bound on the work per request however many cases
 * an organisation has verified (docs/statistics.md, "Verified outcomes").
 */
export const VERIFIED_RECORD_LIMIT = 10_000;

/** Which cases a verified record counts. */
export interface VerifiedRecordQuery {
  type: CaseType;
  /**
   * Cases of these subtypes only (a dowsing query_type, an analysis_type, a
   * session's modalities); `null` in the list counts the cases that have none.
   */
  subtypes: readonly (string | null)[];
  /** The chance baseline of a case that records none (imported cases, sessions): the work kind's p0. */
  defaultP0: number;
}

/**
 * One statement, read through `history_cases_verified_idx` (tenant, type,
 * subtype, verified_at DESC, with the verdict and the baseline included):
 * the newest VERIFIED_RECORD_LIMIT verified completed cases of each subtype
 * asked for (a backward index-only range scan each), the newest of those
 * overall, counted by baseline and verdict — a few rows, however many cases
 * there are. Classified cases count: only their text is hidden from others.
 * (The null branch orders by `subtype, verified_at`: the planner reads
 * `subtype IS NULL` in index order only when told, else it sorts them all.)
 *
 * Parameters: $1 organisation, $2 mode, $3 type, $4 the subtypes (text[]),
 * $5 whether cases without a subtype count, $6 the default baseline, $7 the limit.
 */
export const VERIFIED_RECORD_SQL = `
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
 GROUP BY 1, 2`;

export interface VerifiedRecordRow {
  p0: number;
  verdict: Verdict;
  cases: number;
}

/** The parameters of VERIFIED_RECORD_SQL. */
export function verifiedRecordParameters(tenant: Tenant, query: VerifiedRecordQuery): unknown[] {
  return [
    tenant.organizationId,
    tenant.mode,
    query.type,
    [...new Set(query.subtypes.filter((subtype) => subtype !== null))],
    query.subtypes.includes(null),
    query.defaultP0,
    VERIFIED_RECORD_LIMIT,
  ];
}

/** The record from the statement's rows (one per baseline and verdict). */
export function verifiedRecordFromRows(rows: readonly VerifiedRecordRow[]): VerifiedRecord {
  return verifiedRecord(
    rows.map((row): VerifiedTally => {
      const cases = Number(row.cases);
      return {
        p0: Number(row.p0),
        hits: row.verdict === 'hit' ? cases : 0,
        partials: row.verdict === 'partial' ? cases : 0,
        misses: row.verdict === 'miss' ? cases : 0,
      };
    }),
  );
}
