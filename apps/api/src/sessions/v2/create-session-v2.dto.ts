import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length, MaxLength, ValidateIf } from 'class-validator';
import { SESSION_TYPES, toPublicId, type SessionType } from '#common';
import { BUILT_IN_TEMPLATES } from '#sessions';
import { Optional } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';
import { SESSION_EXAMPLE, SessionOptionsDto } from '../session-options.dto.js';
import { WithWorkTasking } from '../../assignments/work-tasking.dto.js';
import { SingleLineText } from '../../http/text-rules.js';

/** The first built-in template ("Standard remote viewing"), which every organisation has. */
const STANDARD_TEMPLATE_ID = toPublicId('sessionTemplate', BUILT_IN_TEMPLATES[0]!.id);

export const CREATE_SESSION_V2_EXAMPLES: RequestExamples = {
  session: SESSION_EXAMPLE,
  from_template: {
    summary: 'From a built-in template (GET /v2/sessions/templates)',
    value: {
      template_id: STANDARD_TEMPLATE_ID,
      target: 'The object in the sealed envelope #4711',
    },
  },
};

/**
 * Body of POST /v2/sessions/create: the spec's session fields, without the v1
 * quick-start aliases, and how people are to do it (docs/analysts.md).
 */
export class CreateSessionV2Dto extends WithWorkTasking(SessionOptionsDto) {
  @ApiPropertyOptional({
    example: STANDARD_TEMPLATE_ID,
    description:
      'Start from this template (GET /v2/sessions/templates): its type, modality, duration and privacy apply unless given here',
  })
  @Optional()
  @IsString({ message: 'must be a template id' })
  @MaxLength(64, { message: 'must be a template id' })
  template_id?: string;

  @ApiPropertyOptional({
    enum: SESSION_TYPES,
    description: 'Required unless `template_id` is given',
  })
  @ValidateIf(
    (body: CreateSessionV2Dto) => body.template_id === undefined || body.type !== undefined,
  )
  @IsIn(SESSION_TYPES, oneOf(SESSION_TYPES))
  type?: SessionType;

  @ApiProperty({
    minLength: 1,
    maxLength: 1000,
    example: 'The object in the sealed envelope #4711',
  })
  @IsString({ message: 'must be a string' })
  @Length(1, 1000, { message: 'must be 1 to 1000 characters' })
  @SingleLineText()
  target!: string;
}
