import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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
const DURATION = { message: 'must be an integer between 5 and 180' };

/** Body of POST /v2/sessions/create: the spec's session fields, without the v1 quick-start aliases. */
export class CreateSessionV2Dto {
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
