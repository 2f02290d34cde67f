import { Injectable } from '@nestjs/common';
import { AppError, type Tenant } from '#common';
import { haversineSql, Sql } from '#database';
import type { DowsingQueryType } from '#engines';
import { EARTH_RADIUS_METERS, rateOf } from '#statistics';
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

const SLACK_DEGREES = 1e-9;

interface BucketRow {
  bucket: Date;
  count: number;
  mean_confidence: number | null;
  mean_baseline: number | null;
  significant: number;
}

/**
 * How a tenant's completed dowsing queries — about a place, a question or
 * both — went over time: per day, week or month, how many, their mean
 * confidence against the mean chance baseline, and how many beat chance;
 * with Mann–Kendall trends of the count and of the confidence above chance.
 */
@Injectable()
export class TemporalAnalysisService {
  constructor(private readonly sql: Sql) {}

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
    const sql = await this.sql.reader(tenant);
    const rows = await sql.rows<BucketRow>(...bucketsSql(tenant, request, window));
    const found = new Map(rows.map((row) => [new Date(row.bucket).getTime(), row]));
    const now = Date.now();
    const buckets = covering.map(({ start, end }): TemporalBucket => {
      const row = found.get(start.getTime());
      const count = row ? Number(row.count) : 0;
      return {
        start,
        end,
        complete: end.getTime() <= now,
        count,
        meanConfidence: row?.mean_confidence == null ? null : round(row.mean_confidence),
        meanBaseline: row?.mean_baseline == null ? null : round(row.mean_baseline),
        significant:
          count === 0 ? null : rateOf(Number(row!.significant), count, SIGNIFICANCE_LEVEL),
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

function bucketsSql(
  tenant: Tenant,
  request: TemporalAnalysisRequest,
  window: { from: Date; to: Date },
): [string, unknown[]] {
  const parameters: unknown[] = [
    tenant.organizationId,
    tenant.mode,
    request.interval,
    window.from,
    window.to,
  ];
  const param = (value: unknown, type: string) => {
    parameters.push(value);
    return `$${parameters.length}::${type}`;
  };
  const conditions = [
    'q.organization_id = $1::uuid',
    'q.mode = $2::text',
    `q.status = 'completed'`,
    'q.created_at >= $4::timestamptz',
    'q.created_at < $5::timestamptz',
  ];
  if (request.question !== undefined) {
    conditions.push(`lower(q.question) = lower(${param(request.question, 'text')})`);
  }
  if (request.queryType) conditions.push(`q.query_type = ${param(request.queryType, 'text')}`);
  if (request.area) conditions.push(`q.id IN (${readingsWithin(request.area, param)})`);
  const text = `
    SELECT date_trunc($3::text, q.created_at, 'UTC') AS bucket,
           count(*)::integer AS count,
           avg(q.confidence) AS mean_confidence,
           avg((q.result ->> 'baseline')::float8) AS mean_baseline,
           count(*) FILTER (
             WHERE (q.result -> 'statistical_significance' ->> 'p_value')::float8 < ${SIGNIFICANCE_LEVEL}
           )::integer AS significant
      FROM dowsing_queries q
     WHERE ${conditions.join(' AND ')}
     GROUP BY 1`;
  return [text, parameters];
}

/**
 * Ids of queries with a reading within the circle: the readings' latitude
 * index finds the circle's band (and its longitudes, unless the circle holds
 * a pole), the great-circle distance (haversine, as geo.ts) decides.
 */
function readingsWithin(
  area: NonNullable<TemporalAnalysisRequest['area']>,
  param: (value: unknown, type: string) => string,
): string {
  const RAD = Math.PI / 180;
  const angle = area.radiusMeters / EARTH_RADIUS_METERS;
  const south = area.latitude - angle / RAD;
  const north = area.latitude + angle / RAD;
  const conditions = [
    'r.organization_id = $1::uuid',
    'r.mode = $2::text',
    'r.created_at >= $4::timestamptz',
    'r.created_at < $5::timestamptz',
    `r.latitude BETWEEN ${param(Math.max(-90, south - SLACK_DEGREES), 'float8')} AND ${param(Math.min(90, north + SLACK_DEGREES), 'float8')}`,
  ];
  if (south > -90 && north < 90 && angle < Math.PI / 2) {
    // The cap's extreme longitudes (it holds no pole): ± asin(sin(angle) / cos(latitude)).
    const half = Math.asin(Math.min(1, Math.sin(angle) / Math.cos(area.latitude * RAD))) / RAD;
    const west = area.longitude - half - SLACK_DEGREES;
    const east = area.longitude + half + SLACK_DEGREES;
    if (half < 180 && west >= -180 && east <= 180) {
      conditions.push(`r.longitude BETWEEN ${param(west, 'float8')} AND ${param(east, 'float8')}`);
    } else if (half < 180) {
      // Across the antimeridian: two ranges.
      const wrappedWest = west < -180 ? west + 360 : west;
      const wrappedEast = east > 180 ? east - 360 : east;
      conditions.push(
        `(r.longitude >= ${param(wrappedWest, 'float8')} OR r.longitude <= ${param(wrappedEast, 'float8')})`,
      );
    }
  }
  const lat = param(area.latitude, 'float8');
  const lon = param(area.longitude, 'float8');
  conditions.push(
    `${haversineSql('r.latitude', 'r.longitude', lat, lon)} <= ${param(area.radiusMeters, 'float8')}`,
  );
  return `SELECT r.query_id FROM dowsing_readings r WHERE ${conditions.join(' AND ')}`;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
