import { ApiProperty, IntersectionType, PickType } from '@nestjs/swagger';
import {
  FEW_VERIFIED,
  PATTERN_CANDIDATES,
  PATTERN_SIGNIFICANCE_LEVEL,
  PATTERN_WINDOW,
  PATTERNS_LISTED,
} from '#history';
import { IntegerQuery, NumberQuery } from '../../http/query-params.js';
import { RateDto } from '../../http/rate.dto.js';
import { HistorySearchFiltersDto } from '../history-search-filters.dto.js';
import { nullableRef } from '../../http/nullable-ref.js';

export const DEFAULT_MIN_SUPPORT = 5;
export const MAX_MIN_SUPPORT = 10_000;
export const DEFAULT_GRID_DEGREES = 1;
export const MIN_GRID_DEGREES = 0.1;
export const MAX_GRID_DEGREES = 10;

class PatternSettingsQueryDto {
  @IntegerQuery({
    minimum: 1,
    maximum: MAX_MIN_SUPPORT,
    default: DEFAULT_MIN_SUPPORT,
    description:
      'Fewest cases a descriptor or place must have to be listed, and fewest verified cases it needs for its hit rate to be tested (and counted in the correction’s family)',
  })
  min_support: number = DEFAULT_MIN_SUPPORT;

  @NumberQuery({
    minimum: MIN_GRID_DEGREES,
    maximum: MAX_GRID_DEGREES,
    default: DEFAULT_GRID_DEGREES,
    description:
      'Side of a place cell in degrees of latitude and of longitude (1° of latitude ≈ 111 km; cells narrow east–west away from the equator)',
  })
  grid_degrees: number = DEFAULT_GRID_DEGREES;
}

export class HistoryPatternsQueryDto extends IntersectionType(
  PickType(HistorySearchFiltersDto, ['type', 'date_from', 'date_to'] as const),
  PatternSettingsQueryDto,
) {}

const ADJUSTED = `Benjamini–Hochberg adjusted p-value within its family; significant below ${PATTERN_SIGNIFICANCE_LEVEL}`;

export class HistoryHitAssociationDto {
  @ApiProperty({
    type: RateDto,
    description:
      'Hits among its verified cases; `baseline` is the organisation’s hit rate over the window, `p_value` the exact one-sided binomial P(X ≥ hits | verified, baseline)',
  })
  hit_rate!: RateDto;

  @ApiProperty({
    minimum: 0,
    description:
      'hit_rate.value / the organisation’s hit rate — equally its share of the hits over its share of the verified cases. Above 1: hits come with it more often than usual.',
  })
  lift!: number;

  @ApiProperty({ minimum: 0, maximum: 1, description: 'Its hits / all hits in the window' })
  share_of_hits!: number;

  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description: 'Its verified cases / all verified cases in the window',
  })
  share_of_verified!: number;

  @ApiProperty({ minimum: 0, maximum: 1, description: ADJUSTED })
  p_adjusted!: number;

  @ApiProperty({ description: `p_adjusted < ${PATTERN_SIGNIFICANCE_LEVEL}` })
  significant!: boolean;
}

export class HistoryDescriptorPatternDto {
  @ApiProperty({ description: 'The descriptor, trimmed and lower-cased', example: 'water' })
  term!: string;

  @ApiProperty({
    type: RateDto,
    description:
      'Cases listing it (once per case) of all cases in the window; `baseline` is the share a uniform pick from the terms seen would give (term mentions / (cases × distinct terms)); not corrected (the tested pattern is the hit rate)',
  })
  share!: RateDto;

  @ApiProperty({
    ...nullableRef(HistoryHitAssociationDto),
    description:
      'Its hit rate against the organisation’s; null when fewer than min_support of its cases are verified, or the window has no hit rate to compare with',
  })
  hits!: HistoryHitAssociationDto | null;
}

export class HistoryDescriptorPatternsDto {
  @ApiProperty({ type: 'integer', description: 'Distinct terms listed in the window' })
  distinct_terms!: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Terms whose hit rate was tested (at least min_support verified cases): the family the correction counts',
  })
  family_size!: number;

  @ApiProperty({
    type: [HistoryDescriptorPatternDto],
    description: `Terms with at least min_support cases, the most significant hit association first (untested last), then the most cases; at most ${PATTERNS_LISTED}`,
  })
  patterns!: HistoryDescriptorPatternDto[];
}

class HistoryCellDto {
  @ApiProperty({ minimum: -90, maximum: 90 })
  south!: number;

  @ApiProperty({ minimum: -180, maximum: 180 })
  west!: number;

  @ApiProperty({ minimum: -90, maximum: 90 })
  north!: number;

  @ApiProperty({ minimum: -180, maximum: 180 })
  east!: number;
}

class HistoryCentroidDto {
  @ApiProperty({ minimum: -90, maximum: 90 })
  latitude!: number;

  @ApiProperty({ minimum: -180, maximum: 180 })
  longitude!: number;
}

export class HistoryPlacePatternDto {
  @ApiProperty({
    type: HistoryCellDto,
    description: 'The grid cell, in degrees: grid_degrees on each side, aligned to multiples of it',
  })
  cell!: HistoryCellDto;

  @ApiProperty({ type: HistoryCentroidDto, description: 'Mean position of the cell’s cases' })
  centroid!: HistoryCentroidDto;

