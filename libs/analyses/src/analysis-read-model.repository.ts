import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable, createdPerStatus, type CreatedPerStatus } from '#database';

/** Analyses created in the last 24 hours, 7 days and 30 days, of one status. */
export type AnalysesCreated = CreatedPerStatus;

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
  createdPerStatus(
    tenant: Tenant,
    now: Date,
    on: Queryable = this.sql,
  ): Promise<AnalysesCreated[]> {
    return createdPerStatus(on, 'analyses', tenant, now);
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
