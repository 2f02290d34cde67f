import { ApiExtraModels, ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import {
  MAX_TEMPORAL_BUCKETS,
  MIN_TREND_BUCKETS,
  TEMPORAL_INTERVALS,
  type TemporalInterval,
} from '#dowsing';
import { CASE_TYPES } from '#history';
import { DEFAULT_TREND_SPAN, MIN_BUCKET_VERIFIED } from '#analytics';
import { TrendDto } from '../../dowsing/v2/temporal-analysis.dto.js';
import { HistorySearchFiltersDto } from '../../history/history-search-filters.dto.js';
import { Optional } from '../../http/dto-decorators.js';
import { RateDto } from '../../http/rate.dto.js';
import { oneOf } from '../../http/validation-messages.js';
import { nullableRef } from '../../http/nullable-ref.js';
import { CaseGroupDto, HIT_RATE, TypeGroupDto } from '../case-group.dto.js';

export const MAX_ANALYST_ID_LENGTH = 200;

/** Filters of GET /v1/history/analytics: those of the history search, plus an analyst. */
export class HistoryAnalyticsQueryDto extends PickType(HistorySearchFiltersDto, [
  'type',
  'date_from',
  'date_to',
] as const) {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_ANALYST_ID_LENGTH,
    example: 'analyst_01jh2x7v4ke8rbk3a8y0v0d7qz',
    description:
      'Only cases this analyst worked on (an entry of the case’s `analysts`, exactly); a case counts once however many analysts it names',
  })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_ANALYST_ID_LENGTH, { message: `must be 1 to ${MAX_ANALYST_ID_LENGTH} characters` })
  analyst_id?: string;
}

export class HistoryTrendsQueryDto extends HistoryAnalyticsQueryDto {
  @ApiPropertyOptional({
    enum: TEMPORAL_INTERVALS,
    default: 'month',
    description: `Bucket length, in UTC: a day, an ISO week (from Monday) or a calendar month. At most ${MAX_TEMPORAL_BUCKETS.toLocaleString('en')} buckets between date_from and date_to (more is refused naming \`interval\`, with a coarser one as \`suggested_value\`). Without date_to the series ends now; without date_from it starts ${DEFAULT_TREND_SPAN.day} days, ${DEFAULT_TREND_SPAN.week} weeks or ${DEFAULT_TREND_SPAN.month} months back.`,
  })
  @Optional()
  @IsIn(TEMPORAL_INTERVALS, oneOf(TEMPORAL_INTERVALS))
  interval?: TemporalInterval;
}

export class ModalityGroupDto extends CaseGroupDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The case’s `process.modality` (a session’s modality, an analysis type, a dowsing chart); null for cases without one',
  })
  modality!: string | null;
}

export class WorkStatusCountDto {
  @ApiProperty({ enum: ['completed', 'failed'], description: 'How the work ended' })
  work_status!: string;

  @ApiProperty({ type: 'integer' })
  cases!: number;
}

export class AnalyticsFiltersDto {
  @ApiProperty({ type: String, enum: [...CASE_TYPES, null], nullable: true })
  type!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Inclusive' })
  date_from!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Exclusive: the end of the given date_to (a date means its whole day)',
  })
  date_before!: string | null;

  @ApiProperty({ type: String, nullable: true })
  analyst_id!: string | null;
}

export class HistoryAnalyticsDto {
  @ApiProperty({ type: AnalyticsFiltersDto })
  filters!: AnalyticsFiltersDto;

  @ApiProperty({ type: CaseGroupDto, description: 'Every matching case together' })
  total!: CaseGroupDto;

  @ApiProperty({ type: [TypeGroupDto], description: 'Per type with cases, by type name' })
  by_type!: TypeGroupDto[];

  @ApiProperty({
    type: [ModalityGroupDto],
    description: 'Per modality with cases, by name (null last)',
  })
  by_modality!: ModalityGroupDto[];

  @ApiProperty({ type: [WorkStatusCountDto], description: 'Per work status with cases' })
  by_work_status!: WorkStatusCountDto[];
}

@ApiExtraModels(RateDto)
export class TrendBucketDto {
  @ApiProperty({ format: 'date-time' })
  start!: string;

  @ApiProperty({ format: 'date-time', description: 'Exclusive' })
  end!: string;

  @ApiProperty({
    description: 'False while the bucket is still running: the count trend leaves it out',
  })
  complete!: boolean;

  @ApiProperty({ type: 'integer', description: 'Cases dated in the bucket' })
  cases!: number;

  @ApiProperty({ type: 'integer', description: 'Of them, cases with a verdict' })
  verified!: number;

  @ApiProperty(HIT_RATE)
  hit_rate!: RateDto | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description: 'Mean confidence_score of the bucket’s cases that have one; null when none has',
  })
  mean_confidence!: number | null;
}

@ApiExtraModels(TrendDto)
export class HistoryTrendSetDto {
  @ApiProperty({
    ...nullableRef(TrendDto),
    description:
      'Trend of `cases` over the complete buckets (empty ones count 0); null with fewer than 3',
  })
  cases!: TrendDto | null;

  @ApiProperty({
    ...nullableRef(TrendDto),
    description:
      'Trend of the hit rate’s `value` over the buckets with verified cases, each at its place in time; null with fewer than 3',
  })
  hit_rate!: TrendDto | null;

  @ApiProperty({
    ...nullableRef(TrendDto),
    description:
      'Trend of `mean_confidence` over the buckets that have one; null with fewer than 3',
  })
  mean_confidence!: TrendDto | null;
}

export class HistoryTrendsDto {
  @ApiProperty({ enum: TEMPORAL_INTERVALS })
  interval!: string;

  @ApiProperty({
    type: AnalyticsFiltersDto,
    description: 'The range and filters the series covers',
  })
  filters!: AnalyticsFiltersDto;

  @ApiProperty({
    type: [TrendBucketDto],
    description: 'Every bucket of the range, oldest first, empty ones included',
  })
  buckets!: TrendBucketDto[];

  @ApiProperty({
    type: HistoryTrendSetDto,
    description: 'Mann–Kendall trends with Sen’s slope per interval',
  })
  trends!: HistoryTrendSetDto;

  @ApiProperty({
    type: String,
    nullable: true,
    description: `Why the trends say little: fewer than ${MIN_TREND_BUCKETS} buckets to test (Mann–Kendall cannot reach p < 0.05 with 4), or half the buckets with verified cases holding fewer than ${MIN_BUCKET_VERIFIED}; null when neither`,
  })
  warning!: string | null;
}
