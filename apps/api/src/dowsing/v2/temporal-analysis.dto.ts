import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsOptional, IsString, Length } from 'class-validator';
import {
  MAX_TEMPORAL_BUCKETS,
  MIN_BUCKET_QUERIES,
  MIN_TREND_BUCKETS,
  TEMPORAL_INTERVALS,
  type TemporalInterval,
} from '#dowsing';
import { DOWSING_QUERY_TYPES, type DowsingQueryType } from '#engines';
import { MANN_KENDALL_EXACT_MAX_N } from '#statistics';
import { NumberQuery } from '../../http/query-params.js';
import { RateDto } from '../../http/rate.dto.js';
import { oneOf } from '../../http/validation-messages.js';
import { MAX_QUESTION_LENGTH } from '../dowsing-request.dto.js';
import { nullableRef } from '../../http/nullable-ref.js';

export const MAX_AREA_RADIUS_METERS = 20_000_000;
const DATE = { message: 'must be an ISO 8601 date or date-time' };

/** Query of GET /v2/dowsing/temporal-analysis. */
export class TemporalAnalysisQueryDto {
  @ApiProperty({
    enum: TEMPORAL_INTERVALS,
    description: 'Bucket length, in UTC: a day, an ISO week (from Monday) or a calendar month',
  })
  @IsIn(TEMPORAL_INTERVALS, oneOf(TEMPORAL_INTERVALS))
  interval!: TemporalInterval;

  @ApiProperty({
    format: 'date-time',
    example: '2026-01-01',
    description: `Queries created at or after this; the window starts at the start of its bucket. At most ${MAX_TEMPORAL_BUCKETS.toLocaleString('en')} buckets from date_from to date_to (more is refused naming \`interval\` with a coarser one as \`suggested_value\`, or \`date_from\`).`,
  })
  @IsDateString({ strict: true }, DATE)
  date_from!: string;

  @ApiProperty({
    format: 'date-time',
    example: '2026-12-31',
    description: 'Queries created at or before this; the window ends at the end of its bucket',
  })
  @IsDateString({ strict: true }, DATE)
  date_to!: string;

  @NumberQuery({
    minimum: -90,
    maximum: 90,
    example: 51.5074,
    description:
      'Area: queries with a located reading (an answer point, a map cell, a candidate…) within `radius_meters` of this point; send latitude, longitude and radius_meters together. Send an area, a question, or both.',
  })
  latitude?: number;

  @NumberQuery({ minimum: -180, maximum: 180, example: -0.1278, description: 'Area: see latitude' })
  longitude?: number;

  @NumberQuery({
    minimum: 1,
    maximum: MAX_AREA_RADIUS_METERS,
    example: 5000,
    description: 'Area: great-circle distance from the point, meters',
  })
  radius_meters?: number;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_QUESTION_LENGTH,
    example: 'Where in this area is the energy strongest?',
    description: 'Queries asking exactly this, ignoring case',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_QUESTION_LENGTH, { message: `must be 1 to ${MAX_QUESTION_LENGTH} characters` })
  question?: string;

  @ApiPropertyOptional({ enum: DOWSING_QUERY_TYPES })
  @IsOptional()
  @IsIn(DOWSING_QUERY_TYPES, oneOf(DOWSING_QUERY_TYPES))
  query_type?: DowsingQueryType;
}

export class TemporalWindowDto {
  @ApiProperty({ format: 'date-time', description: 'Start of the first bucket' })
  from!: string;

  @ApiProperty({ format: 'date-time', description: 'End of the last bucket (exclusive)' })
  to!: string;
}

export class TemporalAreaDto {
  @ApiProperty()
  latitude!: number;

  @ApiProperty()
  longitude!: number;

  @ApiProperty()
  radius_meters!: number;
}

@ApiExtraModels(TemporalAreaDto)
export class TemporalFiltersDto {
  @ApiProperty({ type: String, nullable: true })
  question!: string | null;

  @ApiProperty(nullableRef(TemporalAreaDto))
  area!: TemporalAreaDto | null;

  @ApiProperty({ type: String, enum: [...DOWSING_QUERY_TYPES, null], nullable: true })
  query_type!: string | null;
}

@ApiExtraModels(RateDto)
export class TemporalBucketDto {
  @ApiProperty({ format: 'date-time' })
  start!: string;

