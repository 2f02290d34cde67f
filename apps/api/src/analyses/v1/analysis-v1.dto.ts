import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { ANALYSIS_STATUSES } from '#analyses';
import { ANALYSIS_PRIORITIES, ANALYSIS_TYPES, RISK_FACTORS, RISK_LEVELS } from '#engines';
import { nullableObject } from '../../http/nullable-ref.js';
import { V1List, V1ListQueryDto } from '../../http/v1-list.dto.js';
import { AnalysisFiltersDto } from '../analysis-filters.dto.js';
import { ANALYSIS_ID, AnalysisStatusDto } from '../analysis-status.dto.js';

/**
 * What version 1 answers besides the status: the submission, the results of
 * a completed analysis and how its figures were reached (metadata), the list.
 */

const JUDGING = {
  hits: { type: 'integer' },
  trials: { type: 'integer' },
  p0: { type: 'number' },
  p_value: { type: 'number' },
};
const VERIFIED = {
  trials: { type: 'integer', minimum: 1, description: 'Verified cases, partials included' },
  hits: { type: 'integer' },
  partials: { type: 'integer', description: 'Counted as misses by the test and the rates' },
  misses: { type: 'integer' },
  expected_hits: { type: 'number', description: 'Σ p0: the hits chance alone gives on average' },
  p0: { type: 'number', description: 'The mean chance baseline of the cases' },
  p_value: {
    type: 'number',
    description: 'P(X ≥ hits) by chance, each case at its own baseline (Poisson-binomial)',
  },
  effect_size: { type: 'number', description: 'Stouffer’s z over the cases / √trials' },
  confidence_interval: {
    type: 'array',
    items: { type: 'number' },
    minItems: 2,
    maxItems: 2,
    description: 'Wilson 95 % interval of hits / trials',
  },
};

export interface VerifiedRecordDto {
  trials: number;
  hits: number;
  partials: number;
  misses: number;
  expected_hits: number;
  p0: number;
  p_value: number;
  effect_size: number;
  confidence_interval: [number, number];
}

export interface JudgingDto {
  hits: number;
  trials: number;
  p0: number;
  p_value: number;
}

export class AnalysisSubmittedDto {
  @ApiProperty(ANALYSIS_ID)
  analysis_id!: string;

  @ApiProperty({ enum: ANALYSIS_STATUSES, example: 'queued' })
  status!: string;

  @ApiProperty({
    format: 'date-time',
    description:
      'From the work ahead of it in the queue (same or higher priority, and running) and the rate this deployment completes analyses at; the engine’s steps stand in until enough has been measured',
  })
  estimated_completion!: string;

  @ApiProperty({ enum: ANALYSIS_PRIORITIES })
  priority!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class RiskAssessmentDto {
  @ApiProperty({
    enum: RISK_LEVELS,
    description:
      'From the factors’ weights: 0 low, 1–2 medium, 3–4 high, 5 or more critical (docs/statistics.md, "Target analyses")',
  })
  level!: string;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: Object.keys(RISK_FACTORS) },
    description: 'Named factors; each is explained in `key_findings` and `recommendations`',
  })
  factors!: string[];
}

export class AnalysisResultsDto {
  @ApiProperty()
  summary!: string;

  @ApiProperty({
    type: [String],
    description: 'What was measured: the material, earlier work, the analysts',
  })
  key_findings!: string[];

  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description:
      'With verified outcomes of this analysis type (`metadata.evidence` `verified`): their calibrated hit rate; else the mean of the score components, or the chance prior 0.25 with none (`metadata.score_components`)',
  })
  confidence_score!: number;

  @ApiProperty({ type: RiskAssessmentDto })
  risk_assessment!: RiskAssessmentDto;

  @ApiProperty({ type: [String] })
  recommendations!: string[];

  @ApiProperty({
    type: [String],
    description: 'Descriptors a majority of the analysts reported (empty for quick_scan)',
  })
  descriptors!: string[];
}

