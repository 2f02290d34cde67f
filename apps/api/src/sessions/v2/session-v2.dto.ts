import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import {
  MODALITIES,
  PRIVACY_LEVELS,
  SESSION_STATUSES,
  SESSION_TYPES,
  type SessionStatus,
  type SessionType,
} from '#common';
import type { ScoreOperator } from '#sessions';
import { NumberQuery } from '../../http/query-params.js';
import { V2List, V2ListQueryDto } from '../../http/v2-list.js';
import { oneOf } from '../../http/validation-messages.js';
import {
  SessionResultsMetadataV1Dto,
  SessionResultsV1Dto,
  SessionStatusV1Dto,
} from '../v1/session-v1.dto.js';

export class StatisticalValidationDto {
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description:
      'One-sided P(X ≥ hits | n, p0) by chance: of your organisation’s verified outcomes of sessions of this type when there are any (`evidence` `verified`; each case at its own baseline, partials counted as misses), else exact binomial over the judged trials',
  })
  p_value!: number;

  @ApiProperty({
    type: [Number],
    minItems: 2,
    maxItems: 2,
    description: 'Wilson 95 % interval of the hit rate',
  })
  confidence_interval!: number[];

  @ApiProperty({
    type: 'integer',
    description: 'Verified outcomes (`evidence` `verified`) or judged trials the numbers rest on',
  })
  sample_size!: number;
}

export class CollaborativeInsightDto {
  @ApiProperty({ example: 'analyst_sim_1' })
  analyst_id!: string;

  @ApiProperty({ minimum: 0, maximum: 1 })
  contribution_weight!: number;

  @ApiProperty({ type: [String] })
  key_insights!: string[];
}

export class SessionResultsV2Dto extends SessionResultsV1Dto {
  @ApiProperty({ type: StatisticalValidationDto })
  statistical_validation!: StatisticalValidationDto;

  @ApiProperty({ type: [CollaborativeInsightDto] })
  collaborative_insights!: CollaborativeInsightDto[];
}

/** A session as version 2 reads it: the v1 status fields plus its settings and, once completed, the later-generation results. */
export class SessionV2Dto extends SessionStatusV1Dto {
  @ApiProperty({ type: String, enum: [...MODALITIES, null], nullable: true })
  modality!: string | null;

  @ApiProperty({ type: 'integer', minimum: 5, maximum: 180 })
  duration_minutes!: number;

  @ApiProperty({ enum: PRIVACY_LEVELS })
  privacy_level!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completed_at!: string | null;

  @ApiPropertyOptional({ type: SessionResultsV2Dto, description: 'Present once completed' })
  results?: SessionResultsV2Dto;

  @ApiProperty({ type: SessionResultsMetadataV1Dto })
  metadata!: SessionResultsMetadataV1Dto;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    example: 1,
    description:
      'Analysts working independently on it: 1, N for a collaborative session, the sum of its sources for a merge',
  })
  analyst_count!: number;

  @ApiProperty({
    type: [String],
    nullable: true,
    example: null,
    description: 'For a merged session, the sessions it combines; else null',
  })
  merged_from!: string[] | null;
}

/** `confidence_score[op]=x`: the bracket names the comparison (eq when left out). */
const ScoreFilter = (operator: ScoreOperator | null) =>
  NumberQuery({
    name: operator === null ? 'confidence_score' : `confidence_score[${operator}]`,
    minimum: 0,
    maximum: 1,
    description:
      operator === null
        ? 'Sessions whose confidence_score equals this'
        : `Sessions whose confidence_score is ${{ eq: '=', gt: '>', gte: '≥', lt: '<', lte: '≤' }[operator]} this (e.g. 0.8); combine operators for a range`,
  });

export class SessionListQueryV2Dto extends V2ListQueryDto {
  @ApiPropertyOptional({ enum: SESSION_STATUSES })
  @IsOptional()
  @IsIn(SESSION_STATUSES, oneOf(SESSION_STATUSES))
  status?: SessionStatus;

  @ApiPropertyOptional({ enum: SESSION_TYPES })
  @IsOptional()
  @IsIn(SESSION_TYPES, oneOf(SESSION_TYPES))
  type?: SessionType;

  @ScoreFilter(null)
  confidence_score?: number;

  @ScoreFilter('gt')
  'confidence_score[gt]'?: number;

  @ScoreFilter('gte')
  'confidence_score[gte]'?: number;

  @ScoreFilter('lt')
  'confidence_score[lt]'?: number;

  @ScoreFilter('lte')
  'confidence_score[lte]'?: number;

  // Optional filters carry no example: Swagger UI's "Try it out" would send them all at once.
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Sessions created after this date or time (e.g. 2026-01-01)',
  })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date or date-time' })
  created_after?: string;

  @ApiPropertyOptional({ description: 'Sessions this analyst worked on (an `analyst_…` id)' })
  @IsOptional()
  @IsString({ message: 'must be an analyst id' })
  @MaxLength(100, { message: 'must be an analyst id' })
  analyst_id?: string;
}

export class SessionListV2Dto extends V2List(SessionV2Dto) {}

/** The confidence_score comparisons a query asked for. */
export function scoreComparisons(
  query: SessionListQueryV2Dto,
): { operator: ScoreOperator; value: number }[] {
  const asked: [ScoreOperator, number | undefined][] = [
    ['eq', query.confidence_score],
    ['gt', query['confidence_score[gt]']],
    ['gte', query['confidence_score[gte]']],
    ['lt', query['confidence_score[lt]']],
    ['lte', query['confidence_score[lte]']],
  ];
  return asked.flatMap(([operator, value]) => (value === undefined ? [] : [{ operator, value }]));
}
