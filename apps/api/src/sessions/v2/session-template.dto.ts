import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { MODALITIES, PRIVACY_LEVELS, SESSION_TYPES, toPublicId, type SessionType } from '#common';
import type { SessionTemplate } from '#sessions';
import { Optional } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';
import { V2List } from '../../http/v2-list.js';
import { SessionOptionsDto } from '../session-options.dto.js';
import { FreeText, SingleLineText } from '../../http/text-rules.js';

export const CREATE_SESSION_TEMPLATE_EXAMPLES: RequestExamples = {
  template: {
    summary: "A template for the night shift's coordinate work",
    value: {
      name: 'Night-shift coordinates',
      description: 'Long kinesthetic sessions on location targets',
      type: 'remote_viewing',
      modality: 'kinesthetic',
      duration_minutes: 90,
      privacy_level: 'private',
    },
  },
};

export class CreateSessionTemplateDto extends SessionOptionsDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Night-shift coordinates' })
  @IsString({ message: 'must be a string' })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  @SingleLineText()
  name!: string;

  @ApiPropertyOptional({ maxLength: 1000, default: '' })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Length(0, 1000, { message: 'must be at most 1000 characters' })
  @FreeText()
  description?: string;

  @ApiProperty({ enum: SESSION_TYPES })
  @IsIn(SESSION_TYPES, oneOf(SESSION_TYPES))
  type!: SessionType;
}

export class SessionTemplateDto {
  @ApiProperty({ example: 'tpl_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  template_id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty()
  description!: string;

  @ApiProperty({ enum: SESSION_TYPES })
  type!: string;

  @ApiProperty({ type: String, enum: [...MODALITIES, null], nullable: true })
  modality!: string | null;

  @ApiProperty({ type: 'integer', minimum: 5, maximum: 180 })
  duration_minutes!: number;

  @ApiProperty({ enum: PRIVACY_LEVELS })
  privacy_level!: string;

  @ApiProperty({ description: 'Built in: the same for every organisation, cannot be deleted' })
  built_in!: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  created_at!: string | null;
}

export class SessionTemplateListDto extends V2List(SessionTemplateDto) {}

export function toTemplateDto(template: SessionTemplate): SessionTemplateDto {
  return {
    template_id: toPublicId('sessionTemplate', template.id),
    name: template.name,
    description: template.description,
    type: template.type,
    modality: template.modality,
    duration_minutes: template.durationMinutes,
    privacy_level: template.privacyLevel,
    built_in: template.builtIn,
    created_at: template.createdAt?.toISOString() ?? null,
  };
}
