import { Injectable } from '@nestjs/common';
import { AppError, type Tenant } from '#common';
import type { BoundingBox, DowsingRequest } from '#engines';
import {
  DowsingReadingTilesRepository,
  type PartTileCount,
} from './dowsing-reading-tiles.repository.js';
import { DowsingReadingsRepository } from './dowsing-readings.repository.js';
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
  scanGrid,
  tileDegrees,
  type HeatmapGrid,
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

/**
 * Heatmaps of a tenant's located readings (heatmap-grid.ts says how cells
 * and reads are laid out): `stored` sums what is stored in the box; `scan`
 * asks a fresh energy map over the tiles the box meets, stored and announced
 * like any dowsing query, and answers its readings per tile.
 */
@Injectable()
export class HeatmapService {
  constructor(
    private readonly tiles: DowsingReadingTilesRepository,
    private readonly readings: DowsingReadingsRepository,
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
    const counts = await this.tiles.storedCells(tenant, grid);
    return heatmapOf('stored', grid.bounds, grid, counts, null);
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
    const query = await this.dowsing.create(tenant, { request: energyMap }, requestId);
    const counts = await this.readings.tilesOfQuery(tenant, query.id, tileDegrees(grid.level));
    const partOf = (column: number) =>
      Math.max(
        0,
        grid.parts.findIndex((p) => column >= p.columnMin && column <= p.columnMax),
      );
    return heatmapOf(
      'scan',
      scan.bounds,
      grid,
      counts.map((count) => ({ ...count, part: partOf(count.tileColumn) })),
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
  counts: PartTileCount[],
  query: DowsingQueryEntity | null,
): Heatmap {
  // Readings exactly on the north or east edge sit in the next tile: cellOf puts them back in
  // the box's last row or column, where they may join others.
  const cells = new Map<string, HeatmapCell & { confidenceSum: number }>();
  for (const count of counts) {
    const { readings } = count;
    if (readings === 0) continue;
    const cell = cellOf(grid, count.part, count.tileRow, count.tileColumn);
    const key = `${cell.row}/${cell.column}`;
    const found = cells.get(key);
    if (found) {
      found.readings += readings;
      found.confidenceSum += count.confidenceSum;
    } else {
      cells.set(key, {
        ...cell,
        readings,
        confidenceSum: count.confidenceSum,
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
