import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable, createdPerStatus, type CreatedPerStatus } from '#database';

/** Dowsing queries created in the last 24 hours, 7 days and 30 days, of one status. */
export type DowsingQueriesCreated = CreatedPerStatus;

/** A finished dowsing query as performance figures count it. */
export interface FinishedDowsingFigures {
  id: string;
  engine: string;
  failed: boolean;
  /** Seconds from creation to completion; null unless completed with a completion time. */
  seconds: number | null;
}

/**
 * What other libs read of `dowsing_queries` for analytics and dashboards (a
 * read model: counts and figures, never the queries themselves), each read
 * by a tenant index, on the replica the caller passes.
 */
@Injectable()
export class DowsingReadModelRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Per status, the queries created in each window up to `now`: read
   * through the (tenant, created_at) index, which includes the status — the
   * last 30 days, nothing older.
   */
  createdPerStatus(
    tenant: Tenant,
    now: Date,
    on: Queryable = this.sql,
  ): Promise<DowsingQueriesCreated[]> {
    return createdPerStatus(on, 'dowsing_queries', tenant, now);
  }

  /** The newest `limit` finished (completed or failed) queries, by the tenant-status-created index. */
  async newestFinished(
    tenant: Tenant,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<FinishedDowsingFigures[]> {
    return on.rows<FinishedDowsingFigures>(
      `SELECT id, engine, status = 'failed' AS failed,
              CASE WHEN status = 'completed'
                   THEN extract(epoch FROM completed_at - created_at)::float8 END AS seconds
         FROM dowsing_queries
        WHERE organization_id = $1 AND mode = $2 AND status IN ('completed', 'failed')
        ORDER BY created_at DESC LIMIT $3`,
      [tenant.organizationId, tenant.mode, limit],
    );
  }
}
