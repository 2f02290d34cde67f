import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDateString,
  IsIn,
  IsObject,
  IsString,
  Length,
  ValidateNested,
} from 'class-validator';
import { VERDICTS, type Verdict } from '#history';
import { PointDto } from '../../dowsing/dowsing-request.dto.js';
import { Optional, OptionalOrNull } from '../../http/dto-decorators.js';
import { nullableRef } from '../../http/nullable-ref.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';

export const MAX_OUTCOME_LENGTH = 5000;
export const MAX_VERIFICATION_LENGTH = 1000;
export const MAX_VERIFIED_BY_LENGTH = 200;
const BOOLEAN = { message: 'must be true or false' };

export const RECORD_OUTCOME_EXAMPLES: RequestExamples = {
  hit: {
    summary: 'A hit, found on a site visit',
    value: {
      verdict: 'hit',
      outcome: 'The water tower was found 300 m north of the indicated point.',
      location_found: true,
      coordinates: { latitude: 51.5101, longitude: -0.1281 },
      verification: 'Site visit with photographs',
      independent_verification: true,
      accuracy_confirmed: true,
      verified_by: 'Field team',
    },
  },
  miss: {
    summary: 'A miss',
    value: {
      verdict: 'miss',
      outcome: 'Nothing like it at the place.',
      verified_by: 'Field team',
    },
  },
};

/** Body of PUT /v1/history/{case_id}/outcome: what really happened, as a whole (a PUT replaces it). */
@ApiExtraModels(PointDto)
export class RecordOutcomeDto {
  @ApiProperty({
    enum: VERDICTS,
    example: 'hit',
    description: '`hit`, `partial` or `miss`: what hit rates count (a partial is not a hit)',
  })
  @IsIn(VERDICTS, oneOf(VERDICTS))
  verdict!: Verdict;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_OUTCOME_LENGTH,
    example: 'The water tower was found 300 m north of the indicated point.',
    description: 'What really happened, in words (searched with the case)',
  })
  @OptionalOrNull()
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_OUTCOME_LENGTH, { message: `must be 1 to ${MAX_OUTCOME_LENGTH} characters` })
  outcome?: string | null;

  @ApiPropertyOptional({ type: Boolean, nullable: true, example: true })
  @OptionalOrNull()
  @IsBoolean(BOOLEAN)
  location_found?: boolean | null;

  @ApiPropertyOptional({
    ...nullableRef(PointDto),
    description: 'Where the target really was: the case’s location from now on',
  })
  @OptionalOrNull()
  @IsObject({ message: 'must be an object with latitude and longitude' })
  @ValidateNested()
  @Type(() => PointDto)
  coordinates?: PointDto | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_VERIFICATION_LENGTH,
    example: 'Site visit with photographs',
    description: 'How the outcome was verified',
  })
  @OptionalOrNull()
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_VERIFICATION_LENGTH, {
    message: `must be 1 to ${MAX_VERIFICATION_LENGTH} characters`,
  })
  verification?: string | null;

  @ApiPropertyOptional({ default: false, example: true })
  @Optional()
  @IsBoolean(BOOLEAN)
  independent_verification?: boolean;

  @ApiPropertyOptional({ default: false, example: false })
  @Optional()
  @IsBoolean(BOOLEAN)
  accuracy_confirmed?: boolean;

  @ApiProperty({
    minLength: 1,
    maxLength: MAX_VERIFIED_BY_LENGTH,
    example: 'Dr. A. Example, field team',
    description: 'Who verified it',
  })
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_VERIFIED_BY_LENGTH, {
    message: `must be 1 to ${MAX_VERIFIED_BY_LENGTH} characters`,
  })
  verified_by!: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-20T14:00:00Z',
    description: 'When it was verified; default: now. Not in the future.',
  })
  @Optional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  verified_at?: string;
}
