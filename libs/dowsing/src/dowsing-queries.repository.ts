import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import {
  haversineSql,
  rowMapping,
  Sql,
  tenantConditions,
  type Queryable,
  type SqlConditions,
  type Transaction,
} from '#database';
import type { DowsingQueryType, DowsingVariant } from '#engines';
import { dowsingQueryCase, WorkCasesRepository, type FinishedDowsingQuery } from '#history';
import { EARTH_RADIUS_METERS } from '#statistics';
import { WORK_COLUMNS, WorkTable } from '#work';
import type { DowsingQueryEntity, DowsingStatus } from './entities/dowsing-query.entity.js';
import type { TemporalInterval } from './temporal-analysis-buckets.js';
import { SIGNIFICANCE_LEVEL } from './temporal-analysis-summary.js';

/** The columns of `dowsing_queries`, each with the entity field it maps to. */
const QUERY = rowMapping<DowsingQueryEntity, string>(
  'dowsing_queries',
  {
    ...WORK_COLUMNS,
    variant: 'variant',
    query_type: 'queryType',
    question: 'question',
    precision_level: 'precisionLevel',
    context: 'context',
    input: 'input',
    result: 'result',
    confidence: 'confidence',
    failure_message: 'failureMessage',
  },
  ['context', 'input', 'result'],
);

/** What every write of `dowsing_queries` returns: the columns a finished query's history case reads. */
const QUERY_CASE = QUERY.only<FinishedDowsingQuery>([
  'id',
  'organization_id',
  'mode',
  'variant',
  'query_type',
  'question',
  'context',
  'status',
  'result',
  'confidence',
  'failure_reason',
  'failure_message',
  'created_at',
  'updated_at',
  'completed_at',
]);

export interface DowsingFilter {
  queryType?: DowsingQueryType | undefined;
  status?: DowsingStatus | undefined;
  variant?: DowsingVariant | undefined;
}

/** What people's answer stores on a pending query. */
export interface DowsingAnswer {
  result: object;
  confidence: number;
  evidence: string;
  engineVersion: string;
  completedAt: Date;
  sequence: number;
}

/** Which of a tenant's completed queries temporal analysis counts, in a window of buckets. */
export interface TemporalSelection {
  interval: TemporalInterval;
  /** Queries with a located reading within the circle. */
  area?: { latitude: number; longitude: number; radiusMeters: number } | undefined;
  /** Queries asking exactly this (case-insensitive). */
  question?: string | undefined;
  queryType?: DowsingQueryType | undefined;
  window: { from: Date; to: Date };
}

/** One bucket of temporal analysis as counted: only buckets with queries come back. */
export interface CountedBucket {
  start: Date;
  count: number;
  meanConfidence: number | null;
  meanBaseline: number | null;
  /** Queries whose answer beat chance at SIGNIFICANCE_LEVEL. */
  significant: number;
}

/** Degrees of slack on the bands of a circle, so a reading exactly on its edge is not lost to rounding. */
const SLACK_DEGREES = 1e-9;

/**
 * The `dowsing_queries` table, and temporal analysis over it (whose area
 * filter reads this lib's `dowsing_readings` in the same statement). Every
 * statement names the tenant. Every write that can finish or delete a query
 * writes or forgets its history case in the same transaction (libs/history's
 * WorkCasesRepository): an inline answer's insert included.
 */
@Injectable()
export class DowsingQueriesRepository extends WorkTable<DowsingQueryEntity, FinishedDowsingQuery> {
  constructor(sql: Sql, cases: WorkCasesRepository) {
    super(sql, cases, {
      table: 'dowsing_queries',
      rows: QUERY,
      caseRows: QUERY_CASE,
      toCase: dowsingQueryCase,
      running: ['pending'],
      reads: 'replicas',
      listConditions,
    });
  }

  /** People's answer completes the query (the caller holds the row and has checked it is pending). */
  async markCompleted(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    answer: DowsingAnswer,
  ): Promise<void> {
    await this.update(tx, tenant, id, {
      status: 'completed',
      result: answer.result,
      confidence: answer.confidence,
      evidence: answer.evidence,
      engine_version: answer.engineVersion,
      completed_at: answer.completedAt,
      event_sequence: answer.sequence,
      updated_at: answer.completedAt,
    });
  }

  /**
   * The tenant's completed queries of the selection per bucket of the
   * window (date_trunc in UTC): how many, their mean confidence and chance
   * baseline, and how many beat chance. One statement.
   */
  async temporalBuckets(
    tenant: Tenant,
    selection: TemporalSelection,
    on: Queryable = this.sql,
  ): Promise<CountedBucket[]> {
    const parameters: unknown[] = [
      tenant.organizationId,
      tenant.mode,
      selection.interval,
      selection.window.from,
      selection.window.to,
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
    if (selection.question !== undefined) {
      conditions.push(`lower(q.question) = lower(${param(selection.question, 'text')})`);
    }
    if (selection.queryType) {
      conditions.push(`q.query_type = ${param(selection.queryType, 'text')}`);
    }
    if (selection.area) conditions.push(`q.id IN (${readingsWithin(selection.area, param)})`);
    const rows = await on.rows<BucketRow>(
      `
    SELECT date_trunc($3::text, q.created_at, 'UTC') AS bucket,
           count(*)::integer AS count,
           avg(q.confidence) AS mean_confidence,
           avg((q.result ->> 'baseline')::float8) AS mean_baseline,
           count(*) FILTER (
             WHERE (q.result -> 'statistical_significance' ->> 'p_value')::float8 < ${SIGNIFICANCE_LEVEL}
           )::integer AS significant
      FROM dowsing_queries q
     WHERE ${conditions.join(' AND ')}
     GROUP BY 1`,
      parameters,
    );
    return rows.map((row) => ({
      start: new Date(row.bucket),
      count: Number(row.count),
      meanConfidence: row.mean_confidence,
      meanBaseline: row.mean_baseline,
      significant: Number(row.significant),
    }));
  }
}

interface BucketRow {
  bucket: Date;
  count: number;
  mean_confidence: number | null;
  mean_baseline: number | null;
  significant: number;
}

/**
 * The (organisation, mode, created_at) and (organisation, mode, status,
 * created_at) indexes INCLUDE the other filtered columns.
 */
function listConditions(tenant: Tenant, filter: DowsingFilter): SqlConditions {
  const where = tenantConditions(tenant);
  if (filter.status) where.and(`status = ${where.param(filter.status)}`);
  if (filter.queryType) where.and(`query_type = ${where.param(filter.queryType)}`);
  if (filter.variant) where.and(`variant = ${where.param(filter.variant)}`);
  return where;
}

/**
 * Ids of the tenant's queries ($1, $2) with a reading of the window ($4,
 * $5) within the circle: the readings' latitude index finds the circle's
 * band (and its longitudes, unless the circle holds a pole), the
 * great-circle distance (haversine, as geo.ts) decides.
 */
function readingsWithin(
  area: NonNullable<TemporalSelection['area']>,
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
