import { ApiProperty } from '@nestjs/swagger';
import { ENERGY_SIGNATURES, MATERIALS } from '#engines';

/** The `variant_result` of each v1 variant, one schema each (libs/engines dowsing-variant-results.ts). */

export class PointReadingDto {
  @ApiProperty()
  name!: string;

  @ApiProperty()
  latitude!: number;

  @ApiProperty()
  longitude!: number;

  @ApiProperty({ minimum: 0, maximum: 1, description: 'Share of the readings that chose it' })
  reading!: number;

  @ApiProperty({ minimum: 0, maximum: 1, description: 'The points’ confidences sum to 1' })
  confidence!: number;
}

export class MultiPointResultDto {
  @ApiProperty({ type: [PointReadingDto] })
  points!: PointReadingDto[];

  @ApiProperty({ description: 'Name of the point read strongest' })
  strongest!: string;
}

export class CellSizeDto {
  @ApiProperty()
  north_south!: number;

  @ApiProperty()
  east_west!: number;
}

export class EnergyGridDto {
  @ApiProperty({ type: 'integer' })
  rows!: number;

  @ApiProperty({ type: 'integer' })
  columns!: number;

  @ApiProperty({
    type: 'array',
    items: { type: 'array', items: { type: 'number', minimum: 0, maximum: 1 } },
    description: 'cells[row][column], row 0 northernmost, column 0 westernmost',
  })
  cells!: number[][];

  @ApiProperty({ type: CellSizeDto, description: 'Meters' })
  cell_size_meters!: CellSizeDto;
}

export class GridCellDto {
  @ApiProperty({ type: 'integer' })
  row!: number;

  @ApiProperty({ type: 'integer' })
  column!: number;

  @ApiProperty({ description: 'Centre of the cell' })
  latitude!: number;

  @ApiProperty()
  longitude!: number;
}

export class EnergyMapResultDto {
  @ApiProperty({ type: EnergyGridDto })
  grid!: EnergyGridDto;

  @ApiProperty({ type: GridCellDto })
  strongest_cell!: GridCellDto;
}

export class DepthAnalysisResultDto {
  @ApiProperty()
  depth_meters!: number;

  @ApiProperty({ type: [Number], minItems: 2, maxItems: 2, description: '[low, high], meters' })
  depth_interval_meters!: number[];
}

export class MaterialProbabilityDto {
  @ApiProperty({ enum: MATERIALS })
  material!: string;

  @ApiProperty({ minimum: 0, maximum: 1 })
  probability!: number;
}

export class MaterialIdentificationResultDto {
  @ApiProperty({
    type: [MaterialProbabilityDto],
    description: 'Ranked; the probabilities sum to exactly 1',
  })
  candidates!: MaterialProbabilityDto[];
}

export class OptionStrengthDto {
  @ApiProperty()
  option!: string;

  @ApiProperty({ minimum: 0, maximum: 1 })
  strength!: number;
}

export class ChartAnalysisResultDto {
  @ApiProperty()
  chosen_option!: string;

  @ApiProperty({ type: [OptionStrengthDto], description: 'The strengths sum to exactly 1' })
  option_strengths!: OptionStrengthDto[];
}

export class PlaceCandidateDto {
  @ApiProperty()
  latitude!: number;

  @ApiProperty()
  longitude!: number;

  @ApiProperty()
  accuracy_meters!: number;

  @ApiProperty({ minimum: 0, maximum: 1 })
  confidence!: number;
}

export class LocationFindingResultDto {
  @ApiProperty({ type: [PlaceCandidateDto], description: 'All inside the search area' })
  candidates!: PlaceCandidateDto[];
}

export class TimeWindowOutDto {
  @ApiProperty({ format: 'date-time' })
  from!: string;

  @ApiProperty({ format: 'date-time' })
  to!: string;
}

export class EnergyDetectionResultDto {
  @ApiProperty({ minimum: 0, maximum: 1 })
  signal_strength!: number;

  @ApiProperty({ enum: ENERGY_SIGNATURES })
  energy_signature!: string;

  @ApiProperty({ type: TimeWindowOutDto })
  window!: TimeWindowOutDto;
}

export const VARIANT_RESULT_DTOS = [
  MultiPointResultDto,
  EnergyMapResultDto,
  DepthAnalysisResultDto,
  MaterialIdentificationResultDto,
  ChartAnalysisResultDto,
  LocationFindingResultDto,
  EnergyDetectionResultDto,
];
