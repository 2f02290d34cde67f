import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  Length,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  MAX_DESCRIPTION_LENGTH,
  MAX_DOCUMENTS,
  MAX_PHOTOS,
  DEFAULT_ANALYSIS_TYPE,
  DEFAULT_PRIORITY,
  DEFAULT_ANALYSIS_DURATION_MINUTES,
} from '#analyses';
import {
  ANALYSIS_PRIORITIES,
  ANALYSIS_TARGET_TYPES,
  ANALYSIS_TYPES,
  type AnalysisPriority,
  type AnalysisTargetType,
  type AnalysisType,
} from '#engines';
import { WithWorkTasking } from '../../assignments/work-tasking.dto.js';
import { Optional, OptionalOrNull } from '../../http/dto-decorators.js';
import { nullableRef } from '../../http/nullable-ref.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';

/** Longest reference URL accepted. */
export const MAX_URL_LENGTH = 2048;
/** Bounds of `duration_minutes`: a minute to a week. */
export const MIN_ANALYST_MINUTES = 1;
export const MAX_ANALYST_MINUTES = 10_080;
const DURATION = {
  message: `must be an integer from ${MIN_ANALYST_MINUTES} to ${MAX_ANALYST_MINUTES}`,
};
/** Analyses one batch may submit. */
export const MAX_ANALYSIS_BATCH_SIZE = 100;

const LATITUDE = { message: 'must be a number between -90 and 90' };
const LONGITUDE = { message: 'must be a number between -180 and 180' };
const URL_ITEMS = {
  type: 'string',
  format: 'uri',
  pattern: '^https://',
  maxLength: MAX_URL_LENGTH,
} as const;

export const ANALYSIS_EXAMPLE = {
  target_type: 'location',
  reference_material: {
    photos: [],
    documents: [],
    coordinates: { latitude: 52.520008, longitude: 13.404954 },
  },
  analysis_type: 'comprehensive',
  priority: 'high',
  description: 'The old water tower north of the river',
};

export const SUBMIT_ANALYSIS_EXAMPLES: RequestExamples = {
  location: {
    summary: 'A location with coordinates',
    description:
      'Add https URLs of photos and documents to `reference_material`: the worker fetches and reads them.',
    value: ANALYSIS_EXAMPLE,
  },
  quick_scan: {
    summary: 'A quick scan of an object, default priority',
    value: {
      target_type: 'object',
      reference_material: {},
      analysis_type: 'quick_scan',
      description: 'The sealed envelope #4711',
    },
  },
};

export const SUBMIT_ANALYSIS_BATCH_EXAMPLES: RequestExamples = {
  two: {
    summary: 'Two analyses, submitted together',
    value: {
      analyses: [
        ANALYSIS_EXAMPLE,
        { target_type: 'event', analysis_type: 'quick_scan', priority: 'low' },
      ],
    },
  },
};

export class TargetCoordinatesDto {
  @ApiProperty({ minimum: -90, maximum: 90, example: 52.520008 })
  @IsNumber({ allowNaN: false, allowInfinity: false }, LATITUDE)
  @Min(-90, LATITUDE)
  @Max(90, LATITUDE)
  latitude!: number;

  @ApiProperty({ minimum: -180, maximum: 180, example: 13.404954 })
  @IsNumber({ allowNaN: false, allowInfinity: false }, LONGITUDE)
  @Min(-180, LONGITUDE)
  @Max(180, LONGITUDE)
  longitude!: number;
}

@ApiExtraModels(TargetCoordinatesDto)
export class ReferenceMaterialDto {
  @ApiPropertyOptional({
    type: 'array',
    items: URL_ITEMS,
    maxItems: MAX_PHOTOS,
    description: `Up to ${MAX_PHOTOS} https URLs of photos (JPEG, PNG, WebP, GIF, TIFF). The worker fetches each under the outbound policy and reads its dimensions, capture time and GPS position.`,
  })
  @Optional()
  @IsArray({ message: 'must be an array of https URLs' })
  @ArrayMaxSize(MAX_PHOTOS, { message: `can hold at most ${MAX_PHOTOS} photos` })
  photos?: unknown[];