  @ApiProperty({
    type: RateDto,
    description:
      'Its cases of all located cases in the window; `baseline` is a uniform spread over the occupied cells (1 / cells_occupied); not corrected',
  })
  share!: RateDto;

  @ApiProperty({
    ...nullableRef(HistoryHitAssociationDto),
    description:
      'Its hit rate against the organisation’s; null when fewer than min_support of its cases are verified, or the window has no hit rate to compare with',
  })
  hits!: HistoryHitAssociationDto | null;
}

export class HistoryPlacePatternsDto {
  @ApiProperty({ description: 'Side of a cell in degrees' })
  grid_degrees!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Cases with a location (the true one once verified, else where the work pointed)',
  })
  located!: number;

  @ApiProperty({ type: 'integer', description: 'Cells holding at least one case' })
  cells_occupied!: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Cells whose hit rate was tested (at least min_support verified cases): the family the correction counts',
  })
  family_size!: number;

  @ApiProperty({
    type: [HistoryPlacePatternDto],
    description: `Cells with at least min_support cases, the most significant hit association first (untested last), then the most cases; at most ${PATTERNS_LISTED}`,
  })
  patterns!: HistoryPlacePatternDto[];
}

export class HistoryTimeBucketDto {
  @ApiProperty({
    description:
      'A weekday (`monday`…), an hour of the day in UTC (`00`…`23`) or a month (`january`…)',
    example: 'monday',
  })
  bucket!: string;

  @ApiProperty({
    type: RateDto,
    description:
      'Its cases of all cases in the window; `baseline` is the uniform share: 1/7, 1/24, or the month’s days / 365.2425',
  })
  share!: RateDto;

  @ApiProperty({ minimum: 0, description: 'share.value / share.baseline' })
  lift!: number;

  @ApiProperty({ minimum: 0, maximum: 1, description: ADJUSTED })
  p_adjusted!: number;

  @ApiProperty({ description: `p_adjusted < ${PATTERN_SIGNIFICANCE_LEVEL}` })
  significant!: boolean;
}

export class HistoryTimePatternsDto {
  @ApiProperty({ enum: ['UTC'], description: 'Cases are bucketed by their date in UTC' })
  time_zone!: 'UTC';

  @ApiProperty({
    type: 'integer',
    description: 'Buckets corrected together: 7 weekdays + 24 hours + 12 months (0 with no cases)',
  })
  family_size!: number;

  @ApiProperty({ type: [HistoryTimeBucketDto], description: 'Monday first; empty with no cases' })
  weekday!: HistoryTimeBucketDto[];

  @ApiProperty({ type: [HistoryTimeBucketDto], description: 'Hour 00 first; empty with no cases' })
  hour!: HistoryTimeBucketDto[];

  @ApiProperty({ type: [HistoryTimeBucketDto], description: 'January first; empty with no cases' })
  month!: HistoryTimeBucketDto[];
}

export class HistoryPatternWindowDto {
  @ApiProperty({
    type: 'integer',
    description: `Newest cases of the filters looked at (${PATTERN_WINDOW.toLocaleString('en')})`,
  })
  limit!: number;

  @ApiProperty({
    description:
      'True when more cases match than the window holds: older ones are not looked at (narrow date_to to reach them)',
  })
  bounded!: boolean;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Date of the oldest case looked at',
  })
  first_date!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Date of the newest case looked at',
  })
  last_date!: string | null;
}

export class HistoryPatternsDto {
  @ApiProperty({ type: HistoryPatternWindowDto })
  window!: HistoryPatternWindowDto;

  @ApiProperty({
    enum: ['benjamini-hochberg'],
    description:
      'How p-values are corrected for looking at many patterns at once, within each family (descriptors, places, times): Benjamini–Hochberg, which keeps the expected share of false patterns among the significant ones at 5 % (see docs/history.md, "Patterns")',
  })
  correction!: 'benjamini-hochberg';

  @ApiProperty({ description: 'Adjusted p-values below this are significant' })
  significance_level!: number;

  @ApiProperty({ type: 'integer' })
  min_support!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Completed, unclassified cases looked at (classified cases never count)',
  })
  cases!: number;

  @ApiProperty({ type: 'integer', description: 'Of them, cases with a verified outcome' })
  verified!: number;

  @ApiProperty({
    ...nullableRef(RateDto),
    description:
      'Hits among verified cases — the baseline of every hit-rate lift — against the mean chance baseline the verified cases recorded; null when none is verified or none recorded a baseline',
  })
  hit_rate!: RateDto | null;

  @ApiProperty({ type: HistoryDescriptorPatternsDto })
  descriptors!: HistoryDescriptorPatternsDto;

  @ApiProperty({ type: HistoryPlacePatternsDto })
  places!: HistoryPlacePatternsDto;

  @ApiProperty({ type: HistoryTimePatternsDto })
  times!: HistoryTimePatternsDto;

  @ApiProperty({
    type: [String],
    description: `When there is too little to say much: no cases, no verified outcomes or fewer than ${FEW_VERIFIED}, no descriptors or locations, fewer than 120 cases for hourly shares, or a window that did not reach back over every match (at most ${PATTERN_CANDIDATES.toLocaleString('en')} terms and cells are considered, those with the most verified cases)`,
  })
  warnings!: string[];
}
