import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length, MaxLength, ValidateIf } from 'class-validator';
import { SESSION_TYPES, type SessionType } from '#common';
import { oneOf } from '../../http/validation-messages.js';
import { SessionOptionsDto } from '../session-options.dto.js';

/** Body of POST /v2/sessions/create: the spec's session fields, without the v1 quick-start aliases. */
export class CreateSessionV2Dto extends SessionOptionsDto {
  @ApiPropertyOptional({
    example: 'tpl_00000000000000000000000001',
    description:
      'Start from this template (GET /v2/sessions/templates): its type, modality, duration and privacy apply unless given here',
  })
  @ValidateIf((_object: object, value: unknown) => value !== undefined)
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
  target!: string;
}