  @ApiPropertyOptional({
    type: 'array',
    items: URL_ITEMS,
    maxItems: MAX_DOCUMENTS,
    description: `Up to ${MAX_DOCUMENTS} https URLs of documents (PDF or plain text). The worker reads their page count and text.`,
  })
  @Optional()
  @IsArray({ message: 'must be an array of https URLs' })
  @ArrayMaxSize(MAX_DOCUMENTS, { message: `can hold at most ${MAX_DOCUMENTS} documents` })
  documents?: unknown[];

  @ApiPropertyOptional({
    ...nullableRef(TargetCoordinatesDto),
    description: "The target's position, if known",
  })
  @OptionalOrNull()
  @IsObject({ message: 'must be an object with latitude and longitude' })
  @ValidateNested()
  @Type(() => TargetCoordinatesDto)
  coordinates?: TargetCoordinatesDto | null;
}

/** The fields of an analysis itself, before how people are to do it. */
class AnalysisFieldsDto {
  @ApiProperty({ enum: ANALYSIS_TARGET_TYPES })
  @IsIn(ANALYSIS_TARGET_TYPES, oneOf(ANALYSIS_TARGET_TYPES))
  target_type!: AnalysisTargetType;

  @ApiPropertyOptional({
    type: ReferenceMaterialDto,
    description: 'Photos, documents and coordinates of the target; all optional',
  })
  @Optional()
  @IsObject({ message: 'must be an object with photos, documents and coordinates' })
  @ValidateNested()
  @Type(() => ReferenceMaterialDto)
  reference_material?: ReferenceMaterialDto;

  @ApiPropertyOptional({
    enum: ANALYSIS_TYPES,
    default: DEFAULT_ANALYSIS_TYPE,
    description:
      '`quick_scan` reads the material only (3 steps); `comprehensive` adds cross-references to your earlier work within 1 km and 3 analysts (5 steps); `deep_dive` looks within 25 km and uses 7 analysts (8 steps).',
  })
  @Optional()
  @IsIn(ANALYSIS_TYPES, oneOf(ANALYSIS_TYPES))
  analysis_type?: AnalysisType;

  @ApiPropertyOptional({
    enum: ANALYSIS_PRIORITIES,
    default: DEFAULT_PRIORITY,
    description:
      'Queue priority: under a backlog, higher priorities start first (urgent, high, medium, low).',
  })
  @Optional()
  @IsIn(ANALYSIS_PRIORITIES, oneOf(ANALYSIS_PRIORITIES))
  priority?: AnalysisPriority;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_DESCRIPTION_LENGTH,
    description:
      'What the target is. Earlier work with the same description is cross-referenced. Sandbox magic: `[fail]`, `[timeout]`, `[slow]`.',
    example: 'The old water tower north of the river',
  })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_DESCRIPTION_LENGTH, {
    message: `must be 1 to ${MAX_DESCRIPTION_LENGTH} characters`,
  })
  description?: string;
}

/** Body of POST /v1/analysis/targets (and its older name, POST /v1/analysis/submit). */
export class SubmitAnalysisDto extends WithWorkTasking(AnalysisFieldsDto) {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: MIN_ANALYST_MINUTES,
    maximum: MAX_ANALYST_MINUTES,
    default: DEFAULT_ANALYSIS_DURATION_MINUTES,
    description:
      'With the `analyst` engine: minutes the analysts have; the deadline (docs/analysts.md). Ignored by the simulator.',
  })
  @Optional()
  @IsInt(DURATION)
  @Min(MIN_ANALYST_MINUTES, DURATION)
  @Max(MAX_ANALYST_MINUTES, DURATION)
  duration_minutes?: number;
}

export class SubmitAnalysisBatchDto {
  @ApiProperty({
    type: [SubmitAnalysisDto],
    minItems: 1,
    maxItems: MAX_ANALYSIS_BATCH_SIZE,
    description: 'Each item is a POST /v1/analysis/targets body; all are queued, or none',
  })
  @IsArray({ message: 'must be an array of analysis bodies' })
  @ArrayMinSize(1, { message: 'must hold at least one analysis' })
  @ArrayMaxSize(MAX_ANALYSIS_BATCH_SIZE, {
    message: `can hold at most ${MAX_ANALYSIS_BATCH_SIZE} analyses`,
  })
  @ValidateNested({ each: true })
  @Type(() => SubmitAnalysisDto)
  analyses!: SubmitAnalysisDto[];
}
