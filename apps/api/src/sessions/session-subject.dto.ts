import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { SESSION_TYPES, type SessionType } from '#common';
import { Optional } from '../http/dto-decorators.js';
import { ApiRequiredAlternatives } from '../http/required-alternatives.js';
import { SingleLineText } from '../http/text-rules.js';
import { oneOf } from '../http/validation-messages.js';
import type { SessionSubjectFields } from './session-mapping.js';
import { SessionOptionsDto } from './session-options.dto.js';

const TARGET_LENGTH = { message: 'must be 1 to 1000 characters' };

/** The quick-start spelling of a create body, which every session create takes. */
export const QUICK_START_EXAMPLE = {
  summary: 'The quick-start spelling (cue, session_type)',
  value: { session_type: 'remote_viewing', cue: 'Where is the lost hiking boot?' },
};

/**
 * What every session create body names the session with: `type` and
 * `target`, or the spec's quick-start spelling `session_type` and `cue` in
 * their place. Both are required in one spelling or the other; the mapper
 * (sessionSubject) says "is required" naming `type` or `target` when neither
 * is given.
 */
@ApiRequiredAlternatives(['type', 'session_type'], ['target', 'cue'])
export class SessionSubjectDto extends SessionOptionsDto implements SessionSubjectFields {
  @ApiPropertyOptional({
    enum: SESSION_TYPES,
    description: 'Kind of session. Required unless `session_type` is given.',
  })
  @Optional()
  @IsIn(SESSION_TYPES, oneOf(SESSION_TYPES))
  type?: SessionType;

  @ApiPropertyOptional({ enum: SESSION_TYPES, description: 'Quick-start spelling of `type`.' })
  @Optional()
  @IsIn(SESSION_TYPES, oneOf(SESSION_TYPES))
  session_type?: SessionType;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 1000,
    description: 'The target. Required unless `cue` is given.',
    example: 'The object in the sealed envelope #4711',
  })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Length(1, 1000, TARGET_LENGTH)
  @SingleLineText()
  target?: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 1000,
    description: 'Quick-start spelling of `target`: the question or target text.',
  })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Length(1, 1000, TARGET_LENGTH)
  @SingleLineText()
  cue?: string;
}
