import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsString,
  MaxLength,
} from 'class-validator';
import { MAX_MERGED_SESSIONS } from '#sessions';
import type { RequestExamples } from '../../http/request-examples.js';

export const MERGE_SESSIONS_EXAMPLES: RequestExamples = {
  two: {
    summary: 'Merge one other session into the one in the path',
    description:
      'Name completed sessions of yours on exactly the same target as the one in the path.',
    value: { session_ids: ['sess_01jh2x7v4ke8rbk3a8y0v0d7r0'] },
  },
};

/** Body of POST /v2/sessions/{id}/merge. */
export class MergeSessionsV2Dto {
  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: MAX_MERGED_SESSIONS - 1,
    example: ['sess_01jh2x7v4ke8rbk3a8y0v0d7r0'],
    description: `The other completed sessions on the same target to combine with the one in the path (up to ${MAX_MERGED_SESSIONS} in all)`,
  })
  @IsArray({ message: 'must be an array of session ids' })
  @ArrayMinSize(1, { message: 'must name at least one other session' })
  @ArrayMaxSize(MAX_MERGED_SESSIONS - 1, {
    message: `must name at most ${MAX_MERGED_SESSIONS - 1} other sessions`,
  })
  @ArrayUnique({ message: 'must not name a session twice' })
  @IsString({ each: true, message: 'must be an array of session ids' })
  @MaxLength(64, { each: true, message: 'must be an array of session ids' })
  session_ids!: string[];
}
