import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsNumber,
  IsObject,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  MAX_TARGET_DESCRIPTION_LENGTH,
  MAX_TARGET_DESCRIPTOR_LENGTH,
  MAX_TARGET_DESCRIPTORS,
  MAX_TARGET_PHOTO_URL_LENGTH,
  MAX_TARGET_PHOTOS,
} from '#analysts';
import { Optional, OptionalOrNull } from '../../http/dto-decorators.js';
import { nullableRef } from '../../http/nullable-ref.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { FreeText, SingleLineText } from '../../http/text-rules.js';

export const TARGET_ID_EXAMPLE = 'tgt_01jh2x7v4ke8rbk3a8y0v0d7qz';
export const TARGET_PHOTO_ID_EXAMPLE = 'photo_01jh2x7v4ke8rbk3a8y0v0d7qz';

const LATITUDE = { message: 'must be a number between -90 and 90' };
const LONGITUDE = { message: 'must be a number between -180 and 180' };

export class TargetCoordinatesInputDto {
  @ApiProperty({ minimum: -90, maximum: 90, example: 48.8584 })
  @IsNumber({ allowNaN: false, allowInfinity: false }, LATITUDE)
  @Min(-90, LATITUDE)
  @Max(90, LATITUDE)
  latitude!: number;

  @ApiProperty({ minimum: -180, maximum: 180, example: 2.2945 })
  @IsNumber({ allowNaN: false, allowInfinity: false }, LONGITUDE)
  @Min(-180, LONGITUDE)
  @Max(180, LONGITUDE)
  longitude!: number;
}

@ApiExtraModels(TargetCoordinatesInputDto)
export class CreateTargetDto {
  @ApiProperty({
    minLength: 1,
    maxLength: MAX_TARGET_DESCRIPTION_LENGTH,
    example: 'A wrought-iron lattice tower on a wide lawn beside a river',
    description: 'What the target is, as a judge reads it beside the submissions (not blank).',
  })
  @IsString({ message: 'must be text' })
  @Length(1, MAX_TARGET_DESCRIPTION_LENGTH)
  @FreeText()
  description!: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_TARGET_DESCRIPTORS,
    example: ['tall', 'metal', 'lattice', 'river', 'grass'],
    description: `Ground-truth descriptors (the session vocabulary plus free words), each 1 to ${MAX_TARGET_DESCRIPTOR_LENGTH} characters, at most ${MAX_TARGET_DESCRIPTORS}: stored trimmed, in lower case, each once. Judging scores submissions against them (SAIC).`,
  })
  @Optional()
  @IsArray({ message: 'must be a list of words' })
  @ArrayMaxSize(MAX_TARGET_DESCRIPTORS)
  @IsString({ each: true, message: 'must be a list of words' })
  @MaxLength(MAX_TARGET_DESCRIPTOR_LENGTH, { each: true })
  @SingleLineText({ each: true })
  descriptors?: string[];

  @ApiPropertyOptional({
    ...nullableRef(TargetCoordinatesInputDto),
    description: 'Where the target is, if it is a place',
  })
  @OptionalOrNull()
  @IsObject({ message: 'must be an object with latitude and longitude' })
  @ValidateNested()
  @Type(() => TargetCoordinatesInputDto)
  coordinates?: TargetCoordinatesInputDto | null;

  @ApiPropertyOptional({
    type: 'array',
    items: {
      type: 'string',
      format: 'uri',
      pattern: '^https://',
      maxLength: MAX_TARGET_PHOTO_URL_LENGTH,
    },
    maxItems: MAX_TARGET_PHOTOS,
    description: `Up to ${MAX_TARGET_PHOTOS} https URLs of photos of the target, fetched while the request waits (under the outbound destination policy: no private addresses, bounded size and time) and stored. Only PNG, JPEG, WebP and GIF, by their content; a photo that cannot be fetched or is not one of those is kept as \`failed\` with its \`failure\` and never fails the target.`,
  })
  @Optional()
  @IsArray({ message: 'must be a list of https URLs' })
  @ArrayMaxSize(MAX_TARGET_PHOTOS, { message: `can hold at most ${MAX_TARGET_PHOTOS} photos` })
  photos?: unknown[];
}

export const CREATE_TARGET_EXAMPLES: RequestExamples = {
  place: {
    summary: 'A place, with ground-truth descriptors and coordinates',
    description:
      'Add `photos` (https URLs) to have pictures of it fetched and stored for the judges.',
    value: {
      description: 'A wrought-iron lattice tower on a wide lawn beside a river',
      descriptors: ['tall', 'metal', 'lattice', 'river', 'grass'],
      coordinates: { latitude: 48.8584, longitude: 2.2945 },
    },
  },
  object: {
    summary: 'An object: a description alone',
    value: { description: 'A brass ship’s bell, green with age, hanging from a wooden beam' },
  },
};
