import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql } from '#database';
import {
  partPlan,
  tileDegrees,
  type HeatmapGrid,
  type ReadingStrip,
  type TilePart,
} from './heatmap-grid.js';

/** Readings of one tile at the grid's level, in one part of the box. */
export interface PartTileCount {
  part: number;
  tileRow: number;
  tileColumn: number;
  readings: number;
  confidenceSum: number;
}

interface CellRow {
  part: number;
  tile_row: number;
  tile_column: number;
  readings: number;
  confidence_sum: number;
}

/**
 * The `dowsing_reading_tiles` table: per tenant, tile and stored level, how
 * many readings and their confidence sum, kept by triggers on
 * `dowsing_readings` (migration 1764082800000). The stored heatmap reads
 * the tiles inside a box and the readings of its edge strips
 * (heatmap-grid.ts lays them out) in one statement.
 */
@Injectable()
export class DowsingReadingTilesRepository {
  constructor(private readonly sql: Sql) {}

  /** The tenant's readings in the grid's box, per part and tile of the grid's level. */
  async storedCells(tenant: Tenant, grid: HeatmapGrid): Promise<PartTileCount[]> {
    const { text, parameters } = storedCellsSql(tenant, grid);
    // One statement over at most tens of thousands of rows: compiling it (JIT) or starting
    // parallel workers for it costs more than it saves (measured: 10–50 ms either way), and
    // grouping them into at most 10,000 cells is a hash table's work, which the planner, misled
    // by statistics that mix every level's tile numbers, would do by sorting (2× slower).
    const rows = await this.sql.transaction(async (tx) => {
      await tx.query(
        `SELECT set_config('jit', 'off', true), set_config('max_parallel_workers_per_gather', '0', true),
                set_config('enable_sort', 'off', true)`,
      );
      return tx.rows<CellRow>(text, parameters);
    });
    return rows.map((row) => ({
      part: row.part,
      tileRow: row.tile_row,
      tileColumn: row.tile_column,
      readings: row.readings,
      confidenceSum: row.confidence_sum,
    }));
  }
}

/**
 * One statement: for each part of the box, the stored tiles of its plan and
 * the readings of its edge strips, each as (part, tile row, tile column,
 * readings, confidence sum) at the requested level, summed per tile.
 * Exported for the heatmap benchmark, which times and explains it.
 */
export function storedCellsSql(
  tenant: Tenant,
  grid: HeatmapGrid,
): { text: string; parameters: unknown[] } {
  const parameters: unknown[] = [tenant.organizationId, tenant.mode];
  const param = (value: unknown, type: string) => {
    parameters.push(value);
    return `$${parameters.length}::${type}`;
  };
  const selects: string[] = [];
  grid.parts.forEach((part, index) => {
    const plan = partPlan(part, grid.level);
    for (const tiles of plan.tiles) selects.push(tileSelect(index, tiles));
    plan.strips.forEach((strip, i) =>
      selects.push(stripSelect(index, grid.level, strip, i, param)),
    );
  });
  return {
    text: `SELECT part, tile_row, tile_column, sum(readings)::float8 AS readings,
                  sum(confidence_sum) AS confidence_sum
             FROM (${selects.join('\n UNION ALL ')}) parts
            GROUP BY 1, 2, 3`,
    parameters,
  };
}

type Param = (value: unknown, type: string) => string;

/** Integers from the plan, never from the request, are written in the statement. */
function int(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return String(value);
}

/**
 * A rectangle is read along its longer side: a wide one by the primary key
 * (level, row, column), a tall one by the column index (level, column, row).
 * `+ 0` hides the other side's column from the planner, so it cannot pick
 * the index that would walk every tile of the box's rows or columns.
 */
function tileSelect(part: number, tiles: TilePart): string {
  const { rect, level, shift } = tiles;
  const tall = rect.rows[1] - rect.rows[0] > rect.columns[1] - rect.columns[0];
  const rows = `${tall ? '(tile_row + 0)' : 'tile_row'} BETWEEN ${int(rect.rows[0])} AND ${int(rect.rows[1] - 1)}`;
  const columns = `${tall ? 'tile_column' : '(tile_column + 0)'} BETWEEN ${int(rect.columns[0])} AND ${int(rect.columns[1] - 1)}`;
  return `SELECT ${int(part)} AS part, tile_row >> ${int(shift)} AS tile_row,
                 tile_column >> ${int(shift)} AS tile_column, readings, confidence_sum
            FROM dowsing_reading_tiles
           WHERE organization_id = $1::uuid AND mode = $2::text AND level = ${int(level)}
             AND ${rows} AND ${columns}`;
}

/** Strip i of readingStrips: 0 below, 1 above, 2 west of, 3 east of the finest interior. */
function stripSelect(
  part: number,
  level: number,
  strip: ReadingStrip,
  index: number,
  param: Param,
): string {
  const d = param(tileDegrees(level), 'float8');
  const conditions = [
    `latitude BETWEEN ${param(strip.south, 'float8')} AND ${param(strip.north, 'float8')}`,
    `longitude BETWEEN ${param(strip.west, 'float8')} AND ${param(strip.east, 'float8')}`,
  ];
  if (strip.outside) {
    const fine = param(tileDegrees(strip.outside.level), 'float8');
    const row = `floor((latitude + 90) / ${fine})`;
    const column = `floor((longitude + 180) / ${fine})`;
    const { rows, columns } = strip.outside.rect;
    const inRows = `${row} >= ${int(rows[0])} AND ${row} < ${int(rows[1])}`;
    conditions.push(
      [
        `${row} < ${int(rows[0])}`,
        `${row} >= ${int(rows[1])}`,
        `${inRows} AND ${column} < ${int(columns[0])}`,
        `${inRows} AND ${column} >= ${int(columns[1])}`,
      ][index]!,
    );
  }
  return `SELECT ${int(part)} AS part, floor((latitude + 90) / ${d})::integer AS tile_row,
                 floor((longitude + 180) / ${d})::integer AS tile_column,
                 1::bigint AS readings, confidence AS confidence_sum
            FROM dowsing_readings
           WHERE organization_id = $1::uuid AND mode = $2::text AND ${conditions.join(' AND ')}`;
}