export class EarlierWorkDto {
  @ApiProperty({ enum: ['analysis', 'session'] })
  kind!: string;

  @ApiProperty({ example: 'anal_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  id!: string;

  @ApiProperty({
    enum: ['nearby', 'same_target'],
    description: '`nearby`: within the radius of the coordinates; `same_target`: same description',
  })
  relation!: string;

  @ApiProperty({ type: 'integer', nullable: true })
  distance_meters!: number | null;

  @ApiProperty({ type: Number, nullable: true })
  confidence_score!: number | null;

  @ApiProperty({ format: 'date-time' })
  completed_at!: string;
}

export class ScoreComponentsDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      'Calibrated share of the reference items read and consistent with the target, (k + 2·p0)/(n + 2); null without material',
  })
  material!: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Agreement of the analysts’ independent work; null for quick_scan',
  })
  analyst_agreement!: number | null;

  @ApiProperty({
    ...nullableObject(JUDGING),
    description:
      'The analysts’ judged trials: hits of trials against chance p0 (1/k for judging sets of k), with the exact one-sided binomial P(X ≥ hits); null for quick_scan',
  })
  judging!: JudgingDto | null;

  @ApiProperty({
    ...nullableObject(VERIFIED),
    description:
      'Your organisation’s most recent verified outcomes (up to 10,000) of this analysis type, when there are any: then `confidence_score` is their calibrated hit rate, (hits + 2·p0)/(trials + 2), and `evidence` is `verified`; null when the evidence is the chance prior',
  })
  verified!: VerifiedRecordDto | null;
}

export class AnalysisMetadataDto {
  @ApiProperty({ enum: ['simulated', 'analyst'] })
  engine!: string;

  @ApiProperty({ type: String, nullable: true })
  engine_version!: string | null;

  @ApiProperty({
    type: String,
    enum: ['verified', 'track_record', 'prior', null],
    nullable: true,
    description:
      'Best evidence the numbers rest on (null until completed): `verified` when your organisation has verified outcomes of this analysis type (`score_components.verified`), else `prior`, the chance prior',
  })
  evidence!: string | null;

  @ApiProperty({ enum: ANALYSIS_TYPES })
  analysis_type!: string;

  @ApiProperty({ type: 'integer', description: 'Reference items fetched and read' })
  material_fetched!: number;

  @ApiProperty({ type: 'integer', description: 'Reference items that could not be used' })
  material_failed!: number;

  @ApiProperty({ type: [EarlierWorkDto], description: 'Earlier work that was cross-referenced' })
  earlier_work!: EarlierWorkDto[];

  @ApiPropertyOptional({
    type: ScoreComponentsDto,
    description:
      'What confidence_score was built from (present once completed): the mean of material and analyst_agreement, or the verified record',
  })
  score_components?: ScoreComponentsDto;
}

export class AnalysisResultsEnvelopeDto {
  @ApiProperty(ANALYSIS_ID)
  analysis_id!: string;

  @ApiProperty({ enum: ANALYSIS_STATUSES })
  status!: string;

  @ApiPropertyOptional({ type: AnalysisResultsDto, description: 'Present once completed' })
  results?: AnalysisResultsDto;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Human-readable, from start to finish; null until finished',
    example: '4.2 seconds',
  })
  processing_time!: string | null;

  @ApiProperty({ type: AnalysisMetadataDto })
  metadata!: AnalysisMetadataDto;

  @ApiPropertyOptional({ description: 'Present when failed' })
  failure_reason?: string;

  @ApiPropertyOptional({ description: 'Present when failed' })
  failure_message?: string;
}

export class AnalysisListQueryV1Dto extends IntersectionType(V1ListQueryDto, AnalysisFiltersDto) {}

export class AnalysisListV1Dto extends V1List(AnalysisStatusDto) {}
