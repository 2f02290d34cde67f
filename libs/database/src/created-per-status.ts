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

/** How many of a tenant's rows of one status were created in one day of the last 30. */
export interface CreatedOnDay {
  status: string;
  /** 0 to 29: the 24 hours starting `now` − (30 − day) × 24 hours, so 29 is the last 24 hours. */
  day: number;
  count: number;
}

/**
 * Per status, the rows of a work table (`table`: as for createdPerStatus)
 * the tenant created in each of the 30 periods of 24 hours before `now`,
 * counted by the same index over the same rows as createdPerStatus (a row
 * created after `now` falls in the last period), so period 29 sums to its
 * last 24 hours, periods 23–29 to its 7 days and all to its 30; periods with
 * none are left out.
 */
export async function createdPerDay(
  on: Queryable,
  table: string,
  tenant: Tenant,
  now: Date,
): Promise<CreatedOnDay[]> {
  const rows = await on.rows<{ status: string; day: number; count: string }>(
    `
SELECT status,
       least(29, floor(extract(epoch FROM created_at - ($3::timestamptz - interval '30 days')) / 86400))::int AS day,
       count(*) AS count
  FROM ${table}
 WHERE organization_id = $1 AND mode = $2 AND created_at >= $3::timestamptz - interval '30 days'
 GROUP BY 1, 2
 ORDER BY 2, 1`,
    [tenant.organizationId, tenant.mode, now],
  );
  return rows.map((row) => ({ status: row.status, day: row.day, count: Number(row.count) }));
}
