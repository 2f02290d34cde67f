import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { nullableRef } from '../../http/nullable-ref.js';
import { IsIn, IsOptional } from 'class-validator';
import {
  MODALITIES,
  SESSION_STATUSES,
  SESSION_TYPES,
  type SessionStatus,
  type SessionType,
} from '#common';
import { V1List, V1ListQueryDto } from '../../http/v1-list.dto.js';
import { oneOf } from '../../http/validation-messages.js';

const SESSION_ID = { example: 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz', pattern: '^sess_[0-9a-z]{26}$' };
const PHASES = ['queued', 'data_collection', 'analysis', 'validation', 'completed', 'failed'];

export class SessionCreatedV1Dto {
  @ApiProperty(SESSION_ID)
  session_id!: string;

  @ApiProperty({ enum: SESSION_STATUSES, example: 'initiated' })
  status!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  estimated_completion!: string | null;
}

export class SessionStatusV1Dto {
  @ApiProperty(SESSION_ID)
  session_id!: string;

  @ApiProperty({ enum: SESSION_TYPES })
  type!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    minLength: 1,
    maxLength: 1000,
    example: 'The object in the sealed envelope #4711',
    description:
      'The target, as created (`cue` in the quick-start spelling). Null for a `classified` session: its target never leaves the sessions table — not in reads, lists, events, webhooks or logs',
  })
  target!: string | null;

  @ApiProperty({ enum: SESSION_STATUSES })
  status!: string;

  @ApiProperty({
    minimum: 0,
    maximum: 100,
    description: 'Percentage; moves in steps of 10 and never backwards',
  })
  progress!: number;

  @ApiProperty({ enum: PHASES })
  current_phase!: string;

  @ApiProperty()
  results_available!: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  estimated_completion!: string | null;

  @ApiPropertyOptional({
    description: 'Present when failed: why (e.g. engine_failure, deadline_exceeded, cancelled)',
  })
  failure_reason?: string;
}

export class CoordinatesV1Dto {
  @ApiProperty({ minimum: -90, maximum: 90 })
  latitude!: number;

  @ApiProperty({ minimum: -180, maximum: 180 })
  longitude!: number;

  @ApiProperty({ minimum: 0, maximum: 1 })
  confidence!: number;
}

export class SketchV1Dto {
  @ApiProperty({ format: 'uri', description: 'SVG image; fetch it with the same credentials' })
  url!: string;

  @ApiProperty()
  description!: string;
}

export class ValidationMetricsV1Dto {
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description: 'SAIC accuracy: share of the target described',
  })
  accuracy!: number;

  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description: 'SAIC reliability: share of the response that is correct',
  })
  reliability!: number;
}

@ApiExtraModels(CoordinatesV1Dto)
export class SessionResultsV1Dto {
  @ApiProperty({
    ...nullableRef(CoordinatesV1Dto),
    description:
      'Where the analysts place the target; null only for analyst work in which nobody gave coordinates',
  })
  coordinates!: CoordinatesV1Dto | null;

  @ApiProperty({ type: [String] })
  descriptors!: string[];

  @ApiProperty({ type: [SketchV1Dto] })
  sketches!: SketchV1Dto[];

  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description:
      'With verified outcomes of sessions of this type (`metadata.evidence` `verified`): their calibrated hit rate, (hits + 2·p0)/(n + 2); else one analyst’s calibrated hit rate over the judged trials, or several analysts’ agreement',
  })
  confidence_score!: number;

  @ApiProperty({ type: ValidationMetricsV1Dto })
  validation_metrics!: ValidationMetricsV1Dto;
}

export class SessionResultsMetadataV1Dto {
  @ApiProperty({ type: 'integer', minimum: 5, maximum: 180 })
  duration_minutes!: number;

  @ApiProperty({ type: String, enum: [...MODALITIES, null], nullable: true })
  modality!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Analyst whose work the results rest on (null until there are results)',
  })
  analyst_id!: string | null;

  @ApiProperty({ enum: ['simulated', 'analyst'], description: 'Engine that produced the results' })
  engine!: string;

  @ApiProperty({ type: String, nullable: true, description: 'Engine version, for reproducibility' })
  engine_version!: string | null;

  @ApiProperty({
    type: String,
    enum: ['verified', 'track_record', 'prior', null],
    nullable: true,
    description:
      'Best evidence the numbers rest on: `verified` when your organisation has verified outcomes of sessions of this type (up to the 10,000 most recent), else `prior`',
  })
  evidence!: string | null;
}

export class SessionResultsEnvelopeV1Dto {
  @ApiProperty(SESSION_ID)
  session_id!: string;

  @ApiProperty({ enum: SESSION_STATUSES })
  status!: string;

  @ApiPropertyOptional({
    type: SessionResultsV1Dto,
    description: 'Present once the session has completed',
  })
  results?: SessionResultsV1Dto;

  @ApiProperty({ type: SessionResultsMetadataV1Dto })
  metadata!: SessionResultsMetadataV1Dto;

  @ApiPropertyOptional({ description: 'Present when failed' })
  failure_reason?: string;
}

export class SessionListV1Dto extends V1List(SessionStatusV1Dto) {}

export class SessionListQueryV1Dto extends V1ListQueryDto {
  @ApiPropertyOptional({ enum: SESSION_STATUSES })
  @IsOptional()
  @IsIn(SESSION_STATUSES, oneOf(SESSION_STATUSES))
  status?: SessionStatus;

  @ApiPropertyOptional({ enum: SESSION_TYPES })
  @IsOptional()
  @IsIn(SESSION_TYPES, oneOf(SESSION_TYPES))
  type?: SessionType;
}
