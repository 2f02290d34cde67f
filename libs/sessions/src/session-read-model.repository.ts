import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable, createdPerStatus, type CreatedPerStatus } from '#database';

/** Sessions created in the last 24 hours, 7 days and 30 days, of one status. */
export type SessionsCreated = CreatedPerStatus;

/** A finished session as performance figures count it. */
export interface FinishedSessionFigures {
  id: string;
  engine: string;
  failed: boolean;
  /** Seconds from creation to completion; null unless completed with a completion time. */
  seconds: number | null;
  /** SAIC accuracy and reliability (`results.validation_metrics`), where recorded. */
  accuracy: number | null;
  reliability: number | null;
  /** Whether the session records validation metrics at all. */
  scored: boolean;
}

/**
 * What other libs read of `sessions` for analytics and dashboards (a read
 * model: counts and figures, never the sessions themselves), each read by a
 * tenant index, on the replica the caller passes.
 */
@Injectable()
export class SessionReadModelRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Per status, the sessions created in each window up to `now`: read
   * through the (tenant, created_at) index, which includes the status — the
   * last 30 days, nothing older.
   */
  createdPerStatus(
    tenant: Tenant,
    now: Date,
    on: Queryable = this.sql,
  ): Promise<SessionsCreated[]> {
    return createdPerStatus(on, 'sessions', tenant, now);
  }

  /** Sessions holding a place against the plan's concurrent limit now, by the status index. */
  async running(tenant: Tenant, on: Queryable = this.sql): Promise<number> {
    const [row] = await on.rows<{ running: string }>(
      `SELECT count(*) AS running FROM sessions WHERE organization_id = $1 AND mode = $2
           AND status IN ('initiated', 'in_progress')`,
      [tenant.organizationId, tenant.mode],
    );
    return Number(row!.running);
  }

  /** The newest `limit` finished (completed or failed) sessions, by the tenant-status-created index. */
  async newestFinished(
    tenant: Tenant,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<FinishedSessionFigures[]> {
    return on.rows<FinishedSessionFigures>(
      `SELECT id, engine, status = 'failed' AS failed,
              CASE WHEN status = 'completed'
                   THEN extract(epoch FROM completed_at - created_at)::float8 END AS seconds,
              (results->'validation_metrics'->>'accuracy')::float8 AS accuracy,
              (results->'validation_metrics'->>'reliability')::float8 AS reliability,
              results->'validation_metrics' IS NOT NULL AS scored
         FROM sessions
        WHERE organization_id = $1 AND mode = $2 AND status IN ('completed', 'failed')
        ORDER BY created_at DESC LIMIT $3`,
      [tenant.organizationId, tenant.mode, limit],
    );
  }
}
