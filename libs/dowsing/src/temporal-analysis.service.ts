import { Injectable } from '@nestjs/common';
import { AppError, type Tenant } from '#common';
import { Sql } from '#database';
import type { DowsingQueryType } from '#engines';
import { rateOf } from '#statistics';
import { DowsingQueriesRepository } from './dowsing-queries.repository.js';
import {
  bucketCount,
  bucketsCovering,
  MAX_TEMPORAL_BUCKETS,
  TEMPORAL_INTERVALS,
  type TemporalInterval,
} from './temporal-analysis-buckets.js';
import {
  SIGNIFICANCE_LEVEL,
  summarize,
  type TemporalBucket,
  type TemporalSummary,
} from './temporal-analysis-summary.js';

export interface TemporalAnalysisRequest {
  interval: TemporalInterval;
  /** Queries with a located reading within the circle. */
  area?: { latitude: number; longitude: number; radiusMeters: number };
  /** Queries asking exactly this (case-insensitive). */
  question?: string;
  dateFrom: Date;
  dateTo: Date;
  queryType?: DowsingQueryType;
}

export interface TemporalAnalysis extends TemporalSummary {
  interval: TemporalInterval;
  window: { from: Date; to: Date };
  buckets: TemporalBucket[];
}

/**
 * How a tenant's completed dowsing queries — about a place, a question or
 * both — went over time: per day, week or month, how many, their mean
 * confidence against the mean chance baseline, and how many beat chance;
 * with Mann–Kendall trends of the count and of the confidence above chance.
 */
@Injectable()
export class TemporalAnalysisService {
  constructor(
    private readonly sql: Sql,
    private readonly queries: DowsingQueriesRepository,
  ) {}

  async analyse(tenant: Tenant, request: TemporalAnalysisRequest): Promise<TemporalAnalysis> {
    const { interval, dateFrom, dateTo } = request;
    if (!request.area && request.question === undefined) {
      throw AppError.invalid(
        'question',
        'send a question, an area (latitude, longitude and radius_meters), or both',
      );
    }
    if (dateTo < dateFrom) {
      throw AppError.invalid('date_to', 'must not be before date_from', dateFrom.toISOString());
    }
    const covering = bucketsCovering(dateFrom, dateTo, interval);
    if (!covering) throw tooManyBuckets(dateFrom, dateTo, interval);
    const window = { from: covering[0]!.start, to: covering[covering.length - 1]!.end };
    // An analytics read: on a read replica when one is usable (Sql.reader).
    const reader = await this.sql.reader(tenant);
    const counted = await this.queries.temporalBuckets(tenant, { ...request, window }, reader);
    const found = new Map(counted.map((bucket) => [bucket.start.getTime(), bucket]));
    const now = Date.now();
    const buckets = covering.map(({ start, end }): TemporalBucket => {
      const bucket = found.get(start.getTime());
      const count = bucket?.count ?? 0;
      return {
        start,
        end,
        complete: end.getTime() <= now,
        count,
        meanConfidence: bucket?.meanConfidence == null ? null : round(bucket.meanConfidence),
        meanBaseline: bucket?.meanBaseline == null ? null : round(bucket.meanBaseline),
        significant: count === 0 ? null : rateOf(bucket!.significant, count, SIGNIFICANCE_LEVEL),
      };
    });
    return { interval, window, buckets, ...summarize(buckets) };
  }
}

function tooManyBuckets(from: Date, to: Date, interval: TemporalInterval): AppError {
  const count = bucketCount(from, to, interval);
  const issue = `makes ${count.toLocaleString('en')} ${interval} buckets between date_from and date_to; at most ${MAX_TEMPORAL_BUCKETS.toLocaleString('en')}`;
  const coarser = TEMPORAL_INTERVALS.slice(TEMPORAL_INTERVALS.indexOf(interval) + 1).find(
    (candidate) => bucketCount(from, to, candidate) <= MAX_TEMPORAL_BUCKETS,
  );
  if (coarser) return AppError.invalid('interval', issue, coarser);
  // Months all the way: the latest date_from that fits.
  const earliest = new Date(
    Date.UTC(to.getUTCFullYear(), to.getUTCMonth() - (MAX_TEMPORAL_BUCKETS - 1), 1),
  );
  return AppError.invalid('date_from', issue, earliest.toISOString());
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
