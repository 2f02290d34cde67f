import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql } from '#database';
import { OrganizationLimitsCache, type OrganizationLimits } from '#organizations';
import { summarizeCases, type AnalyticsSummary } from './analytics-summary.js';
import type { TallyRow } from './case-tally.js';
import { ROLLUP_SQL, rollupParameters } from './rollup-query.js';

/** The windows a dashboard counts work over, in hours. */
export const DASHBOARD_WINDOWS = { last_24h: 24, last_7d: 24 * 7, last_30d: 24 * 30 } as const;
export type DashboardWindow = keyof typeof DASHBOARD_WINDOWS;

/** How many of the latest events the dashboard lists. */
export const RECENT_ACTIVITY = 20;

export interface WorkCount {
  kind: 'session' | 'analysis' | 'dowsing_query';
  status: string;
  counts: Record<DashboardWindow, number>;
}

export interface WebhookHealth {
  webhookId: string;
  url: string;
  status: string;
  /** Deliveries of the last 24 hours by state. */
  succeeded: number;
  failed: number;
  pending: number;
}

export interface Dashboard {
  now: Date;
  work: WorkCount[];
  /** Work holding a place against the plan's concurrent limit now. */
  running: { sessions: number; analyses: number };
  limits: OrganizationLimits | null;
  /** Cases of the last 30 days, from the rollups: hit rates per type. */
  cases: AnalyticsSummary;
  webhooks: WebhookHealth[];
  recent: { id: string; type: string; createdAt: Date }[];
}

const KINDS = [
  ['session', 'sessions'],
  ['analysis', 'analyses'],
  ['dowsing_query', 'dowsing_queries'],
] as const;

/**
 * Work per kind and status created in each window: read through each kind's
 * (tenant, created_at) index, which includes the status — the last 30 days
 * of work, nothing older. Parameters: $1 organisation, $2 mode, $3 now.
 */
const WORK_SQL = KINDS.map(
  ([kind, table]) => `
SELECT '${kind}' AS kind, status,
       count(*) FILTER (WHERE created_at >= $3::timestamptz - interval '24 hours') AS last_24h,
       count(*) FILTER (WHERE created_at >= $3::timestamptz - interval '7 days') AS last_7d,
       count(*) AS last_30d
  FROM ${table}
 WHERE organization_id = $1 AND mode = $2 AND created_at >= $3::timestamptz - interval '30 days'
 GROUP BY status`,
).join('\nUNION ALL');

/** Running work by the status indexes (the statuses assertConcurrentWorkWithin counts). */
const RUNNING_SQL = `
SELECT (SELECT count(*) FROM sessions WHERE organization_id = $1 AND mode = $2
           AND status IN ('initiated', 'in_progress')) AS sessions,
       (SELECT count(*) FROM analyses WHERE organization_id = $1 AND mode = $2
           AND status IN ('queued', 'processing')) AS analyses`;

/** Each webhook of the tenant with its deliveries of the last 24 hours by state (webhook, created_at index). */
const WEBHOOKS_SQL = `
SELECT w.id, w.url, w.status,
       count(d.id) FILTER (WHERE d.state = 'succeeded') AS succeeded,
       count(d.id) FILTER (WHERE d.state = 'failed') AS failed,
       count(d.id) FILTER (WHERE d.state = 'pending') AS pending
  FROM webhooks w
  LEFT JOIN webhook_deliveries d
    ON d.webhook_id = w.id AND d.created_at >= $3::timestamptz - interval '24 hours'
 WHERE w.organization_id = $1 AND w.mode = $2
 GROUP BY w.id, w.url, w.status, w.created_at
 ORDER BY w.created_at, w.id`;

const RECENT_SQL = `
SELECT id, type, created_at FROM events
 WHERE organization_id = $1 AND mode = $2
 ORDER BY created_at DESC, id DESC LIMIT $3`;

/**
 * One call's worth of a tenant's state for a dashboard: five indexed
 * statements run together, on a read replica when one is usable (Sql.reader).
 */
@Injectable()
export class DashboardService {
  constructor(
    private readonly sql: Sql,
    private readonly limits: OrganizationLimitsCache,
  ) {}

  async of(tenant: Tenant, now = new Date()): Promise<Dashboard> {
    const scope = [tenant.organizationId, tenant.mode];
    const monthAgo = new Date(now.getTime() - DASHBOARD_WINDOWS.last_30d * 3_600_000);
    const sql = await this.sql.reader(tenant);
    const [work, running, limits, cases, webhooks, recent] = await Promise.all([
      sql.rows<Record<string, string>>(WORK_SQL, [...scope, now]),
      sql.rows<{ sessions: string; analyses: string }>(RUNNING_SQL, scope),
      this.limits.get(tenant.organizationId),
      sql.rows<TallyRow>(
        ROLLUP_SQL,
        rollupParameters(
          tenant,
          { type: null, dateFrom: monthAgo, dateBefore: now, analystId: null },
          null,
        ),
      ),
      sql.rows<Record<string, string>>(WEBHOOKS_SQL, [...scope, now]),
      sql.rows<{ id: string; type: string; created_at: Date }>(RECENT_SQL, [
        ...scope,
        RECENT_ACTIVITY,
      ]),
    ]);
    return {
      now,
      work: work
        .map((row) => ({
          kind: row.kind as WorkCount['kind'],
          status: row.status!,
          counts: {
            last_24h: Number(row.last_24h),
            last_7d: Number(row.last_7d),
            last_30d: Number(row.last_30d),
          },
        }))
        .sort((a, b) => a.kind.localeCompare(b.kind) || a.status.localeCompare(b.status)),
      running: { sessions: Number(running[0]!.sessions), analyses: Number(running[0]!.analyses) },
      limits,
      cases: summarizeCases(cases),
      webhooks: webhooks.map((row) => ({
        webhookId: row.id!,
        url: row.url!,
        status: row.status!,
        succeeded: Number(row.succeeded),
        failed: Number(row.failed),
        pending: Number(row.pending),
      })),
      recent: recent.map((row) => ({ id: row.id, type: row.type, createdAt: row.created_at })),
    };
  }
}
