import { toPublicId } from '#common';
import type { Heatmap } from '#dowsing';
import type {
  HeatmapFeatureCollectionDto,
  HeatmapFeatureDto,
  HeatmapSummaryDto,
  HeatmapV2Dto,
} from './heatmap.dto.js';

function summary(heatmap: Heatmap): HeatmapSummaryDto {
  const { grid } = heatmap;
  return {
    source: heatmap.source,
    bounds: { ...heatmap.bounds },
    level: grid.level,
    cell_size_meters: grid.cellSizeMeters,
    grid: { rows: grid.rows, columns: grid.columns, cells: grid.cells },
    total_readings: heatmap.totalReadings,
    ...(heatmap.query && {
      query: { query_id: toPublicId('dowsing', heatmap.query.id), status: heatmap.query.status },
    }),
  };
}

/** The JSON answer: the grid and its non-empty cells. */
export function toHeatmapV2(heatmap: Heatmap): HeatmapV2Dto {
  return {
    ...summary(heatmap),
    cells: heatmap.cells.map((cell) => ({
      row: cell.row,
      column: cell.column,
      bounds: cell.bounds,
      count: cell.readings,
      mean_confidence: cell.meanConfidence,
    })),
  };
}

/** The GeoJSON answer (RFC 7946): a Polygon per non-empty cell, the rest under `heatmap`. */
export function toHeatmapGeoJson(heatmap: Heatmap): HeatmapFeatureCollectionDto {
  const { south, west, north, east } = heatmap.bounds;
  return {
    type: 'FeatureCollection',
    bbox: [west, south, east, north],
    features: heatmap.cells.map((cell): HeatmapFeatureDto => ({
      type: 'Feature',
      geometry: {
        type: 'Polygon',
        // Cells never cross the antimeridian (tiles stop at ±180), so the ring needs no splitting.
        coordinates: [
          [
            [cell.bounds.west, cell.bounds.south],
            [cell.bounds.east, cell.bounds.south],
            [cell.bounds.east, cell.bounds.north],
            [cell.bounds.west, cell.bounds.north],
            [cell.bounds.west, cell.bounds.south],
          ],
        ],
      },
      properties: {
        row: cell.row,
        column: cell.column,
        count: cell.readings,
        mean_confidence: cell.meanConfidence,
      },
    })),
    heatmap: summary(heatmap),
  };
}
