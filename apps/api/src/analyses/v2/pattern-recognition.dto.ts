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
  IsObject,
  IsString,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { MAX_PATTERN_ITEMS } from '#analyses';
import { SESSION_TYPES } from '#common';
import { ANALYSIS_TARGET_TYPES } from '#engines';
import { Optional } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';

const KINDS = ['session', 'analysis'] as const;
const WORK_TYPES = [...SESSION_TYPES, ...ANALYSIS_TARGET_TYPES] as const;
const CORRECTIONS = ['holm', 'benjamini-hochberg'] as const;
const DATE = { message: 'must be an ISO 8601 date or date-time' };
const RADIUS = { message: 'must be an integer between 10 and 1000000 (meters)' };
const MIN_SUPPORT = { message: 'must be an integer between 1 and 10000' };
const MIN_CLUSTER = { message: 'must be an integer between 2 and 1000' };

export const PATTERN_RECOGNITION_EXAMPLES: RequestExamples = {
  everything: {
    summary: 'All your finished sessions and analyses',
    value: {},
  },
  filtered: {
    summary: 'Finished location analyses of 2026, clustered within 2 km',
    value: {
      filter: { kinds: ['analysis'], type: 'location', date_from: '2026-01-01' },
      cluster_radius_meters: 2000,
      min_cluster_size: 3,
      correction: 'benjamini-hochberg',
    },
  },
};

export class PatternFilterDto {
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...KINDS] },
    description: 'Kinds of work (default both)',
  })
  @Optional()
  @IsArray({ message: 'must be an array of kinds' })
  @ArrayMinSize(1, { message: 'must hold at least one kind' })
  @ArrayUnique({ message: 'must not repeat a kind' })
  @IsIn(KINDS, { each: true, ...oneOf(KINDS) })
  kinds?: ('session' | 'analysis')[];

  @ApiPropertyOptional({
    enum: WORK_TYPES,
    description: 'A session type or an analysis target type',
  })
  @Optional()
  @IsIn(WORK_TYPES, oneOf(WORK_TYPES))
  type?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Created at or after' })
  @Optional()
  @IsDateString({ strict: true }, DATE)
  date_from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Created at or before' })
  @Optional()
  @IsDateString({ strict: true }, DATE)
  date_to?: string;
}

/** Body of POST /v2/analysis/pattern-recognition. */
export class PatternRecognitionDto {
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', example: 'anal_01jh2x7v4ke8rbk3a8y0v0d7qz' },
    maxItems: MAX_PATTERN_ITEMS,
    description: `Explicit ids of completed sessions (sess_…) and analyses (anal_…), at most ${MAX_PATTERN_ITEMS.toLocaleString('en')}. Send either items or filter.`,
  })
  @Optional()
  @IsArray({ message: 'must be an array of ids' })
  @ArrayMinSize(1, { message: 'must hold at least one id' })
  @ArrayMaxSize(MAX_PATTERN_ITEMS, {
    message: `can hold at most ${MAX_PATTERN_ITEMS} ids`,
  })
  @ArrayUnique({ message: 'must not repeat an id' })
  @IsString({ each: true, message: 'must hold id strings' })
  items?: string[];

  @ApiPropertyOptional({
    type: PatternFilterDto,
    description: `Which finished work to look at (default: all of it, at most ${MAX_PATTERN_ITEMS.toLocaleString('en')} items)`,
  })
  @Optional()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => PatternFilterDto)
  filter?: PatternFilterDto;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 10_000,
    default: 2,
    description: 'Fewest items a descriptor must appear in to be tested',
  })
  @Optional()
  @IsInt(MIN_SUPPORT)
  @Min(1, MIN_SUPPORT)
  @Max(10_000, MIN_SUPPORT)
  min_support?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 10,
    maximum: 1_000_000,
    default: 5000,
    description: 'DBSCAN neighbourhood radius (eps), meters, by great-circle distance',
  })
  @Optional()
  @IsInt(RADIUS)
  @Min(10, RADIUS)
  @Max(1_000_000, RADIUS)
  cluster_radius_meters?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 2,
    maximum: 1000,
    default: 3,
    description: 'DBSCAN minPts: items within the radius that make a cluster core',
  })
  @Optional()
  @IsInt(MIN_CLUSTER)
  @Min(2, MIN_CLUSTER)
  @Max(1000, MIN_CLUSTER)
  min_cluster_size?: number;

  @ApiPropertyOptional({
    enum: CORRECTIONS,
    default: 'holm',
    description:
      'Multiple-comparison correction of the descriptor tests: Holm controls the family-wise error rate, Benjamini–Hochberg the false discovery rate',
  })
  @Optional()
  @IsIn(CORRECTIONS, oneOf(CORRECTIONS))
  correction?: (typeof CORRECTIONS)[number];
}

export class RecurringDescriptorDto {
  @ApiProperty({ example: 'water' })
  term!: string;

  @ApiProperty({ type: 'integer', description: 'Items that list it' })
  support!: number;

