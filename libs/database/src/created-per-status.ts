import type { Tenant } from '#common';
import type { Queryable } from './connection.js';

/** How many of a tenant's rows of one status were created in each window up to now. */
export interface CreatedPerStatus {
  status: string;
  last24h: number;
  last7d: number;
  last30d: number;
}

/**
 * Per status, the rows of a work table (`table`: the owning lib's
 * repository names it; never input) the tenant created in the last 24 hours,
 * 7 days and 30 days before `now`, read through its (tenant, created_at)
 * index, which includes the status; nothing older is read.
 */
export async function createdPerStatus(
  on: Queryable,
  table: string,
  tenant: Tenant,
  now: Date,
): Promise<CreatedPerStatus[]> {
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
  FROM ${table}
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
