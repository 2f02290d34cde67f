import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { oneOf } from '../http/validation-messages.js';
import { MODALITIES, PRIVACY_LEVELS, type Modality, type PrivacyLevel } from '#common';

/** The create example both versions offer: every field of the spec's session body. */
export const SESSION_EXAMPLE = {
  summary: 'A remote viewing session',
  value: {
    type: 'remote_viewing',
    target: 'The object in the sealed envelope #4711',
    modality: 'visual',
    duration_minutes: 30,
    privacy_level: 'private',
  },
};

const DURATION = { message: 'must be an integer between 5 and 180' };

/** The optional session fields both versions' create bodies share. */
export class SessionOptionsDto {
  @ApiPropertyOptional({ enum: MODALITIES })
  @IsOptional()
  @IsIn(MODALITIES, oneOf(MODALITIES))
  modality?: Modality;

  @ApiPropertyOptional({ type: 'integer', minimum: 5, maximum: 180, default: 30 })
  @IsOptional()
  @IsInt(DURATION)
  @Min(5, DURATION)
  @Max(180, DURATION)
  duration_minutes?: number;

  @ApiPropertyOptional({ enum: PRIVACY_LEVELS, default: 'private' })
  @IsOptional()
  @IsIn(PRIVACY_LEVELS, oneOf(PRIVACY_LEVELS))
  privacy_level?: PrivacyLevel;
}
