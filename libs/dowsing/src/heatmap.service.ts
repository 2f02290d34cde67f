import { Injectable } from '@nestjs/common';
import { AppError, type Tenant } from '#common';
import { Sql } from '#database';
import type { BoundingBox, DowsingRequest } from '#engines';
import { DowsingService } from './dowsing.service.js';
import type { DowsingQueryEntity } from './entities/dowsing-query.entity.js';
import {
  cellOf,
  cellSizeOfLevel,
  coarserLevelThatFits,
  heatmapGrid,
  levelForCellSize,
  MAX_HEATMAP_CELLS,
  MAX_SCAN_GRID,
  MAX_TILE_LEVEL,
  partPlan,
  scanGrid,
  tileDegrees,
  type HeatmapGrid,
  type ReadingStrip,
  type TilePart,
} from './heatmap-grid.js';

export const HEATMAP_SOURCES = ['stored', 'scan'] as const;
export type HeatmapSource = (typeof HEATMAP_SOURCES)[number];

export interface HeatmapRequest {
  bounds: BoundingBox;
  cellSizeMeters: number;
  source: HeatmapSource;
}

export interface HeatmapCell {
  /** Place in the grid: row 0 is the northernmost, column 0 the westernmost. */
  row: number;
  column: number;
  /** The tile, clipped to the box. */
  bounds: BoundingBox;
  readings: number;
  meanConfidence: number;
}

export interface Heatmap {
  source: HeatmapSource;
  /** The box counted: as asked (stored), or the whole tiles a scan read. */
  bounds: BoundingBox;
  grid: HeatmapGrid;
  /** Cells with at least one reading, north to south, then west to east. */
  cells: HeatmapCell[];
  totalReadings: number;
  /** The energy map a scan stored; null for stored readings. */
  query: DowsingQueryEntity | null;
}

interface CellRow {
  part: number;
  tile_row: number;
  tile_column: number;
  readings: number;
  confidence_sum: number;
}

/**
 * Heatmaps of a tenant's located readings (heatmap-grid.ts says how cells
 * and reads are laid out): `stored` sums what is stored in the box; `scan`
 * asks a fresh energy map over the tiles the box meets, stored and announced
 * like any dowsing query, and answers its readings per tile.
 */
@Injectable()
export class HeatmapService {
  constructor(
    private readonly sql: Sql,
    private readonly dowsing: DowsingService,
  ) {}

  /** The grid of a request, or a 400 naming the field (with a cell size that would do). */
  grid(request: HeatmapRequest): HeatmapGrid {
    const { bounds } = request;
    if (!(bounds.north > bounds.south)) {
      throw AppError.invalid('bounds.north', 'must be north of south');
    }
    if (bounds.east === bounds.west) {
      throw AppError.invalid(
        'bounds.east',
        'must differ from west (east < west crosses the antimeridian)',
      );
    }
    const level = levelForCellSize(request.cellSizeMeters);
    const grid = heatmapGrid(bounds, level);
    const scan = request.source === 'scan';
    // What a suggested size must satisfy: the cell bound, and for a scan an energy map's too.
    const fits = (g: HeatmapGrid) => g.cells <= MAX_HEATMAP_CELLS && (!scan || scanFits(g));
    if (grid.cells > MAX_HEATMAP_CELLS) {
      throw AppError.invalid(
        'cell_size_meters',
        `makes ${grid.cells.toLocaleString('en')} cells over this box (${grid.rows} × ${grid.columns} tiles of ${grid.cellSizeMeters.north_south} m); at most ${MAX_HEATMAP_CELLS.toLocaleString('en')}`,
        suggestedSize(coarserLevelThatFits(bounds, level, fits)),
      );
    }
    if (!scan) return grid;
    const { rows, columns } = scanGrid(grid);
    if (rows > MAX_SCAN_GRID || columns > MAX_SCAN_GRID) {
      throw AppError.invalid(
        'cell_size_meters',
        `makes a scan of ${rows} × ${columns} tiles; a scan is an energy map of at most ${MAX_SCAN_GRID} × ${MAX_SCAN_GRID}`,
        suggestedSize(coarserLevelThatFits(bounds, level, fits)),
      );
    }
    if (rows * columns < 2) {
      let finer: number | null = null;
      for (let candidate = level + 1; candidate <= MAX_TILE_LEVEL && finer === null; candidate++) {
        if (fits(heatmapGrid(bounds, candidate))) finer = candidate;
      }
      throw AppError.invalid(
        'cell_size_meters',
        'makes a scan of one tile; a scan needs at least 2',
        suggestedSize(finer),
      );
    }
    return grid;
  }