  @ApiProperty({ description: 'support / n_items' })
  share!: number;

  @ApiProperty({ description: 'The share chance alone gives (baseline_share)' })
  expected_share!: number;

  @ApiProperty({ description: 'share / expected_share' })
  lift!: number;

  @ApiProperty({ description: 'Exact one-sided binomial P(X ≥ support | n_items, expected_share)' })
  p_value!: number;

  @ApiProperty({ description: 'p_value adjusted by `correction` across the vocabulary' })
  p_adjusted!: number;

  @ApiProperty({ description: 'p_adjusted < 0.05' })
  significant!: boolean;
}

export class DescriptorPatternsDto {
  @ApiProperty({ type: 'integer', description: 'Items that list any descriptor' })
  n_items!: number;

  @ApiProperty({
    description:
      'Chance that an item lists a given term if its terms were a uniform pick from the controlled vocabulary: the mean over items of (terms listed / vocabulary size)',
  })
  baseline_share!: number;

  @ApiProperty({ enum: CORRECTIONS })
  correction!: string;

  @ApiProperty({ type: 'integer' })
  min_support!: number;

  @ApiProperty({ type: 'integer', description: 'Hypotheses the correction counted' })
  family_size!: number;

  @ApiProperty({ type: [RecurringDescriptorDto], description: 'By p_value, then term' })
  terms!: RecurringDescriptorDto[];
}

export class PatternPointDto {
  @ApiProperty()
  latitude!: number;

  @ApiProperty()
  longitude!: number;
}

export class SpatialClusterDto {
  @ApiProperty({ type: 'integer' })
  size!: number;

  @ApiProperty({ type: PatternPointDto, description: 'Geometric median of its members' })
  centroid!: PatternPointDto;

  @ApiProperty({ description: 'Largest member distance from the centroid' })
  radius_meters!: number;

  @ApiProperty({
    description:
      'Monte Carlo: share of uniform scatters over the same bounding box whose largest cluster is at least this big (already adjusted for looking at every cluster)',
  })
  p_value!: number;

  @ApiProperty()
  significant!: boolean;

  @ApiProperty({ type: [String], description: 'Up to 20 of its items' })
  item_ids!: string[];
}

export class SpatialPatternsDto {
  @ApiProperty({ type: 'integer', description: 'Items with coordinates' })
  n_points!: number;

  @ApiProperty({ type: 'integer' })
  radius_meters!: number;

  @ApiProperty({ type: 'integer' })
  min_cluster_size!: number;

  @ApiProperty({ type: 'integer', description: 'Points in no cluster' })
  noise!: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Uniform scatters the clusters were tested against: 99 up to 2,000 points (smallest p-value 0.01), 39 above (0.025), 0 when no cluster could form',
  })
  replicates!: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Median size of the largest cluster in uniform scatters: what chance alone forms',
  })
  null_largest_median!: number | null;

  @ApiProperty({ type: [SpatialClusterDto], description: 'Largest first' })
  clusters!: SpatialClusterDto[];
}

export class TimeConcentrationDto {
  @ApiProperty({ type: [Number] })
  counts!: number[];

  @ApiProperty({ description: "Pearson's X² against equal cells" })
  statistic!: number;

  @ApiProperty({ type: 'integer' })
  df!: number;

  @ApiProperty()
  p_value!: number;

  @ApiProperty({
    enum: ['chi_square', 'monte_carlo'],
    description: '`monte_carlo` when fewer than 5 items are expected per cell',
  })
  method!: string;

  @ApiProperty()
  significant!: boolean;

  @ApiProperty({ type: String, nullable: true, description: 'The busiest cell' })
  peak!: string | null;
}

export class TimePatternsDto {
  @ApiProperty({ enum: ['UTC'] })
  time_zone!: string;

  @ApiProperty({ type: TimeConcentrationDto, description: 'Seven cells, Monday first' })
  weekday!: TimeConcentrationDto;

  @ApiProperty({ type: TimeConcentrationDto, description: 'Twenty-four cells, hour 0 first' })
  hour!: TimeConcentrationDto;
}

export class ItemsByKindDto {
  @ApiProperty({ type: 'integer' })
  session!: number;

  @ApiProperty({ type: 'integer' })
  analysis!: number;
}

export class PatternRecognitionResultDto {
  @ApiProperty({ type: 'integer' })
  item_count!: number;

  @ApiProperty({ type: ItemsByKindDto })
  items_by_kind!: ItemsByKindDto;

  @ApiProperty({ type: DescriptorPatternsDto })
  descriptors!: DescriptorPatternsDto;

  @ApiProperty({ type: SpatialPatternsDto })
  spatial_clusters!: SpatialPatternsDto;

  @ApiProperty({ type: TimePatternsDto, description: 'When the work was requested' })
  time_patterns!: TimePatternsDto;

  @ApiProperty({ type: [String], description: 'What the figures cannot say, and why' })
  warnings!: string[];
}
