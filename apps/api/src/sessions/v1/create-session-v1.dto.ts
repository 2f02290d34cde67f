import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { SESSION_TYPES, type SessionType } from '#common';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';
import { SESSION_EXAMPLE, SessionOptionsDto } from '../session-options.dto.js';
import { SingleLineText } from '../../http/text-rules.js';

const TARGET_LENGTH = { message: 'must be 1 to 1000 characters' };

export const CREATE_SESSION_V1_EXAMPLES: RequestExamples = {
  session: SESSION_EXAMPLE,
  quick_start: {
    summary: 'The quick-start spelling (cue, session_type)',
    value: { session_type: 'remote_viewing', cue: 'Where is the lost hiking boot?' },
  },
};

/**
 * Body of POST /v1/sessions. The quick-start spelling (`cue`, `session_type`)
 * is accepted in place of `target` and `type`.
 */
export class CreateSessionV1Dto extends SessionOptionsDto {
  @ApiPropertyOptional({
    enum: SESSION_TYPES,
    description: 'Kind of session. Required unless `session_type` is given.',
  })
  @IsOptional()
  @IsIn(SESSION_TYPES, oneOf(SESSION_TYPES))
  type?: SessionType;

  @ApiPropertyOptional({ enum: SESSION_TYPES, description: 'Quick-start spelling of `type`.' })
  @IsOptional()
  @IsIn(SESSION_TYPES, oneOf(SESSION_TYPES))
  session_type?: SessionType;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 1000,
    description: 'The target. Required unless `cue` is given.',
    example: 'The object in the sealed envelope #4711',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @Length(1, 1000, TARGET_LENGTH)
  @SingleLineText()
  target?: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 1000,
    description: 'Quick-start spelling of `target`: the question or target text.',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @Length(1, 1000, TARGET_LENGTH)
  @SingleLineText()
  cue?: string;
}
