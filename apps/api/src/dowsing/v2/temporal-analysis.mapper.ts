import type { TemporalAnalysis, TemporalAnalysisRequest, Trend } from '#dowsing';
import { rateDto } from '../../http/rate.dto.js';
import type { TemporalAnalysisDto, TrendDto } from './temporal-analysis.dto.js';

/** A Mann–Kendall trend as the API writes it (dowsing temporal analysis and history trends). */
export function trendDto(trend: Trend | null): TrendDto | null {
  if (!trend) return null;
  return {
    method: 'mann_kendall',
    n: trend.n,
    s: trend.s,
    variance: trend.variance,
    z: trend.z,
    p_value: trend.pValue,
    exact: trend.exact,
    kendall_tau: trend.tau,
    sen_slope: trend.senSlope,
    direction: trend.direction,
  };
}

export function toTemporalAnalysisV2(
  request: TemporalAnalysisRequest,
  analysis: TemporalAnalysis,
): TemporalAnalysisDto {
  return {
    interval: analysis.interval,
    window: { from: analysis.window.from.toISOString(), to: analysis.window.to.toISOString() },
    filters: {
      question: request.question ?? null,
      area: request.area
        ? {
            latitude: request.area.latitude,
            longitude: request.area.longitude,
            radius_meters: request.area.radiusMeters,
          }
        : null,
      query_type: request.queryType ?? null,
    },
    total_queries: analysis.totalQueries,
    buckets: analysis.buckets.map((bucket) => ({
      start: bucket.start.toISOString(),
      end: bucket.end.toISOString(),
      complete: bucket.complete,
      count: bucket.count,
      mean_confidence: bucket.meanConfidence,
      mean_baseline: bucket.meanBaseline,
      significant_share: bucket.significant ? rateDto(bucket.significant) : null,
    })),
    trend: {
      count: trendDto(analysis.trends.count),
      excess_confidence: trendDto(analysis.trends.excessConfidence),
    },
    warning: analysis.warning,
  };
}
