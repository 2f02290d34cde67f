import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import {
  JUDGING_TASK_STATUSES,
  WORK_KINDS,
  type JudgingTaskStatus,
  type WorkKind,
} from '#analysts';
import { nullableRef } from '../../http/nullable-ref.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { V2List, V2ListQueryDto } from '../../http/v2-list.js';
import { oneOf } from '../../http/validation-messages.js';

export const JUDGING_TASK_ID = {
  example: 'jdg_01jh2x7v4ke8rbk3a8y0v0d7qz',
  description: 'The judging task id',
};
export const CANDIDATE_ID = {
  example: 'cand_01jh2x7v4ke8rbk3a8y0v0d7qz',
  description: 'A candidate of the task (random, new for each task)',
};
export const SKETCH_ID = {
  example: 'skt_01jh2x7v4ke8rbk3a8y0v0d7qz',
  description: 'A sketch of one of the task’s submissions',
};

/** The most candidates a task has: the true target and at most nine decoys. */
const MAX_CANDIDATES = 10;

export class JudgingTaskListQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional({ enum: JUDGING_TASK_STATUSES, description: 'Only tasks in this status' })
  @IsOptional()
  @IsIn(JUDGING_TASK_STATUSES, oneOf(JUDGING_TASK_STATUSES))
  status?: JudgingTaskStatus;
}

export class RankingDto {
  @ApiProperty({
    type: [String],
    maxItems: MAX_CANDIDATES,
    example: [
      'cand_01jh2x7v4ke8rbk3a8y0v0d7r1',
      'cand_01jh2x7v4ke8rbk3a8y0v0d7r0',
      'cand_01jh2x7v4ke8rbk3a8y0v0d7r2',
    ],
    description:
      'Every `candidate_id` of the task exactly once, best match with the submissions first. A missing, repeated or unknown id is a 400 naming `ranking`.',
  })
  @IsArray({ message: 'must be a list of candidate ids, best first' })
  @ArrayMaxSize(MAX_CANDIDATES, { message: `holds at most ${MAX_CANDIDATES} candidate ids` })
  @IsString({ each: true, message: 'must hold candidate ids (text)' })
  @MaxLength(40, { each: true, message: 'must hold candidate ids (cand_…)' })
  ranking!: string[];
}

/**
 * The ranking route's examples can only name a task's real candidates, which
 * no document knows: the example shows the shape (and is refused as 404 for
 * its task, as any unknown task is).
 */
export const RANKING_EXAMPLES: RequestExamples = {
  ranking: {
    summary: 'The candidates, best match first',
    value: {
      ranking: [
        'cand_01jh2x7v4ke8rbk3a8y0v0d7r1',
        'cand_01jh2x7v4ke8rbk3a8y0v0d7r0',
        'cand_01jh2x7v4ke8rbk3a8y0v0d7r2',
      ],
    },
  },
};

export class JudgingCoordinatesDto {
  @ApiProperty({ example: 48.8584 })
  latitude!: number;

  @ApiProperty({ example: 2.2945 })
  longitude!: number;
}

export class JudgingFileDto {
  @ApiProperty({
    example:
      'https://api.example.com/v2/judging-tasks/jdg_01jh2x7v4ke8rbk3a8y0v0d7qz/candidates/cand_01jh2x7v4ke8rbk3a8y0v0d7r1/photos/1',
    description: 'Where to read it, with the judge’s own token (served through this task only)',
  })
  url!: string;

  @ApiProperty({ example: 'image/jpeg' })
  content_type!: string;
}

@ApiExtraModels(JudgingCoordinatesDto)
export class JudgedSubmissionDto {
  @ApiProperty({
    example: 'A',
    description:
      'A label for this task only (A, B, …), in an order that says nothing of who submitted or when',
  })
  submission_id!: string;

  @ApiProperty({ type: [String], example: ['water', 'structure', 'metal'] })
  descriptors!: string[];

  @ApiProperty({ ...nullableRef(JudgingCoordinatesDto) })
  coordinates!: JudgingCoordinatesDto | null;

  @ApiProperty({ type: String, nullable: true })
  notes!: string | null;

  @ApiProperty({ type: [JudgingFileDto] })
  sketches!: JudgingFileDto[];
}

@ApiExtraModels(JudgingCoordinatesDto)
export class CandidateDto {
  @ApiProperty(CANDIDATE_ID)
  candidate_id!: string;

  @ApiProperty({ example: 'A wrought-iron lattice tower on an open field beside a river' })
  description!: string;

  @ApiProperty({
    type: [String],
    example: ['structure', 'metal', 'tall'],
    description: 'Empty for every candidate when any candidate has none',
  })
  descriptors!: string[];

  @ApiProperty({
    ...nullableRef(JudgingCoordinatesDto),
    description: 'Null for every candidate when any candidate has none',
  })
  coordinates!: JudgingCoordinatesDto | null;

  @ApiProperty({
    type: [JudgingFileDto],
    description: 'As many for every candidate as the candidate with the fewest photos has',
  })
  photos!: JudgingFileDto[];
}

export class JudgingTaskDto {
  @ApiProperty(JUDGING_TASK_ID)
  judging_task_id!: string;

  @ApiProperty({ enum: WORK_KINDS, description: 'The kind of work that was judged' })
  kind!: WorkKind;

  @ApiProperty({
    enum: JUDGING_TASK_STATUSES,
    description:
      '`awaiting_judge` (no judge who did not work on it yet), `pending` (yours to rank), `ranked`, `cancelled`',
  })
  status!: JudgingTaskStatus;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  ranked_at!: string | null;

  @ApiProperty({
    type: [JudgedSubmissionDto],
    description: 'What the analysts submitted, anonymised',
  })
  submissions!: JudgedSubmissionDto[];

  @ApiProperty({
    type: [CandidateDto],
    description: 'The true target and the decoys in a random order; nothing says which is which',
  })
  candidates!: CandidateDto[];

  @ApiPropertyOptional({
    type: [String],
    description: 'Once ranked: the candidate ids as ranked, best first',
  })
  ranking?: string[];
}

export class JudgingTaskListDto extends V2List(JudgingTaskDto) {}
