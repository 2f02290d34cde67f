import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import {
  MODALITIES,
  PRIVACY_LEVELS,
  SESSION_TYPES,
  type Modality,
  type PrivacyLevel,
  type SessionType,
} from '#database';

const oneOf = (values: readonly string[]) => ({ message: `must be one of ${values.join(', ')}` });
const TARGET_LENGTH = { message: 'must be 1 to 1000 characters' };
const DURATION = { message: 'must be an integer between 5 and 180' };

/**
 * Body of POST /v1/sessions. The quick-start spelling (`cue`, `session_type`)
 * is accepted in place of `target` and `type`.
 */
export class CreateSessionV1Dto {
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
  target?: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 1000,
    description: 'Quick-start spelling of `target`: the question or target text.',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @Length(1, 1000, TARGET_LENGTH)
  cue?: string;

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
