import type { Dashboard } from '#analytics';
import { toPublicId } from '#common';
import type { RequestLimiter } from '../../http/request-limiter.js';
import { groupDto } from '../case-group.mapper.js';
import type { DashboardDto, RequestWindowDto } from './dashboard-v2.dto.js';

type RequestUsage = Awaited<ReturnType<RequestLimiter['usage']>>;

const WINDOWS = [
  ['minute', 'requests_per_minute', 'requestsPerMinute'],
  ['hour', 'requests_per_hour', 'requestsPerHour'],
  ['day', 'requests_per_day', 'requestsPerDay'],
] as const;

const HOUR_MS = 3_600_000;

export function toDashboard(dashboard: Dashboard, requests: RequestUsage): DashboardDto {
  const now = dashboard.now.getTime();
  // The periods end at `now`: period i of n starts (n − i) periods before it.
  const start = (index: number, of: number, length: number) =>
    new Date(now - (of - index) * length).toISOString();
  const endpoints = dashboard.webhooks.map((webhook) => {
    const finished = webhook.succeeded + webhook.failed;
    return {
      webhook_id: toPublicId('webhook', webhook.webhookId),
      url: webhook.url,
      status: webhook.status,
      succeeded: webhook.succeeded,
      failed: webhook.failed,
      pending: webhook.pending,
      success_share: finished === 0 ? null : Math.round((webhook.succeeded / finished) * 1e6) / 1e6,
    };
  });
  return {
    generated_at: dashboard.now.toISOString(),
    work: dashboard.work.map((work) => ({
      kind: work.kind,
      status: work.status,
      counts: work.counts,
    })),
    work_per_day: dashboard.workPerDay.map((day) => ({
      start: start(day.day, 30, 24 * HOUR_MS),
      kind: day.kind,
      status: day.status,
      count: day.count,
    })),
    success_rates: dashboard.cases.byType.map(({ type, ...group }) => ({
      type,
      ...groupDto(group),
    })),
    usage: {
      plan: dashboard.limits?.plan ?? null,
      requests: WINDOWS.map(([window, setting, limit]): RequestWindowDto => {
        const counted = requests?.find((r) => r.name === window);
        return {
          window,
          setting,
          used: counted?.used ?? null,
          limit: dashboard.limits?.[limit] ?? null,
          reset_seconds: counted?.resetSeconds ?? null,
        };
      }),
      concurrent: {
        sessions: dashboard.running.sessions,
        analyses: dashboard.running.analyses,
        limit: dashboard.limits?.concurrentSessions ?? null,
      },
    },
    webhooks: {
      endpoints,
      per_hour: dashboard.webhookHours.map(({ hour, ...states }) => ({
        start: start(hour, 24, HOUR_MS),
        ...states,
      })),
      failing: endpoints
        .filter((endpoint) => endpoint.status === 'failed' || endpoint.failed > 0)
        .map((endpoint) => endpoint.webhook_id),
    },
    recent_activity: dashboard.recent.map((event) => ({
      event_id: toPublicId('event', event.id),
      type: event.type,
      created_at: event.createdAt.toISOString(),
    })),
  };
}
