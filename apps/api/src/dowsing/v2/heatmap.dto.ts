import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsNumber,
  IsObject,
  IsString,
  Length,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { DOWSING_STATUSES, HEATMAP_SOURCES, MAX_HEATMAP_CELLS, type HeatmapSource } from '#dowsing';
import { Optional } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';
import { BoundingBoxDto, MAX_QUESTION_LENGTH } from '../dowsing-request.dto.js';
import { QUERY_ID } from '../v1/dowsing-v1.dto.js';

export const MIN_CELL_SIZE_METERS = 1;
export const MAX_CELL_SIZE_METERS = 40_000_000;
const CELL_SIZE = {
  message: `must be a number of meters between ${MIN_CELL_SIZE_METERS} and ${MAX_CELL_SIZE_METERS}`,
};
const FINITE = { allowNaN: false, allowInfinity: false };

export const GEOJSON_MEDIA_TYPE = 'application/geo+json';

export const HEATMAP_EXAMPLES: RequestExamples = {
  stored: {
    summary: 'Stored readings over central London in cells of about 300 m',
    value: {
      bounds: { south: 51.45, west: -0.25, north: 51.56, east: 0.0 },
      cell_size_meters: 500,
    },
  },
  scan: {
    summary: 'A fresh scan of a small box (stored as an energy map query)',
    value: {
      bounds: { south: 51.5, west: -0.13, north: 51.51, east: -0.11 },
      cell_size_meters: 150,
      source: 'scan',
    },
  },
  antimeridian: {
    summary: 'Stored readings across the antimeridian (east < west) around Fiji',
    value: {
      bounds: { south: -20, west: 175, north: -15, east: -178 },
      cell_size_meters: 20000,
    },
  },
};

/** Body of POST /v2/dowsing/heatmap. */
export class HeatmapRequestDto {
  // A bare reference (no description beside it, which would wrap it in allOf): the box's
  // fields say what they hold, and the operation that south < north and edges count.
  @ApiProperty({ type: BoundingBoxDto })
  @IsObject({ message: 'must be an object with south, west, north and east' })
  @ValidateNested()
  @Type(() => BoundingBoxDto)
  bounds!: BoundingBoxDto;

  @ApiProperty({
    minimum: MIN_CELL_SIZE_METERS,
    maximum: MAX_CELL_SIZE_METERS,
    example: 300,
    description: `Largest cell height wanted, meters. Cells are tiles of a fixed global grid — level z divides latitude and longitude into tiles of 180°/2^z — and the coarsest level whose tiles are no taller than this is used (so cells are between half this and this tall; \`cell_size_meters\` in the answer says how tall and how wide). At most ${MAX_HEATMAP_CELLS.toLocaleString('en')} tiles may meet the box; a larger number is refused naming this field with a size that fits as \`suggested_value\`.`,
  })
  @IsNumber(FINITE, CELL_SIZE)
  @Min(MIN_CELL_SIZE_METERS, CELL_SIZE)
  @Max(MAX_CELL_SIZE_METERS, CELL_SIZE)
  cell_size_meters!: number;

  @ApiPropertyOptional({
    enum: HEATMAP_SOURCES,
    default: 'stored',
    description:
      "`stored`: your organisation's located readings in the box, in the caller's mode (every reading of a completed query: a location answer, each point of a multi_point, each cell of an energy_map, each candidate…). `scan`: a fresh simulated energy map over the whole tiles the box meets — one map cell per tile, at most 100 × 100 — stored and announced like POST /v1/dowsing/energy-map (it needs `dowsing:write` as well), answered as its readings per tile.",
  })
  @Optional()
  @IsIn(HEATMAP_SOURCES, oneOf(HEATMAP_SOURCES))
  source?: HeatmapSource;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_QUESTION_LENGTH,
    example: 'Where in this area is the energy strongest?',
    description: "The scan's question (`source` `scan` only; default: the energy map's own)",
  })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_QUESTION_LENGTH, { message: `must be 1 to ${MAX_QUESTION_LENGTH} characters` })
  question?: string;
}

export class HeatmapBoundsDto {
  @ApiProperty({ minimum: -90, maximum: 90 })
  south!: number;

  @ApiProperty({ minimum: -180, maximum: 180 })
  west!: number;

  @ApiProperty({ minimum: -90, maximum: 90 })
  north!: number;

  @ApiProperty({
    minimum: -180,
    maximum: 180,
    description: 'Less than `west` across the antimeridian',
  })
  east!: number;
}

export class HeatmapCellSizeDto {
  @ApiProperty({ description: 'Tile height, meters: 20,015,114 m / 2^level' })
  north_south!: number;

  @ApiProperty({
    description:
      "Tile width along the box's middle parallel, meters (tiles narrow towards the poles)",
  })
  east_west!: number;
}

