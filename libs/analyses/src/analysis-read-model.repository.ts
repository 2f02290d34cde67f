import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable } from '#database';

/** Analyses created in the last 24 hours, 7 days and 30 days, of one status. */
export interface AnalysesCreated {
  status: string;
  last24h: number;
  last7d: number;
  last30d: number;
}

/** A finished analysis as performance figures count it. */
export interface FinishedAnalysisFigures {
  id: string;
  engine: string;
  failed: boolean;
  /** Seconds from creation to completion; null unless completed with a completion time. */
  seconds: number | null;
}

/**
 * What other libs read of `analyses` for analytics and dashboards (a read
 * model: counts and figures, never the analyses themselves), each read by a
 * tenant index, on the replica the caller passes.
 */
@Injectable()
export class AnalysisReadModelRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Per status, the analyses created in each window up to `now`: read
   * through the (tenant, created_at) index, which includes the status — the
   * last 30 days, nothing older.
   */
  async createdPerStatus(
    tenant: Tenant,
    now: Date,
    on: Queryable = this.sql,
  ): Promise<AnalysesCreated[]> {
    const rows = await on.rows<{
      status: string;
      last_24h: string;
      last_7d: string;
      last_30d: string;
    }>(
      `
SELECT status,
       count(*) FILTER (WHERE created_at >= $3::timestamptz - interval '24 hours') AS last_24h,
       count(*) FILTER (WHERE created_at >= $3::timestamptz - interval '7 days') AS last_7d,
       count(*) AS last_30d
  FROM analyses
 WHERE organization_id = $1 AND mode = $2 AND created_at >= $3::timestamptz - interval '30 days'
 GROUP BY status`,
      [tenant.organizationId, tenant.mode, now],
    );
    return rows.map((row) => ({
      status: row.status,
      last24h: Number(row.last_24h),
      last7d: Number(row.last_7d),
      last30d: Number(row.last_30d),
    }));
  }

  /** Analyses holding a place against the plan's concurrent limit now, by the status index. */
  async running(tenant: Tenant, on: Queryable = this.sql): Promise<number> {
    const [row] = await on.rows<{ running: string }>(
      `SELECT count(*) AS running FROM analyses WHERE organization_id = $1 AND mode = $2
           AND status IN ('queued', 'processing')`,
      [tenant.organizationId, tenant.mode],
    );
    return Number(row!.running);
  }

  /** The newest `limit` finished (completed or failed) analyses, by the tenant-status-created index. */
  async newestFinished(
    tenant: Tenant,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<FinishedAnalysisFigures[]> {
    return on.rows<FinishedAnalysisFigures>(
      `SELECT id, engine, status = 'failed' AS failed,
              CASE WHEN status = 'completed'
                   THEN extract(epoch FROM completed_at - created_at)::float8 END AS seconds
         FROM analyses
        WHERE organization_id = $1 AND mode = $2 AND status IN ('completed', 'failed')
        ORDER BY created_at DESC LIMIT $3`,
      [tenant.organizationId, tenant.mode, limit],
    );
  }
}
