import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDateString,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  Length,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  CHART_TYPES,
  DOWSING_QUERY_TYPES,
  PRECISION_LEVELS,
  TIMEFRAMES,
  type ChartType,
  type DowsingQueryType,
  type PrecisionLevel,
  type Timeframe,
} from '#engines';
import { DEFAULT_DOWSING_DURATION_MINUTES } from '#dowsing';
import { WithWorkTasking } from '../assignments/work-tasking.dto.js';
import { Optional } from '../http/dto-decorators.js';
import { oneOf } from '../http/validation-messages.js';

export const MAX_QUESTION_LENGTH = 1000;
/** The search circle's radius: 1 m to 100 km. */
export const MIN_RADIUS_METERS = 1;
export const MAX_RADIUS_METERS = 100_000;
export const MAX_GRID = 100;
export const MAX_PARAMETER_KEYS = 50;
export const MAX_PARAMETERS_BYTES = 8 * 1024;

const LATITUDE = { message: 'must be a number between -90 and 90' };
const LONGITUDE = { message: 'must be a number between -180 and 180' };
const RADIUS = {
  message: `must be a number of meters between ${MIN_RADIUS_METERS} and ${MAX_RADIUS_METERS}`,
};
const FINITE = { allowNaN: false, allowInfinity: false };
const QUESTION = { message: `must be 1 to ${MAX_QUESTION_LENGTH} characters` };

export class PointDto {
  @ApiProperty({ minimum: -90, maximum: 90, example: 51.5074 })
  @IsNumber(FINITE, LATITUDE)
  @Min(-90, LATITUDE)
  @Max(90, LATITUDE)
  latitude!: number;

  @ApiProperty({ minimum: -180, maximum: 180, example: -0.1278 })
  @IsNumber(FINITE, LONGITUDE)
  @Min(-180, LONGITUDE)
  @Max(180, LONGITUDE)
  longitude!: number;
}

export class SearchCircleDto extends PointDto {
  @ApiProperty({ minimum: MIN_RADIUS_METERS, maximum: MAX_RADIUS_METERS, example: 500 })
  @IsNumber(FINITE, RADIUS)
  @Min(MIN_RADIUS_METERS, RADIUS)
  @Max(MAX_RADIUS_METERS, RADIUS)
  radius_meters!: number;
}

export class DowsingContextDto {
  @ApiPropertyOptional({
    type: SearchCircleDto,
    description: 'The search circle; required for `location` queries, whose answers stay inside it',
  })
  @Optional()
  @IsObject({ message: 'must be an object with latitude, longitude and radius_meters' })
  @ValidateNested()
  @Type(() => SearchCircleDto)
  location?: SearchCircleDto;

  @ApiPropertyOptional({ enum: TIMEFRAMES })
  @Optional()
  @IsIn(TIMEFRAMES, oneOf(TIMEFRAMES))
  timeframe?: Timeframe;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: `Free-form parameters, at most ${MAX_PARAMETER_KEYS} keys and ${MAX_PARAMETERS_BYTES / 1024} KiB as JSON. \`options\` (2–100 strings) makes an \`information\` query choose among them.`,
    example: { options: ['north well', 'south well', 'east well'] },
  })
  @Optional()
  @IsObject({ message: 'must be an object' })
  parameters?: Record<string, unknown>;
}

/** Bounds of `duration_minutes`: a minute to a week. */
export const MIN_DOWSING_MINUTES = 1;
export const MAX_DOWSING_MINUTES = 10_080;
const DURATION = {
  message: `must be an integer from ${MIN_DOWSING_MINUTES} to ${MAX_DOWSING_MINUTES}`,
};

class DowsingBaseDto {}

/** What every dowsing body may carry besides its own fields, with how people are to answer it. */
class DowsingCommonDto extends WithWorkTasking(DowsingBaseDto) {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: MIN_DOWSING_MINUTES,
    maximum: MAX_DOWSING_MINUTES,
    default: DEFAULT_DOWSING_DURATION_MINUTES,
    description:
      'With the `analyst` engine: minutes the analysts have; the deadline (docs/analysts.md). Ignored by the simulator.',
  })
  @Optional()
  @IsInt(DURATION)
  @Min(MIN_DOWSING_MINUTES, DURATION)
  @Max(MAX_DOWSING_MINUTES, DURATION)
  duration_minutes?: number;

  @ApiPropertyOptional({
    type: DowsingContextDto,
    description: 'Location, timeframe and free parameters of the question',
  })
  @Optional()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => DowsingContextDto)
  context?: DowsingContextDto;

  @ApiPropertyOptional({
    enum: PRECISION_LEVELS,
    default: 'standard',
    description:
      'More readings per answer (12, 24, 48) and a tighter `accuracy_meters` (a quarter, a tenth, a twentieth of the radius)',
  })
  @Optional()
  @IsIn(PRECISION_LEVELS, oneOf(PRECISION_LEVELS))
  precision_level?: PrecisionLevel;
}

