import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Queryable, type Transaction } from '#database';

/** A located reading of a completed query, as an engine or an analyst gave it. */
export interface NewReading {
  latitude: number;
  longitude: number;
  confidence: number;
}

/** A query's readings counted in one tile of a level of the heatmaps' grid. */
export interface TileCount {
  tileRow: number;
  tileColumn: number;
  readings: number;
  confidenceSum: number;
}

/**
 * The `dowsing_readings` table: the located readings of completed queries
 * (heatmaps and temporal analysis aggregate them). Its triggers keep
 * `dowsing_reading_tiles` in the same statement.
 */
@Injectable()
export class DowsingReadingsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * All of a query's readings in one statement (an energy map has up to
   * 10,000), dated with the query. Degrees keep 9 decimals (0.1 mm): a
   * subnormal one such as 5e-324 makes radians() in distance SQL fail with
   * "value out of range: underflow".
   */
  async insertMany(
    tx: Transaction,
    tenant: Tenant,
    query: { id: string; createdAt: Date },
    readings: readonly NewReading[],
  ): Promise<void> {
    if (readings.length === 0) return;
    await tx.query(
      `INSERT INTO dowsing_readings (organization_id, mode, query_id, latitude, longitude, confidence, created_at)
       SELECT $1, $2, $3, round(r.latitude::numeric, 9)::float8, round(r.longitude::numeric, 9)::float8,
              r.confidence, $7
         FROM unnest($4::float8[], $5::float8[], $6::float8[]) AS r(latitude, longitude, confidence)`,
      [
        tenant.organizationId,
        tenant.mode,
        query.id,
        readings.map((r) => r.latitude),
        readings.map((r) => r.longitude),
        readings.map((r) => r.confidence),
        query.createdAt,
      ],
    );
  }

  /** A deleted query's readings go with it. */
  async deleteOfQuery(tx: Transaction, tenant: Tenant, queryId: string): Promise<void> {
    await tx.query(
      'DELETE FROM dowsing_readings WHERE query_id = $1 AND organization_id = $2 AND mode = $3',
      [queryId, tenant.organizationId, tenant.mode],
    );
  }

  /** One query's readings per tile of `tileDegrees` degrees (tiles without readings left out). */
  async tilesOfQuery(
    tenant: Tenant,
    queryId: string,
    tileDegrees: number,
    on: Queryable = this.sql,
  ): Promise<TileCount[]> {
    const rows = await on.rows<{
      tile_row: number;
      tile_column: number;
      readings: number;
      confidence_sum: number;
    }>(
      `SELECT floor((latitude + 90) / $4::float8)::integer AS tile_row,
              floor((longitude + 180) / $4::float8)::integer AS tile_column,
              count(*)::float8 AS readings, sum(confidence) AS confidence_sum
         FROM dowsing_readings
        WHERE query_id = $1 AND organization_id = $2 AND mode = $3
        GROUP BY 1, 2`,
      [queryId, tenant.organizationId, tenant.mode, tileDegrees],
    );
    return rows.map((row) => ({
      tileRow: row.tile_row,
      tileColumn: row.tile_column,
      readings: row.readings,
      confidenceSum: row.confidence_sum,
    }));
  }
}
