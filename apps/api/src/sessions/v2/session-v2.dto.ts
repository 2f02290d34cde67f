import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MODALITIES, PRIVACY_LEVELS } from '#common';
import {
  SessionResultsMetadataV1Dto,
  SessionResultsV1Dto,
  SessionStatusV1Dto,
} from '../v1/session-v1.dto.js';

export class StatisticalValidationDto {
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description: 'Exact one-sided binomial P(X ≥ hits | n, p0)',
  })
  p_value!: number;

  @ApiProperty({
    type: [Number],
    minItems: 2,
    maxItems: 2,
    description: 'Wilson 95 % interval of the hit rate',
  })
  confidence_interval!: number[];

  @ApiProperty({ type: 'integer', description: 'Judged trials the numbers rest on' })
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
}
