import { Injectable } from '@nestjs/common';
import { AnalysisReadModelRepository } from '#analyses';
import type { Tenant } from '#common';
import { Sql, type CreatedOnDay } from '#database';
import { DowsingReadModelRepository } from '#dowsing';
import { EventReadModelRepository } from '#events';
import { HistoryCaseRollupsRepository } from '#history';
import { OrganizationLimitsCache, type OrganizationLimits } from '#organizations';
import { SessionReadModelRepository } from '#sessions';
import {
  WebhookReadModelRepository,
  type WebhookDeliveryHealth,
  type WebhookDeliveryHour,
} from '#webhooks';
import { summarizeCases, type AnalyticsSummary } from './analytics-summary.js';

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

/** Work of one kind and status created in one of the 30 days' periods (`day` 0–29, 29 the last 24 hours). */
export interface WorkDay {
  kind: WorkCount['kind'];
  status: string;
  day: number;
  count: number;
}

/** A webhook with its deliveries of the last 24 hours by state. */
export type WebhookHealth = WebhookDeliveryHealth;

export interface Dashboard {
  now: Date;
  work: WorkCount[];
  /** The same work per day of the last 30 (none left out), oldest first. */
  workPerDay: WorkDay[];
  /** Work holding a place against the plan's concurrent limit now. */
  running: { sessions: number; analyses: number };
  limits: OrganizationLimits | null;
  /** Cases of the last 30 days, from the rollups: hit rates per type. */
  cases: AnalyticsSummary;
  webhooks: WebhookHealth[];
  /** Every webhook's deliveries of the last 24 hours per hour (24, oldest first), by state. */
  webhookHours: WebhookDeliveryHour[];
  recent: { id: string; type: string; createdAt: Date }[];
}

/**
 * One call's worth of a tenant's state for a dashboard: indexed reads of
 * each lib's read model (work created per status, running work, webhook
 * deliveries, recent events) and the month's case rollups, run together on
 * a read replica when one is usable (Sql.reader).
 */
@Injectable()
export class DashboardService {
  constructor(
    private readonly sql: Sql,
    private readonly limits: OrganizationLimitsCache,
    private readonly rollups: HistoryCaseRollupsRepository,
    private readonly sessions: SessionReadModelRepository,
    private readonly analyses: AnalysisReadModelRepository,
    private readonly dowsing: DowsingReadModelRepository,
    private readonly webhooks: WebhookReadModelRepository,
    private readonly events: EventReadModelRepository,
  ) {}

  async of(tenant: Tenant, now = new Date()): Promise<Dashboard> {
    const monthAgo = new Date(now.getTime() - DASHBOARD_WINDOWS.last_30d * 3_600_000);
    const sql = await this.sql.reader(tenant);
    const created = (kind: WorkCount['kind']) => (counts: WorkCreated[]) =>
      counts.map((count): WorkCount => ({
        kind,
        status: count.status,
        counts: { last_24h: count.last24h, last_7d: count.last7d, last_30d: count.last30d },
      }));
    const perDay = (kind: WorkCount['kind']) => (days: CreatedOnDay[]) =>
      days.map((day): WorkDay => ({ kind, ...day }));
    const [sessions, analyses, queries, days, running, limits, cases, webhooks, hours, recent] =
      await Promise.all([
        this.sessions.createdPerStatus(tenant, now, sql).then(created('session')),
        this.analyses.createdPerStatus(tenant, now, sql).then(created('analysis')),
        this.dowsing.createdPerStatus(tenant, now, sql).then(created('dowsing_query')),
        Promise.all([
          this.sessions.createdPerDay(tenant, now, sql).then(perDay('session')),
          this.analyses.createdPerDay(tenant, now, sql).then(perDay('analysis')),
          this.dowsing.createdPerDay(tenant, now, sql).then(perDay('dowsing_query')),
        ]),
        Promise.all([this.sessions.running(tenant, sql), this.analyses.running(tenant, sql)]),
        this.limits.get(tenant.organizationId),
        this.rollups.tallies(
          tenant,
          { type: null, dateFrom: monthAgo, dateBefore: now, analystId: null },
          null,
          sql,
        ),
        this.webhooks.deliveryHealth(tenant, now, sql),
        this.webhooks.deliveriesPerHour(tenant, now, sql),
        this.events.recent(tenant, RECENT_ACTIVITY, sql),
      ]);
    return {
      now,
      work: [...sessions, ...analyses, ...queries].sort(
        (a, b) => a.kind.localeCompare(b.kind) || a.status.localeCompare(b.status),
      ),
      workPerDay: days
        .flat()
        .sort(
          (a, b) =>
            a.day - b.day || a.kind.localeCompare(b.kind) || a.status.localeCompare(b.status),
        ),
      running: { sessions: running[0], analyses: running[1] },
      limits,
      cases: summarizeCases(cases),
      webhooks,
      webhookHours: hours,
      recent,
    };
  }
}

/** Work of one status created in each window (each kind's read model). */
interface WorkCreated {
  status: string;
  last24h: number;
  last7d: number;
  last30d: number;
}