  /** The tenant's stored readings in the box, per cell. */
  async stored(tenant: Tenant, request: HeatmapRequest): Promise<Heatmap> {
    const grid = this.grid({ ...request, source: 'stored' });
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
      return (await tx.query<CellRow>(text, parameters)).rows;
    });
    return heatmapOf('stored', grid.bounds, grid, rows, null);
  }

  /**
   * A fresh energy map over the whole tiles the box meets (one cell per tile,
   * its reading at the tile's centre), stored and announced like any query;
   * the answer is that query's readings per tile.
   */
  async scan(
    tenant: Tenant,
    request: HeatmapRequest & { question: string },
    requestId: string | null,
  ): Promise<Heatmap> {
    const requested = this.grid({ ...request, source: 'scan' });
    const scan = scanGrid(requested);
    const grid = heatmapGrid(scan.bounds, requested.level);
    const energyMap: DowsingRequest = {
      queryType: 'location',
      question: request.question,
      precisionLevel: 'standard',
      context: {},
      input: {
        variant: 'energy_map',
        bounds: scan.bounds,
        grid: { rows: scan.rows, columns: scan.columns },
      },
    };
    const query = await this.dowsing.create(tenant, energyMap, requestId);
    const d = tileDegrees(grid.level);
    const rows = await this.sql.rows<Omit<CellRow, 'part'>>(
      `SELECT floor((latitude + 90) / $4::float8)::integer AS tile_row,
              floor((longitude + 180) / $4::float8)::integer AS tile_column,
              count(*)::float8 AS readings, sum(confidence) AS confidence_sum
         FROM dowsing_readings
        WHERE query_id = $1 AND organization_id = $2 AND mode = $3
        GROUP BY 1, 2`,
      [query.id, tenant.organizationId, tenant.mode, d],
    );
    const partOf = (column: number) =>
      Math.max(
        0,
        grid.parts.findIndex((p) => column >= p.columnMin && column <= p.columnMax),
      );
    return heatmapOf(
      'scan',
      scan.bounds,
      grid,
      rows.map((row) => ({ ...row, part: partOf(row.tile_column) })),
      query,
    );
  }
}

/** A scan is one energy map: at most 100 × 100 tiles, and at least 2. */
function scanFits(grid: HeatmapGrid): boolean {
  const { rows, columns } = scanGrid(grid);
  return rows <= MAX_SCAN_GRID && columns <= MAX_SCAN_GRID && rows * columns >= 2;
}

function suggestedSize(level: number | null): number | undefined {
  return level === null ? undefined : cellSizeOfLevel(level);
}

function heatmapOf(
  source: HeatmapSource,
  bounds: BoundingBox,
  grid: HeatmapGrid,
  rows: CellRow[],
  query: DowsingQueryEntity | null,
): Heatmap {
  // Readings exactly on the north or east edge sit in the next tile: cellOf puts them back in
  // the box's last row or column, where they may join others.
  const cells = new Map<string, HeatmapCell & { confidenceSum: number }>();
  for (const row of rows) {
    const readings = Number(row.readings);
    if (readings === 0) continue;
    const cell = cellOf(grid, row.part, row.tile_row, row.tile_column);
    const key = `${cell.row}/${cell.column}`;
    const found = cells.get(key);
    if (found) {
      found.readings += readings;
      found.confidenceSum += Number(row.confidence_sum);
    } else {
      cells.set(key, {
        ...cell,
        readings,
        confidenceSum: Number(row.confidence_sum),
        meanConfidence: 0,
      });
    }
  }
  const list = [...cells.values()]
    .sort((a, b) => a.row - b.row || a.column - b.column)
    .map(({ confidenceSum, ...cell }) => ({
      ...cell,
      meanConfidence: Math.round((confidenceSum / cell.readings) * 1e6) / 1e6,
    }));
  return {
    source,
    bounds,
    grid,
    cells: list,
    totalReadings: list.reduce((sum, cell) => sum + cell.readings, 0),
    query,
  };
}

/**
 * One statement: for each part of the box, the stored tiles of its plan and
 * the readings of its edge strips, each as (part, tile row, tile column,
 * readings, confidence sum) at the requested level, summed per tile.
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
