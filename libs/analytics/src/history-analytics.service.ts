import { Injectable } from '@nestjs/common';
import { AppError, type Tenant } from '#common';
import { Sql } from '#database';
import {
  bucketCount,
  bucketsCovering,
  MAX_TEMPORAL_BUCKETS,
  type TemporalInterval,
} from '#dowsing';
import { summarizeCases, type AnalyticsSummary } from './analytics-summary.js';
import type { TallyRow } from './case-tally.js';
import { historyTrends, type HistoryTrends } from './history-trends.js';
import { analystPerformanceOf, enginePerformanceOf, type Performance } from './performance.js';
import { ROLLUP_SQL, rollupParameters, type CaseFilters } from './rollup-query.js';
import {
  ANALYST_PERFORMANCE_SQL,
  ENGINE_PERFORMANCE_SQL,
  enginePerformanceParameters,
  type EngineRow,
} from './work-performance.js';

/** How far back a time series reaches when `date_from` is left out, in intervals. */
export const DEFAULT_TREND_SPAN: Readonly<Record<TemporalInterval, number>> = {
  day: 90,
  week: 52,
  month: 24,
};

/**
 * Analytics over a tenant's history, read from the rollups the triggers of
 * migration 1764090000000 keep (never the cases themselves, except the cut
 * days at a date-time bound): one indexed statement a request, on a read
 * replica when one is usable (Sql.reader). Classified cases are never counted.
 */
@Injectable()
export class HistoryAnalyticsService {
  constructor(private readonly sql: Sql) {}

  async summary(tenant: Tenant, filters: CaseFilters): Promise<AnalyticsSummary> {
    return summarizeCases(await this.rows(tenant, filters, null));
  }

  /**
   * `filters.dateBefore` defaults to now, `filters.dateFrom` to
   * DEFAULT_TREND_SPAN intervals before it; at most MAX_TEMPORAL_BUCKETS
   * buckets (else the error names `interval`).
   */
  async trends(
    tenant: Tenant,
    filters: CaseFilters,
    interval: TemporalInterval,
    now = new Date(),
  ): Promise<HistoryTrends & { from: Date; before: Date }> {
    const before = filters.dateBefore ?? now;
    const last = new Date(before.getTime() - 1);
    const from = filters.dateFrom ?? spanBefore(last, interval);
    const ranges = bucketsCovering(from, last, interval);
    if (ranges === null) {
      throw AppError.invalid(
        'interval',
        `the range needs ${bucketCount(from, last, interval)} ${interval} buckets, more than ${MAX_TEMPORAL_BUCKETS}: use a longer interval or a shorter range`,
        interval === 'day' ? 'week' : 'month',
      );
    }
    const rows = await this.rows(
      tenant,
      { ...filters, dateFrom: from, dateBefore: before },
      interval,
    );
    return { ...historyTrends(interval, ranges, rows, now), from, before };
  }

  /**
   * Per engine over the newest PERFORMANCE_WORK_LIMIT finished pieces of
   * each kind; per analyst, type and modality over every case (rollups).
   */
  async performance(tenant: Tenant): Promise<Performance> {
    const everything: CaseFilters = {
      type: null,
      dateFrom: null,
      dateBefore: null,
      analystId: null,
    };
    const sql = await this.sql.reader(tenant);
    const [engines, analysts, cases] = await Promise.all([
      sql.rows<EngineRow>(ENGINE_PERFORMANCE_SQL, enginePerformanceParameters(tenant)),
      sql.rows<TallyRow & { analyst: string }>(ANALYST_PERFORMANCE_SQL, [
        tenant.organizationId,
        tenant.mode,
      ]),
      this.rows(tenant, everything, null),
    ]);
    const summary = summarizeCases(cases);
    return {
      byEngine: engines
        .map(enginePerformanceOf)
        .sort((a, b) => a.kind.localeCompare(b.kind) || a.engine.localeCompare(b.engine)),
      byAnalyst: analystPerformanceOf(analysts),
      byType: summary.byType,
      byModality: summary.byModality,
    };
  }

  private async rows(
    tenant: Tenant,
    filters: CaseFilters,
    bucket: TemporalInterval | null,
  ): Promise<TallyRow[]> {
    const sql = await this.sql.reader(tenant);
    return sql.rows<TallyRow>(ROLLUP_SQL, rollupParameters(tenant, filters, bucket));
  }
}

function spanBefore(last: Date, interval: TemporalInterval): Date {
  const span = DEFAULT_TREND_SPAN[interval];
  const at = new Date(last);
  if (interval === 'month') at.setUTCMonth(at.getUTCMonth() - (span - 1), 1);
  else at.setUTCDate(at.getUTCDate() - (span - 1) * (interval === 'week' ? 7 : 1));
  return at;
}