/** A variant's question, optional: each variant has a sensible default. */
class OptionalQuestionDto extends DowsingCommonDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: MAX_QUESTION_LENGTH })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_QUESTION_LENGTH, QUESTION)
  question?: string;
}

/** Body of POST /v1/dowsing/query: the spec's fields. */
export class DowsingQueryDto extends DowsingCommonDto {
  @ApiProperty({ enum: DOWSING_QUERY_TYPES })
  @IsIn(DOWSING_QUERY_TYPES, oneOf(DOWSING_QUERY_TYPES))
  query_type!: DowsingQueryType;

  @ApiProperty({ minLength: 1, maxLength: MAX_QUESTION_LENGTH, example: 'Is there water here?' })
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_QUESTION_LENGTH, QUESTION)
  question!: string;
}

export class NamedPointDto extends PointDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'north gate' })
  @IsString({ message: 'must be a string' })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  name!: string;
}

export class MultiPointDto extends OptionalQuestionDto {
  @ApiProperty({ type: [NamedPointDto], minItems: 2, maxItems: 50 })
  @IsArray({ message: 'must be an array of named points' })
  @ArrayMinSize(2, { message: 'must hold at least 2 points' })
  @ArrayMaxSize(50, { message: 'can hold at most 50 points' })
  @ValidateNested({ each: true })
  @Type(() => NamedPointDto)
  points!: NamedPointDto[];
}

export class BoundingBoxDto {
  @ApiProperty({ minimum: -90, maximum: 90, example: 51.5 })
  @IsNumber(FINITE, LATITUDE)
  @Min(-90, LATITUDE)
  @Max(90, LATITUDE)
  south!: number;

  @ApiProperty({ minimum: -180, maximum: 180, example: -0.13 })
  @IsNumber(FINITE, LONGITUDE)
  @Min(-180, LONGITUDE)
  @Max(180, LONGITUDE)
  west!: number;

  @ApiProperty({ minimum: -90, maximum: 90, example: 51.51 })
  @IsNumber(FINITE, LATITUDE)
  @Min(-90, LATITUDE)
  @Max(90, LATITUDE)
  north!: number;

  @ApiProperty({
    minimum: -180,
    maximum: 180,
    example: -0.11,
    description: 'East edge; less than `west` for a box across the antimeridian',
  })
  @IsNumber(FINITE, LONGITUDE)
  @Min(-180, LONGITUDE)
  @Max(180, LONGITUDE)
  east!: number;
}

const GRID = { message: `must be an integer between 1 and ${MAX_GRID}` };

export class GridDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_GRID, example: 10 })
  @IsInt(GRID)
  @Min(1, GRID)
  @Max(MAX_GRID, GRID)
  rows!: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_GRID, example: 10 })
  @IsInt(GRID)
  @Min(1, GRID)
  @Max(MAX_GRID, GRID)
  columns!: number;
}

export class EnergyMapDto extends OptionalQuestionDto {
  @ApiProperty({ type: BoundingBoxDto })
  @IsObject({ message: 'must be an object with south, west, north and east' })
  @ValidateNested()
  @Type(() => BoundingBoxDto)
  bounds!: BoundingBoxDto;

  @ApiProperty({ type: GridDto, description: `Up to ${MAX_GRID} × ${MAX_GRID} cells` })
  @IsObject({ message: 'must be an object with rows and columns' })
  @ValidateNested()
  @Type(() => GridDto)
  grid!: GridDto;
}

const DEPTH = { message: 'must be a number of meters between 1 and 10000' };

export class DepthAnalysisDto extends OptionalQuestionDto {
  @ApiProperty({ type: PointDto })
  @IsObject({ message: 'must be an object with latitude and longitude' })
  @ValidateNested()
  @Type(() => PointDto)
  point!: PointDto;