  @ApiProperty({ format: 'date-time', description: 'Exclusive' })
  end!: string;

  @ApiProperty({
    description:
      'False while the bucket is still running (its end is in the future): its count is still growing, so the count trend leaves it out',
  })
  complete!: boolean;

  @ApiProperty({ type: 'integer', description: 'Completed queries created in the bucket' })
  count!: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description:
      "Mean of the queries' confidence (each a calibrated hit rate, (hits + 2·p0)/(n + 2)); null without queries",
  })
  mean_confidence!: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description:
      "Mean of the queries' chance baselines p0: the mean confidence chance alone would give them (variants differ: 1/3 for yes/no, 1/cells for an energy map…); null without queries",
  })
  mean_baseline!: number | null;

  @ApiProperty({
    ...nullableRef(RateDto),
    description:
      'Queries whose own exact binomial test beat chance at p < 0.05, as a rate against the 5 % that chance alone gives (at most: the tests are discrete); null without queries',
  })
  significant_share!: RateDto | null;
}

export class TrendDto {
  @ApiProperty({ enum: ['mann_kendall'] })
  method!: string;

  @ApiProperty({ type: 'integer', description: 'Buckets in the series' })
  n!: number;

  @ApiProperty({ type: 'integer', description: 'S = Σ sgn(x_j − x_i) over the buckets i < j' })
  s!: number;

  @ApiProperty({
    description: 'Var S with no trend, corrected for ties: [n(n−1)(2n+5) − Σ t(t−1)(2t+5)] / 18',
  })
  variance!: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: '(S − sgn S)/√Var S, the normal approximation; null when the p-value is exact',
  })
  z!: number | null;

  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description: `Two-sided P(|S| ≥ |s|) with no trend: exact for n ≤ ${MANN_KENDALL_EXACT_MAX_N} (over every distinct ordering of the values, ties included), else the normal approximation`,
  })
  p_value!: number;

  @ApiProperty()
  exact!: boolean;

  @ApiProperty({
    minimum: -1,
    maximum: 1,
    description: "Kendall's τ_b between time and the series",
  })
  kendall_tau!: number;

  @ApiProperty({
    description:
      "Sen's slope: the median of (x_j − x_i)/(j − i) over all pairs, per interval (a day, a week or a month)",
  })
  sen_slope!: number;

  @ApiProperty({
    enum: ['increasing', 'decreasing', 'none'],
    description: 'The sign of S when p_value < 0.05, else none',
  })
  direction!: string;
}

@ApiExtraModels(TrendDto)
export class TemporalTrendsDto {
  @ApiProperty({
    ...nullableRef(TrendDto),
    description:
      'Trend of `count` over the complete buckets (empty ones count 0); null with fewer than 3',
  })
  count!: TrendDto | null;

  @ApiProperty({
    ...nullableRef(TrendDto),
    description:
      'Trend of mean_confidence − mean_baseline (confidence above chance) over the buckets with queries, each at its place in time; null with fewer than 3',
  })
  excess_confidence!: TrendDto | null;
}

export class TemporalAnalysisDto {
  @ApiProperty({ enum: TEMPORAL_INTERVALS })
  interval!: string;

  @ApiProperty({
    type: TemporalWindowDto,
    description: 'date_from and date_to widened to whole buckets',
  })
  window!: TemporalWindowDto;

  @ApiProperty({ type: TemporalFiltersDto, description: 'What selected the queries' })
  filters!: TemporalFiltersDto;

  @ApiProperty({ type: 'integer', description: 'Completed queries in the window' })
  total_queries!: number;

  @ApiProperty({
    type: [TemporalBucketDto],
    description: 'Every bucket of the window, oldest first, empty ones included',
  })
  buckets!: TemporalBucketDto[];

  @ApiProperty({ type: TemporalTrendsDto })
  trend!: TemporalTrendsDto;

  @ApiProperty({
    type: String,
    nullable: true,
    description: `Why the figures say little, when they do: no query matched; fewer than ${MIN_TREND_BUCKETS} buckets feed a trend (with 4 or fewer, Mann–Kendall cannot reach p < 0.05 whatever the data); or half the buckets with queries hold fewer than ${MIN_BUCKET_QUERIES}. Null otherwise.`,
  })
  warning!: string | null;
}
