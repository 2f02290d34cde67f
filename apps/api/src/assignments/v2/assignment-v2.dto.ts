import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { ASSIGNMENT_STATUSES, TASKED_KINDS } from '#analysts';
import { Optional } from '../../http/dto-decorators.js';
import { nullableRef } from '../../http/nullable-ref.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { V2List, V2ListQueryDto } from '../../http/v2-list.js';
import { oneOf } from '../../http/validation-messages.js';
import { SubmittedCoordinatesDto } from '../submission.dto.js';

export const ASSIGNMENT_ID_EXAMPLE = 'asgmt_01jh2x7v4ke8rbk3a8y0v0d7qz';

export class SubmittedSketchDto {
  @ApiProperty({ example: 'skt_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  sketch_id!: string;

  @ApiProperty({ enum: ['image/png', 'image/jpeg', 'image/svg+xml'] })
  content_type!: string;

  @ApiProperty({ type: 'integer' })
  byte_size!: number;

  @ApiProperty({ description: 'Where you read it back (your own token)' })
  url!: string;
}

@ApiExtraModels(SubmittedCoordinatesDto)
export class SubmissionViewDto {
  @ApiProperty({ type: [String] })
  descriptors!: string[];

  @ApiProperty(nullableRef(SubmittedCoordinatesDto))
  coordinates!: SubmittedCoordinatesDto | null;

  @ApiProperty({ type: String, nullable: true })
  notes!: string | null;

  @ApiProperty({ type: Number, nullable: true, minimum: 0, maximum: 1 })
  confidence!: number | null;

  @ApiProperty({ type: [SubmittedSketchDto] })
  sketches!: SubmittedSketchDto[];

  @ApiProperty({ format: 'date-time', description: 'When it was last submitted or amended' })
  submitted_at!: string;
}

/**
 * An analyst's assignment: blind until the work is done. It never carries the
 * target, its material, its coordinates or who asked for the work.
 */
@ApiExtraModels(SubmissionViewDto)
export class AssignmentDto {
  @ApiProperty({ example: ASSIGNMENT_ID_EXAMPLE })
  assignment_id!: string;

  @ApiProperty({
    example: 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz',
    description: 'The piece of work: where you submit (`POST /v2/sessions/{id}/results`, …)',
  })
  work_id!: string;

  @ApiProperty({ enum: TASKED_KINDS })
  kind!: string;

  @ApiProperty({
    example: '4821-7305',
    description: 'The target reference number: random, it tells nothing of the target',
  })
  target_reference_number!: string;

  @ApiProperty({
    example: 'd2a84f4b8b650937ec8f73cd8be2c74add5a911ba64df27458ed8229da804a26',
    description:
      'Lowercase hex SHA-256 of the UTF-8 string `{target_nonce}:{target}`, fixed when the work was tasked: once both are revealed anyone can check the target was not changed',
  })
  target_commitment!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'remote_viewing',
    description:
      'What kind of question: the session type, the analysis type, or the dowsing query type',
  })
  question_type!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'visual' })
  modality!: string | null;

  @ApiProperty({ type: 'integer' })
  duration_minutes!: number;

  @ApiProperty({ format: 'date-time' })
  deadline!: string;

  @ApiProperty({
    enum: ASSIGNMENT_STATUSES,
    description:
      '`assigned` → `submitted` (amendable until the deadline) → `completed` when the work is done; `declined` (by you, or released when your analyst role ended), `expired` (the deadline passed without your submission), `cancelled` (the work was cancelled)',
  })
  status!: string;

  @ApiProperty(nullableRef(SubmissionViewDto))
  submission!: SubmissionViewDto | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Revealed once the work is closed; null until then',
  })
  target!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Revealed with the target: check sha256(`{target_nonce}:{target}`) = `target_commitment`',
  })
  target_nonce!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  declined_at!: string | null;
}

export class AssignmentListDto extends V2List(AssignmentDto) {}

export class AssignmentListQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional({ enum: ASSIGNMENT_STATUSES })
  @Optional()
  @IsIn(ASSIGNMENT_STATUSES, oneOf(ASSIGNMENT_STATUSES))
  status?: (typeof ASSIGNMENT_STATUSES)[number];

  @ApiPropertyOptional({ enum: TASKED_KINDS })
  @Optional()
  @IsIn(TASKED_KINDS, oneOf(TASKED_KINDS))
  kind?: (typeof TASKED_KINDS)[number];
}

export class DeclineAssignmentDto {
  @ApiPropertyOptional({
    maxLength: 500,
    example: 'Travelling until Friday',
    description: 'Why, for your organisation (kept with the assignment)',
  })
  @Optional()
  @IsString({ message: 'must be a string' })
  @MaxLength(500, { message: 'must be at most 500 characters' })
  reason?: string;
}

export const DECLINE_EXAMPLES: RequestExamples = {
  decline: { summary: 'Decline with a reason', value: { reason: 'Travelling until Friday' } },
};
