import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';
import { BATCH_KINDS } from '#work';
import {
  AnalysisResultsEnvelopeDto,
  AnalysisSubmittedDto,
} from '../../analyses/v1/analysis-v1.dto.js';
import { DowsingQueryV1Dto } from '../../dowsing/v1/dowsing-v1.dto.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { CreateSessionV1Dto } from '../../sessions/v1/create-session-v1.dto.js';
import {
  SessionCreatedV1Dto,
  SessionResultsEnvelopeV1Dto,
} from '../../sessions/v1/session-v1.dto.js';

/** Sessions one batch may create. */
export const MAX_BATCH_SIZE = 100;

export const BATCH_STATUSES = [
  'processing',
  'completed',
  'completed_with_failures',
  'failed',
] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export const CREATE_SESSION_BATCH_EXAMPLES: RequestExamples = {
  two: {
    summary: 'Two sessions, created together',
    value: {
      sessions: [
        { type: 'remote_viewing', target: 'The object in the sealed envelope #4711' },
        { type: 'dowsing', target: 'The well on the north field', duration_minutes: 60 },
      ],
    },
  },
};

export class CreateSessionBatchV1Dto {
  @ApiProperty({
    type: [CreateSessionV1Dto],
    minItems: 1,
    maxItems: MAX_BATCH_SIZE,
    description: 'Each item is a POST /v1/sessions body; all are created, or none',
  })
  @IsArray({ message: 'must be an array of session bodies' })
  @ArrayMinSize(1, { message: 'must hold at least one session' })
  @ArrayMaxSize(MAX_BATCH_SIZE, { message: `can hold at most ${MAX_BATCH_SIZE} sessions` })
  @ValidateNested({ each: true })
  @Type(() => CreateSessionV1Dto)
  sessions!: CreateSessionV1Dto[];
}

/** Items per status: the statuses of the batch's kind (sessions: initiated, in_progress; analyses: queued, processing; dowsing: pending). */
export class BatchCountsDto {
  @ApiPropertyOptional({ type: 'integer', description: 'Sessions' })
  initiated?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Sessions' })
  in_progress?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Analyses' })
  queued?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Analyses' })
  processing?: number;

  @ApiPropertyOptional({ type: 'integer', description: 'Dowsing queries answered by analysts' })
  pending?: number;

  @ApiProperty({ type: 'integer' })
  completed!: number;

  @ApiProperty({ type: 'integer' })
  failed!: number;
}

export class BatchStatusV1Dto {
  @ApiProperty({ example: 'batch_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  batch_id!: string;

  @ApiProperty({ enum: BATCH_KINDS })
  kind!: string;

  @ApiProperty({
    enum: BATCH_STATUSES,
    description:
      '`processing` while any item runs; then `completed` (all succeeded), `completed_with_failures` or `failed` (none succeeded)',
  })
  status!: BatchStatus;

  @ApiProperty({ type: 'integer' })
  total!: number;

  @ApiProperty({ type: BatchCountsDto, description: 'Items per status' })
  counts!: BatchCountsDto;

  @ApiProperty({ minimum: 0, maximum: 100, description: 'Mean progress of the items, in %' })
  progress!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class BatchCreatedV1Dto extends BatchStatusV1Dto {
  @ApiProperty({ type: [SessionCreatedV1Dto], description: 'In the order of the request' })
  sessions!: SessionCreatedV1Dto[];
}

export class AnalysisBatchCreatedV1Dto extends BatchStatusV1Dto {
  @ApiProperty({ type: [AnalysisSubmittedDto], description: 'In the order of the request' })
  analyses!: AnalysisSubmittedDto[];
}

@ApiExtraModels(SessionResultsEnvelopeV1Dto, AnalysisResultsEnvelopeDto, DowsingQueryV1Dto)
export class BatchResultsV1Dto extends BatchStatusV1Dto {
  @ApiProperty({
    type: 'array',
    items: {
      anyOf: [
        { $ref: getSchemaPath(SessionResultsEnvelopeV1Dto) },
        { $ref: getSchemaPath(AnalysisResultsEnvelopeDto) },
        { $ref: getSchemaPath(DowsingQueryV1Dto) },
      ],
    },
    description:
      "Each item's results in the order of the request: as GET /v1/sessions/{id}/results shows a session, GET /v1/analysis/{id}/results an analysis, GET /v1/dowsing/queries/{id} a dowsing query (results present once completed)",
  })
  results!: (SessionResultsEnvelopeV1Dto | AnalysisResultsEnvelopeDto | DowsingQueryV1Dto)[];
}
