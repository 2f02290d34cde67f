import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable } from '#database';

/** Dowsing queries created in the last 24 hours, 7 days and 30 days, of one status. */
export interface DowsingQueriesCreated {
  status: string;
  last24h: number;
  last7d: number;
  last30d: number;
}

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
  async createdPerStatus(
    tenant: Tenant,
    now: Date,
    on: Queryable = this.sql,
  ): Promise<DowsingQueriesCreated[]> {
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
  FROM dowsing_queries
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