export class HeatmapGridDto {
  @ApiProperty({ type: 'integer', description: 'Rows of tiles the box meets' })
  rows!: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Columns of tiles the box meets (across the antimeridian, those west of it then those east of it)',
  })
  columns!: number;

  @ApiProperty({
    type: 'integer',
    maximum: MAX_HEATMAP_CELLS,
    description: 'rows × columns: every cell, empty or not',
  })
  cells!: number;
}

export class HeatmapScanQueryDto {
  @ApiProperty(QUERY_ID)
  query_id!: string;

  @ApiProperty({
    enum: DOWSING_STATUSES,
    description:
      '`completed` (cells follow), `failed` (no cells; GET /v2/dowsing/queries/{query_id} says why) or `pending` (analysts are answering it: no cells yet)',
  })
  status!: string;
}

/** What the JSON answer and the GeoJSON one share (the GeoJSON puts it under `heatmap`). */
export class HeatmapSummaryDto {
  @ApiProperty({ enum: HEATMAP_SOURCES })
  source!: string;

  @ApiProperty({
    type: HeatmapBoundsDto,
    description: '`stored`: the box asked. `scan`: the whole tiles the scan read.',
  })
  bounds!: HeatmapBoundsDto;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 25,
    description: 'Tile level: tiles of 180°/2^level of latitude and longitude',
  })
  level!: number;

  @ApiProperty({ type: HeatmapCellSizeDto })
  cell_size_meters!: HeatmapCellSizeDto;

  @ApiProperty({ type: HeatmapGridDto })
  grid!: HeatmapGridDto;

  @ApiProperty({ type: 'integer', description: 'Readings counted: the sum of the cells’ counts' })
  total_readings!: number;

  @ApiPropertyOptional({
    type: HeatmapScanQueryDto,
    description: 'A scan only: the energy map query it stored',
  })
  query?: HeatmapScanQueryDto;
}

export class HeatmapCellDto {
  @ApiProperty({ type: 'integer', description: 'Row in the grid, 0 = northernmost' })
  row!: number;

  @ApiProperty({ type: 'integer', description: 'Column in the grid, 0 = westernmost' })
  column!: number;

  @ApiProperty({ type: HeatmapBoundsDto, description: 'The tile, clipped to the box' })
  bounds!: HeatmapBoundsDto;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Readings in the cell' })
  count!: number;

  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description:
      "Mean of the readings' confidences (each its query's calibrated confidence for that place: for an energy map cell, the share of the map's readings that chose it, calibrated against 1/cells)",
  })
  mean_confidence!: number;
}

/** The JSON answer (the default). */
export class HeatmapV2Dto extends HeatmapSummaryDto {
  @ApiProperty({
    type: [HeatmapCellDto],
    description:
      'Cells with at least one reading (absent cells have none), north to south, then west to east',
  })
  cells!: HeatmapCellDto[];
}

export class HeatmapPolygonDto {
  @ApiProperty({ enum: ['Polygon'] })
  type!: 'Polygon';

  @ApiProperty({
    type: 'array',
    minItems: 1,
    maxItems: 1,
    items: {
      type: 'array',
      minItems: 5,
      maxItems: 5,
      items: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'number' } },
    },
    description:
      'One ring of [longitude, latitude]: south-west, south-east, north-east, north-west, south-west again (counter-clockwise, RFC 7946)',
  })
  coordinates!: number[][][];
}

export class HeatmapFeaturePropertiesDto {
  @ApiProperty({ type: 'integer' })
  row!: number;

  @ApiProperty({ type: 'integer' })
  column!: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  count!: number;

  @ApiProperty({ minimum: 0, maximum: 1 })
  mean_confidence!: number;
}

export class HeatmapFeatureDto {
  @ApiProperty({ enum: ['Feature'] })
  type!: 'Feature';

  @ApiProperty({ type: HeatmapPolygonDto, description: 'The cell: its tile clipped to the box' })
  geometry!: HeatmapPolygonDto;

  @ApiProperty({ type: HeatmapFeaturePropertiesDto, description: 'As the JSON answer’s cell' })
  properties!: HeatmapFeaturePropertiesDto;
}

/** The GeoJSON answer (Accept: application/geo+json). */
export class HeatmapFeatureCollectionDto {
  @ApiProperty({ enum: ['FeatureCollection'] })
  type!: 'FeatureCollection';

  @ApiProperty({
    type: [Number],
    minItems: 4,
    maxItems: 4,
    description:
      '[west, south, east, north] of `heatmap.bounds` (west > east across the antimeridian, RFC 7946 §5.2)',
  })
  bbox!: number[];

  @ApiProperty({
    type: [HeatmapFeatureDto],
    description: 'One Polygon per cell with at least one reading, in the JSON answer’s order',
  })
  features!: HeatmapFeatureDto[];

  @ApiProperty({ type: HeatmapSummaryDto, description: 'The JSON answer without its cells' })
  heatmap!: HeatmapSummaryDto;
}
