import { Injectable } from '@nestjs/common';
import { AnalysisReadModelRepository } from '#analyses';
import { AppError, type Tenant } from '#common';
import { Sql, type Queryable } from '#database';
import {
  bucketCount,
  bucketsCovering,
  DowsingReadModelRepository,
  MAX_TEMPORAL_BUCKETS,
  type TemporalInterval,
} from '#dowsing';
import { ANALYSIS_DEFAULT_BASELINE, SESSION_DEFAULT_BASELINE } from '#engines';
import {
  HistoryAnalystRollupsRepository,
  HistoryCaseRollupsRepository,
  HistoryReadModelRepository,
  type RollupFilters,
  type RollupTally,
} from '#history';
import { SessionReadModelRepository } from '#sessions';
import { summarizeCases, type AnalyticsSummary } from './analytics-summary.js';
import { historyTrends, type HistoryTrends } from './history-trends.js';
import { analystPerformanceOf, enginePerformanceOf, type Performance } from './performance.js';
import {
  engineFiguresOf,
  PERFORMANCE_WORK_LIMIT,
  type FinishedWork,
  type MeasuredKind,
} from './work-performance.js';

/** Which cases an analytics read counts (the rollups' filters). */
export type CaseFilters = RollupFilters;

/** How far back a time series reaches when `date_from` is left out, in intervals. */
export const DEFAULT_TREND_SPAN: Readonly<Record<TemporalInterval, number>> = {
  day: 90,
  week: 52,
  month: 24,
};

/**
 * The chance baseline of a verified case that records none, per kind of
 * work: dowsing cases record their own; the session's p0 stands in otherwise.
 */
const DEFAULT_BASELINES: Readonly<Record<MeasuredKind, number>> = {
  session: SESSION_DEFAULT_BASELINE,
  analysis: ANALYSIS_DEFAULT_BASELINE,
  dowsing_query: SESSION_DEFAULT_BASELINE,
};

/**
 * Analytics over a tenant's history, read from the rollups the triggers of
 * migration 1764090000000 keep (never the cases themselves, except the cut
 * days at a date-time bound): one indexed statement a request, on a read
 * replica when one is usable (Sql.reader). Classified cases are never counted.
 */
@Injectable()
export class HistoryAnalyticsService {
  constructor(
    private readonly sql: Sql,
    private readonly rollups: HistoryCaseRollupsRepository,
    private readonly analystRollups: HistoryAnalystRollupsRepository,
    private readonly cases: HistoryReadModelRepository,
    private readonly sessions: SessionReadModelRepository,
    private readonly analyses: AnalysisReadModelRepository,
    private readonly dowsing: DowsingReadModelRepository,
  ) {}

  async summary(tenant: Tenant, filters: CaseFilters): Promise<AnalyticsSummary> {
    return summarizeCases(await this.tallies(tenant, filters, null));
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
    const rows = await this.tallies(
      tenant,
      { ...filters, dateFrom: from, dateBefore: before },
      interval,
    );
    return { ...historyTrends(interval, ranges, rows, now), from, before };
  }

  /**
   * Per engine over the newest PERFORMANCE_WORK_LIMIT finished pieces of
   * each kind (each kind's read model, then their cases' outcomes); per
   * analyst, type and modality over every case (rollups).
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
      this.engineFigures(tenant, sql),
      this.analystRollups.allTimeByAnalyst(tenant, sql),
      this.rollups.tallies(tenant, everything, null, sql),
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

  private async engineFigures(tenant: Tenant, sql: Queryable) {
    const work: [MeasuredKind, FinishedWork[]][] = await Promise.all([
      this.sessions
        .newestFinished(tenant, PERFORMANCE_WORK_LIMIT, sql)
        .then((pieces): [MeasuredKind, FinishedWork[]] => ['session', pieces]),
      this.analyses
        .newestFinished(tenant, PERFORMANCE_WORK_LIMIT, sql)
        .then((pieces): [MeasuredKind, FinishedWork[]] => ['analysis', pieces]),
      this.dowsing
        .newestFinished(tenant, PERFORMANCE_WORK_LIMIT, sql)
        .then((pieces): [MeasuredKind, FinishedWork[]] => ['dowsing_query', pieces]),
    ]);
    const outcomes = await this.cases.sourceOutcomes(
      tenant,
      work.flatMap(([, pieces]) => pieces.map((piece) => piece.id)),
      sql,
    );
    const bySource = new Map(outcomes.map((outcome) => [outcome.sourceId, outcome]));
    return work.flatMap(([kind, pieces]) =>
      engineFiguresOf(kind, pieces, bySource, DEFAULT_BASELINES[kind]),
    );
  }

  private async tallies(
    tenant: Tenant,
    filters: CaseFilters,
    bucket: TemporalInterval | null,
  ): Promise<RollupTally[]> {
    return this.rollups.tallies(tenant, filters, bucket, await this.sql.reader(tenant));
  }
}

function spanBefore(last: Date, interval: TemporalInterval): Date {
  const span = DEFAULT_TREND_SPAN[interval];
  const at = new Date(last);
  if (interval === 'month') at.setUTCMonth(at.getUTCMonth() - (span - 1), 1);
  else at.setUTCDate(at.getUTCDate() - (span - 1) * (interval === 'week' ? 7 : 1));
  return at;
}
