import type { AnalyticsSummary, CaseFilters, HistoryTrends, Performance } from '#analytics';
import { trendDto } from '../../dowsing/v2/temporal-analysis.mapper.js';
import { filtersOf } from '../../history/history.mapper.js';
import { rateDto } from '../../http/rate.dto.js';
import { groupDto } from '../case-group.mapper.js';
import type {
  AnalyticsFiltersDto,
  HistoryAnalyticsDto,
  HistoryAnalyticsQueryDto,
  HistoryTrendsDto,
} from './history-analytics-v1.dto.js';
import type { PerformanceDto } from './performance-v1.dto.js';

/** The case filters of a query: dates checked and made inclusive as the history search does. */
export function caseFiltersOf(query: HistoryAnalyticsQueryDto): CaseFilters {
  const search = filtersOf(query);
  return {
    type: search.type,
    dateFrom: search.dateFrom,
    dateBefore: search.dateBefore,
    analystId: query.analyst_id ?? null,
  };
}

function filtersDto(filters: CaseFilters): AnalyticsFiltersDto {
  return {
    type: filters.type,
    date_from: filters.dateFrom?.toISOString() ?? null,
    date_before: filters.dateBefore?.toISOString() ?? null,
    analyst_id: filters.analystId,
  };
}

export function toHistoryAnalytics(
  filters: CaseFilters,
  summary: AnalyticsSummary,
): HistoryAnalyticsDto {
  return {
    filters: filtersDto(filters),
    total: groupDto(summary.total),
    by_type: summary.byType.map(({ type, ...group }) => ({ type, ...groupDto(group) })),
    by_modality: summary.byModality.map(({ modality, ...group }) => ({
      modality,
      ...groupDto(group),
    })),
    by_work_status: summary.byWorkStatus.map(({ workStatus, cases }) => ({
      work_status: workStatus,
      cases,
    })),
  };
}

export function toHistoryTrends(
  filters: CaseFilters,
  trends: HistoryTrends & { from: Date; before: Date },
): HistoryTrendsDto {
  return {
    interval: trends.interval,
    filters: filtersDto({ ...filters, dateFrom: trends.from, dateBefore: trends.before }),
    buckets: trends.buckets.map((bucket) => ({
      start: bucket.start.toISOString(),
      end: bucket.end.toISOString(),
      complete: bucket.complete,
      cases: bucket.cases,
      verified: bucket.verified,
      hit_rate: bucket.hitRate && rateDto(bucket.hitRate),
      mean_confidence: bucket.meanConfidence,
    })),
    trends: {
      cases: trendDto(trends.trends.cases),
      hit_rate: trendDto(trends.trends.hitRate),
      mean_confidence: trendDto(trends.trends.meanConfidence),
    },
    warning: trends.warning,
  };
}

export function toPerformance(performance: Performance): PerformanceDto {
  return {
    by_engine: performance.byEngine.map((engine) => ({
      kind: engine.kind,
      engine: engine.engine,
      work: engine.work,
      failed: engine.failed,
      hit_rate: engine.hitRate && rateDto(engine.hitRate),
      accuracy: engine.accuracy,
      reliability: engine.reliability,
      scores_note: engine.scoresNote,
      processing_seconds: engine.processingSeconds,
    })),
    by_analyst: performance.byAnalyst.map(({ analystId, ...group }) => ({
      analyst_id: analystId,
      ...groupDto(group),
    })),
    by_type: performance.byType.map(({ type, ...group }) => ({ type, ...groupDto(group) })),
    by_modality: performance.byModality.map(({ modality, ...group }) => ({
      modality,
      ...groupDto(group),
    })),
  };
}
