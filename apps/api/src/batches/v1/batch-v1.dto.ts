import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';
import { BATCH_KINDS } from '#sessions';
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

export class BatchCountsDto {
  @ApiProperty({ type: 'integer' })
  initiated!: number;

  @ApiProperty({ type: 'integer' })
  in_progress!: number;

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

export class BatchResultsV1Dto extends BatchStatusV1Dto {
  @ApiProperty({
    type: [SessionResultsEnvelopeV1Dto],
    description: "Each item's results (present once it completed), in the order of the request",
  })
  results!: SessionResultsEnvelopeV1Dto[];
}