  @ApiPropertyOptional({ minimum: 1, maximum: 10_000, default: 100 })
  @Optional()
  @IsNumber(FINITE, DEPTH)
  @Min(1, DEPTH)
  @Max(10_000, DEPTH)
  max_depth_meters?: number;
}

export class MaterialIdentificationDto extends OptionalQuestionDto {
  @ApiPropertyOptional({
    type: PointDto,
    description: 'Where; send a point, a sample description, or both',
  })
  @Optional()
  @IsObject({ message: 'must be an object with latitude and longitude' })
  @ValidateNested()
  @Type(() => PointDto)
  point?: PointDto;

  @ApiPropertyOptional({ minLength: 1, maxLength: 1000, example: 'grey powder from the cellar' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Length(1, 1000, { message: 'must be 1 to 1000 characters' })
  sample_description?: string;

  @ApiPropertyOptional({
    type: [String],
    minItems: 2,
    maxItems: 50,
    description:
      'Materials to choose among, from the vocabulary water, iron, copper, gold, silver, limestone, granite, clay, oil, void (default: all of them)',
  })
  @Optional()
  @IsArray({ message: 'must be an array of materials' })
  @ArrayMinSize(2, { message: 'must hold at least 2 materials' })
  @ArrayMaxSize(50, { message: 'can hold at most 50 materials' })
  @ArrayUnique({ message: 'must not repeat a material' })
  @IsString({ each: true, message: 'must hold strings' })
  @Length(1, 100, { each: true, message: 'each must be 1 to 100 characters' })
  candidates?: string[];
}

export class ChartAnalysisDto extends DowsingCommonDto {
  @ApiProperty({
    minLength: 1,
    maxLength: MAX_QUESTION_LENGTH,
    example: 'Which well holds water?',
  })
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_QUESTION_LENGTH, QUESTION)
  question!: string;

  @ApiPropertyOptional({ enum: CHART_TYPES, default: 'pendulum' })
  @Optional()
  @IsIn(CHART_TYPES, oneOf(CHART_TYPES))
  chart_type?: ChartType;

  @ApiProperty({
    type: [String],
    minItems: 2,
    maxItems: 100,
    description: 'The options of the chart',
  })
  @IsArray({ message: 'must be an array of options' })
  @ArrayMinSize(2, { message: 'must hold at least 2 options' })
  @ArrayMaxSize(100, { message: 'can hold at most 100 options' })
  @ArrayUnique({ message: 'must not repeat an option' })
  @IsString({ each: true, message: 'must hold strings' })
  @Length(1, 200, { each: true, message: 'each must be 1 to 200 characters' })
  options!: string[];
}

export class LocationFindingDto extends OptionalQuestionDto {
  @ApiProperty({ type: SearchCircleDto, description: 'The search area' })
  @IsObject({ message: 'must be an object with latitude, longitude and radius_meters' })
  @ValidateNested()
  @Type(() => SearchCircleDto)
  area!: SearchCircleDto;

  @ApiProperty({ minLength: 1, maxLength: 1000, example: 'the lost wedding ring' })
  @IsString({ message: 'must be a string' })
  @Length(1, 1000, { message: 'must be 1 to 1000 characters' })
  sought!: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 10, default: 3 })
  @Optional()
  @IsInt({ message: 'must be an integer between 1 and 10' })
  @Min(1, { message: 'must be an integer between 1 and 10' })
  @Max(10, { message: 'must be an integer between 1 and 10' })
  max_candidates?: number;
}

export class TimeWindowDto {
  @ApiProperty({ format: 'date-time', example: '2026-11-01T00:00:00Z' })
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date or date-time' })
  from!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-08T00:00:00Z' })
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date or date-time' })
  to!: string;
}

export class EnergyDetectionDto extends OptionalQuestionDto {
  @ApiProperty({ type: PointDto })
  @IsObject({ message: 'must be an object with latitude and longitude' })
  @ValidateNested()
  @Type(() => PointDto)
  point!: PointDto;

  @ApiProperty({ type: TimeWindowDto, description: 'The time window to read' })
  @IsObject({ message: 'must be an object with from and to' })
  @ValidateNested()
  @Type(() => TimeWindowDto)
  window!: TimeWindowDto;
}
