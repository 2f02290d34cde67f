import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { SESSION_TYPES, type SessionType } from '#common';
import { oneOf } from '../../http/validation-messages.js';
import { SessionOptionsDto } from '../session-options.dto.js';

/** Body of POST /v2/sessions/create: the spec's session fields, without the v1 quick-start aliases. */
export class CreateSessionV2Dto extends SessionOptionsDto {
  @ApiProperty({ enum: SESSION_TYPES })
  @IsIn(SESSION_TYPES, oneOf(SESSION_TYPES))
  type!: SessionType;

  @ApiProperty({
    minLength: 1,
    maxLength: 1000,
    example: 'The object in the sealed envelope #4711',
  })
  @IsString({ message: 'must be a string' })
  @Length(1, 1000, { message: 'must be 1 to 1000 characters' })
  target!: string;
}
